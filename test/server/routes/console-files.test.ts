/**
 * The console's files: one page for every /console path, under a CSP of our own origin only,
 * never cached stale; its hashed assets cached for a year, brotli when accepted. And its budget:
 * the first page at most 60 KB brotli, every page a chunk of its own, loaded when opened.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_DIST } from '../../../server/routes/assets/console.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

interface ManifestEntry {
  file: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  css?: string[];
}
const manifest = (): Record<string, ManifestEntry> =>
  JSON.parse(readFileSync(join(CONSOLE_DIST, '.vite', 'manifest.json'), 'utf8'));
const brotli = (file: string) =>
  brotliCompressSync(readFileSync(join(CONSOLE_DIST, file)), { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } })
    .length;

describe('console files', () => {
  it('answers the one page for /console and every path under it, under a strict CSP, revalidated', async () => {
    for (const url of ['/console', '/console/', '/console/chatbots', '/console/abc123/knowledge']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe');
      expect(res.body).toMatch(/<script type="module" crossorigin src="\/console\/assets\/index-[\w-]+\.js">/);
    }
  });

  it('serves hashed assets for a year, brotli when accepted, with their types', async () => {
    const entry = Object.values(manifest()).find((e) => e.isEntry)!;
    for (const file of [entry.file, ...(entry.css ?? [])]) {
      const url = `/console/${file}`;
      const res = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, br' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-type']).toMatch(file.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      const plain = await t.app.inject({ method: 'GET', url });
      expect(plain.headers['content-encoding']).toBeUndefined();
    }
  });

  it('refuses names that are not an asset of the build', async () => {
    for (const url of [
      '/console/assets/missing-abc.js',
      '/console/assets/..%2F..%2Fpackage.json',
      '/console/assets/.vite',
      '/console/assets/index.html',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
  });
});

describe('console size budget (brotli)', () => {
  it('every page is a chunk of its own, loaded only when opened', () => {
    const m = manifest();
    const pages = readdirSync(join(CONSOLE_DIST, '..', '..', 'console', 'pages'));
    expect(pages.length).toBeGreaterThan(0);
    const entry = Object.entries(m).find(([, e]) => e.isEntry)!;
    for (const id of pages) {
      const chunk = m[`pages/${id}/index.tsx`];
      expect(chunk?.isDynamicEntry, id).toBe(true);
      expect(entry[1].imports ?? [], id).not.toContain(`pages/${id}/index.tsx`);
    }
  });

  it('the first page (the shell and the largest page, scripts and styles) is at most 60 KB', () => {
    const m = manifest();
    const entry = Object.values(m).find((e) => e.isEntry)!;
    const closure = (key: string, seen: Set<string>) => {
      if (seen.has(key)) return;
      seen.add(key);
      for (const i of m[key].imports ?? []) closure(i, seen);
    };
    const shellKeys = new Set<string>();
    closure(
      Object.keys(m).find((k) => m[k].isEntry)!,
      shellKeys,
    );
    const size = (keys: Set<string>) =>
      [...keys].reduce((sum, k) => sum + brotli(m[k].file) + (m[k].css ?? []).reduce((s, c) => s + brotli(c), 0), 0);
    const shell = size(shellKeys);
    const pages = Object.keys(m).filter((k) => /^pages\/[^/]+\/index\.tsx$/.test(k));
    const largest = Math.max(
      ...pages.map((k) => {
        const keys = new Set<string>();
        closure(k, keys);
        for (const s of shellKeys) keys.delete(s);
        return size(keys);
      }),
    );
    expect(entry.file).toMatch(/^assets\//);
    expect(shell + largest).toBeLessThanOrEqual(60 * 1024);
  });
});
