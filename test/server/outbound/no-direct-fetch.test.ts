/**
 * ARCHITECTURE.md: "No other module calls fetch." Outbound HTTP anywhere in server/ must go
 * through server/outbound, or the SSRF guard and the limits are bypassed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const serverDir = join(root, 'server');
const allowedDir = join(serverDir, 'outbound');

const FORBIDDEN: Array<[RegExp, string]> = [
  [/(?<![.\w$])fetch\s*\(/, 'global fetch()'],
  // `typeof globalThis.fetch` as a type (an injected fetch) is fine; calling or passing it is not.
  [/(?<!typeof\s+)globalThis\.fetch\b/, 'globalThis.fetch'],
  [/from\s+['"]undici['"]|require\(\s*['"]undici['"]\s*\)/, 'undici'],
  [/\{[^}]*\b(request|get|Agent|ClientRequest)\b[^}]*\}\s*from\s+['"](node:)?https?['"]/, 'the node:http(s) client'],
  [/\bhttps?\.(request|get)\s*\(/, 'the node:http(s) client'],
  [/from\s+['"](axios|got|node-fetch|ky|superagent)['"]/, 'an HTTP client library'],
];

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path !== allowedDir) yield* sourceFiles(path);
    } else if (/\.(ts|tsx|js|mjs)$/.test(entry.name)) {
      yield path;
    }
  }
}

it('no module outside server/outbound makes HTTP requests itself', () => {
  const offences: string[] = [];
  for (const file of sourceFiles(serverDir)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const code = line.trim();
        if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return;
        for (const [pattern, what] of FORBIDDEN) {
          if (pattern.test(code)) offences.push(`${relative(root, file)}:${i + 1} uses ${what}: ${code}`);
        }
      });
  }
  expect(offences, 'use GuardedHttpClient from server/outbound instead').toEqual([]);
});
