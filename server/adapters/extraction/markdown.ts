import { baseTitle, normaliseNewlines } from './decode.js';
import type { ExtractedDocument, Section } from '../../domain/knowledge/documents.js';

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+|$)(.*)$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;

/** Inline syntax a reader does not see: links and images keep their text, HTML comments go. */
function inlineText(line: string): string {
  return line
    .replace(/!\[([^\]\n]*)\]\([^)\n]*\)/g, '$1')
    .replace(/\[([^\]\n]+)\]\([^)\n]*\)/g, '$1')
    .replace(/\[([^\]\n]+)\]\[[^\]\n]*\]/g, '$1');
}

function headingText(raw: string): string {
  return inlineText(raw.replace(/[ \t]+#+[ \t]*$/, '').replace(/^#+$/, '')).trim();
}

/** YAML front matter: skipped, its title/lang kept. */
function frontMatter(lines: string[]): { end: number; title?: string; language?: string } {
  if (lines[0]?.trim() !== '---') return { end: 0 };
  const close = lines.findIndex((l, i) => i > 0 && (l.trim() === '---' || l.trim() === '...'));
  if (close === -1 || close > 200) return { end: 0 };
  const field = (name: string) => {
    for (const l of lines.slice(1, close)) {
      const m = new RegExp(`^${name}\\s*:\\s*(.+)$`, 'i').exec(l);
      if (m) return m[1].trim().replace(/^(["'])(.*)\1$/, '$2') || undefined;
    }
    return undefined;
  };
  return { end: close + 1, title: field('title'), language: field('lang') ?? field('language') };
}

/**
 * Markdown -> sections at ATX (`## x`) and setext (underlined) headings. Fenced code is kept
 * verbatim as one paragraph (headings inside it are code); link and image syntax is reduced to
 * its text; everything else is kept as written.
 */
export function markdownDocument(source: string, filename?: string): ExtractedDocument {
  const lines = normaliseNewlines(source.replace(/^\uFEFF/, '')).split('\n');
  const front = frontMatter(lines);
  const sections: Section[] = [];
  const path: { level: number; text: string }[] = [];
  let paragraphs: string[] = [];
  let current: string[] = [];
  let firstH1: string | undefined;
  let firstHeading: string | undefined;

  const flushParagraph = () => {
    if (current.length) paragraphs.push(current.join('\n'));
    current = [];
  };
  const flushSection = () => {
    flushParagraph();
    const text = paragraphs.join('\n\n').trim();
    if (text) sections.push({ headingPath: path.map((h) => h.text), text });
    paragraphs = [];
  };
  const heading = (level: number, text: string) => {
    if (!text) return;
    flushSection();
    while (path.length && path[path.length - 1].level >= level) path.pop();
    path.push({ level, text });
    firstHeading ??= text;
    if (level === 1) firstH1 ??= text;
  };

  let inComment = false;
  for (let i = front.end; i < lines.length; i++) {
    let line = lines[i];
    if (inComment) {
      const end = line.indexOf('-->');
      if (end === -1) continue;
      inComment = false;
      line = line.slice(end + 3);
      if (!line.trim()) continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      flushParagraph();
      const marker = fence[1];
      const block = [line];
      let j = i + 1;
      for (; j < lines.length; j++) {
        block.push(lines[j]);
        const close = FENCE.exec(lines[j]);
        if (close && close[1][0] === marker[0] && close[1].length >= marker.length && lines[j].trim() === close[1])
          break;
      }
      paragraphs.push(block.join('\n'));
      i = j;
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      heading(atx[1].length, headingText(atx[2]));
      continue;
    }
    const setext = SETEXT.exec(line);
    // An underline turns the paragraph just read into a heading (CommonMark); `---` after a
    // blank line is a thematic break and ends the paragraph instead.
    if (setext && current.length && !/^ {0,3}([-*+]|\d{1,9}[.)])[ \t]/.test(current[0])) {
      const text = inlineText(current.join(' ')).replace(/\s+/g, ' ').trim();
      current = [];
      heading(setext[1][0] === '=' ? 1 : 2, text);
      continue;
    }
    if (!line.trim() || /^ {0,3}([-*_])([ \t]*\1){2,}[ \t]*$/.test(line)) {
      flushParagraph();
      continue;
    }
    const commentStart = line.indexOf('<!--');
    if (commentStart !== -1) {
      const end = line.indexOf('-->', commentStart + 4);
      if (end === -1) {
        inComment = true;
        line = line.slice(0, commentStart);
      } else line = line.slice(0, commentStart) + line.slice(end + 3);
      if (!line.trim()) continue;
    }
    current.push(inlineText(line.trimEnd()));
  }
  flushSection();
  return {
    kind: 'markdown',
    title: front.title ?? firstH1 ?? firstHeading ?? baseTitle(filename) ?? 'Untitled',
    ...(front.language ? { language: front.language } : {}),
    sections,
  };
}
