/**
 * @parley/widget in a single-page app, in chromium against the live app: the package as built
 * from this checkout (`npm run build:widget-package`) and resolved through its package exports,
 * served as plain ES modules with an import map by a site on another origin. The app calls the
 * API before `load`, loads on every route's render (as an app's components would), navigates
 * with history.pushState, and the page keeps exactly one widget while the queued calls take
 * effect and events arrive.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatbotWithKnowledge, startLiveApp, type LiveApp } from '../../helpers/widget.js';
import { launch, screenshot, type Browser } from '../../browser/helpers.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

let app: LiveApp;
let chatbotId: string;
let browser: Browser;
let site: Server;
let origin: string;

/** The app's one module: a router of three routes, each rendering a view that loads the widget. */
const spa = (serverUrl: string, chatbotId: string) => `
import { Parley } from '@parley/widget';

window.seen = [];
// Before load: held by the widget's queue until widget.js has run.
Parley.on('ready', () => seen.push('ready'));
Parley.on('open', () => seen.push('open'));
const off = Parley.on('close', () => seen.push('close'));
off();
Parley.on('message', (m) => seen.push('message:' + m.author));
Parley.setLocale('de');
Parley.open();

const views = { '/': 'Home', '/pricing': 'Pricing', '/help': 'Help' };
function render(path) {
  document.querySelector('main').textContent = views[path] ?? 'Not found';
  // What a layout component does on every render.
  Parley.load({ serverUrl: ${JSON.stringify(serverUrl)}, chatbotId: ${JSON.stringify(chatbotId)} });
  Parley.setContext({ page: path });
}
window.navigate = (path) => {
  history.pushState({}, '', path);
  render(path);
};
addEventListener('popstate', () => render(location.pathname));
render(location.pathname);
`;

beforeAll(async () => {
  const build = spawnSync('npm', ['run', '--silent', 'build:widget-package'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build:widget-package failed:\n${build.stdout}\n${build.stderr}`);
  // Where an application's bundler finds the package: its exports, through node_modules.
  const entry = fileURLToPath(import.meta.resolve('@parley/widget'));
  const dist = dirname(entry);
  app = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(app);
  const code = spa(app.url, chatbotId);
  site = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/app.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(code);
    if (path.startsWith('/node_modules/@parley/widget/')) {
      const file = normalize(join(dist, path.slice('/node_modules/@parley/widget/'.length)));
      if (!file.startsWith(dist)) return void res.writeHead(404).end();
      try {
        return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(file));
      } catch {
        return void res.writeHead(404).end();
      }
    }
    // Every other path is a route of the app: the same page (the history API fallback).
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme app</title>
<script type="importmap">{ "imports": { "@parley/widget": "/node_modules/@parley/widget/${entry.slice(dist.length + 1)}" } }</script>
</head><body><nav>Acme app</nav><main></main><script type="module" src="/app.js"></script></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://localhost:${(site.address() as AddressInfo).port}`;
  browser = await launch({ viewport: { width: 1280, height: 800 } });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
  await app?.close();
});

const seen = (page: Page) => page.evaluate(() => (window as unknown as { seen: string[] }).seen);
const counts = (page: Page) =>
  page.evaluate(() => ({
    widgets: document.querySelectorAll('[data-parley]').length,
    scripts: document.querySelectorAll('script[src$="/widget.js"]').length,
  }));

describe('@parley/widget in a single-page app', () => {
  it(
    'calls before load take effect, route changes keep one widget, events arrive, the context follows the route',
    { timeout: 90_000 },
    async () => {
      const page = await browser.context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${origin}/`);
      // setLocale('de') and open() were called before load: the window is open, in German.
      const input = page.locator('[data-parley] textarea[placeholder="Stellen Sie eine Frage…"]');
      await input.waitFor();
      expect(await seen(page)).toEqual(expect.arrayContaining(['ready', 'open']));

      for (const path of ['/pricing', '/help', '/pricing', '/']) {
        await page.evaluate((p) => (window as unknown as { navigate(p: string): void }).navigate(p), path);
        expect(await page.locator('main').textContent()).toBe(
          { '/': 'Home', '/pricing': 'Pricing', '/help': 'Help' }[path],
        );
        expect(await counts(page)).toEqual({ widgets: 1, scripts: 1 });
      }
      await page.goBack();
      await page.locator('main', { hasText: 'Pricing' }).waitFor();
      expect(await counts(page)).toEqual({ widgets: 1, scripts: 1 });

      // After the route changes: the API still drives the one widget, and its events arrive.
      // (A string: vitest would rewrite an import() written in a function.)
      await page.evaluate(`import('@parley/widget').then(({ Parley }) => Parley.sendMessage('Can I return items?'))`);
      await page
        .locator('[data-parley] .msg-ai .md')
        .filter({ hasText: /30 days/ })
        .waitFor({ timeout: 20_000 });
      await page.waitForFunction(() => (window as unknown as { seen: string[] }).seen.includes('message:ai'));
      const events = await seen(page);
      expect(events.filter((e) => e.startsWith('message:'))).toEqual(['message:visitor', 'message:ai']);
      // One open (queued before load), and the unsubscribed close handler was never called.
      expect(events.filter((e) => e === 'open')).toEqual(['open']);
      expect(events).not.toContain('close');
      await screenshot(page, 'desktop-light-spa-package');

      // The visitor's context is the route the app was on when it sent (the last setContext).
      const list = await app.call('GET', `/api/v2/chatbots/${chatbotId}/conversations`, app.ownerToken);
      expect(JSON.stringify(list.body.data)).toContain('"context":{"page":"/pricing"}');
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it(
    'load() is idempotent, refuses a second chatbot, and after destroy() loads anew',
    { timeout: 60_000 },
    async () => {
      const page = await browser.context.newPage();
      await page.goto(`${origin}/help`);
      await page.locator('[data-parley] textarea').waitFor();
      const result = await page.evaluate(`(async () => {
      const { Parley } = await import('@parley/widget');
      const options = { serverUrl: ${JSON.stringify(app.url)}, chatbotId: ${JSON.stringify(chatbotId)} };
      const same = await Promise.all([Parley.load(options), Parley.load(options)]);
      const other = await Parley.load({ ...options, chatbotId: 'another' }).then(() => 'loaded', (e) => e.message);
      Parley.destroy();
      const gone = document.querySelectorAll('[data-parley], script[src$="/widget.js"]').length;
      await Parley.load(options);
      return { same: same.length, other, gone };
    })()`);
      expect(result).toEqual({ same: 2, other: expect.stringMatching(/another chatbot is loaded/), gone: 0 });
      await page.locator('[data-parley] .bubble').waitFor();
      expect(await counts(page)).toEqual({ widgets: 1, scripts: 1 });
      await page.close();
    },
  );
});
