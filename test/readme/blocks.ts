/**
 * Code blocks of the project's Markdown, found by the heading they sit under, so a test runs the
 * example a reader sees (not a copy that could drift from it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The first ```lang block in `file` (relative to the repository) under the heading line
 * `heading` (e.g. `### Widget for apps`), before the next heading of that level or higher.
 * Lines starting with `#` inside fences are code, not headings.
 */
export function blockUnder(file: string, heading: string, lang: string): string {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`${file} has no heading "${heading}"`);
  const level = /^#+/.exec(heading)![0].length;
  let mine: string[] | null = null;
  let other = false;
  for (const line of lines.slice(start + 1)) {
    if (mine) {
      if (line === '```') return mine.join('\n') + '\n';
      mine.push(line);
    } else if (other) other = line !== '```';
    else if (line === '```' + lang) mine = [];
    else if (line.startsWith('```')) other = true;
    else if (/^#+ /.test(line) && /^#+/.exec(line)![0].length <= level) break;
  }
  throw new Error(`${file} has no \`\`\`${lang} block under "${heading}"`);
}

/** What a reader does with an example: their server's address and chatbot id for the placeholders. */
export function withPlaceholders(code: string, serverUrl: string, chatbotId: string): string {
  for (const placeholder of ['https://chat.example.com', 'CHATBOT_ID'])
    if (code.split(placeholder).length !== 2) throw new Error(`expected "${placeholder}" once in:\n${code}`);
  return code.replace('https://chat.example.com', serverUrl).replace('CHATBOT_ID', chatbotId);
}
