/**
 * The widget's weight and speed: bytes of widget.js and each chunk (raw, gzip, brotli), then in
 * headless chromium, on the same local page, the time from navigation to a visible bubble for
 * Parley's widget.js and for flowise-embed's dist/web.js (same run, each page a first visit in a
 * fresh browser context: no cache, no storage, no open connection), where those milliseconds go
 * (resource timing), and for Parley the time to the first rendered answer (the built-in answerer
 * on a small knowledge base).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM, FLAGS } from '../test/browser/helpers.js';
import { chatbotWithKnowledge, startLiveApp } from '../test/helpers/widget.js';
import { widgetIsStale } from '../scripts/stale.mjs';
import { buildWidget, WIDGET_DIST } from '../widget/build.js';

const RUNS = 11;
const kb = (n: number) => (n / 1024).toFixed(1);

function sizes(path: string) {
  const bytes = readFileSync(path);
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Timing {
  /** Navigation to the bubble's first frame with a size. */
  bubble: number;
  /** Start and end of each script and settings request (resource timing), by short name. */
  requests: Record<string, [number, number]>;
}

/**
 * Navigates and returns when (on the page's clock, navigation = 0) `visible` first held, checked
 * every frame in the page (no driver round trip counted), with the page's resource timing.
 */
async function timeTo(page: Page, url: string, visible: string): Promise<Timing> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await page.addInitScript(`(() => {
    const check = () => { if (${visible}) window.__visibleAt = performance.now(); else requestAnimationFrame(check); };
    requestAnimationFrame(check);
  })()`);
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(() => (window as unknown as { __visibleAt?: number }).__visibleAt, undefined, { timeout: 30_000 });
  const bubble = (await handle.jsonValue()) as number;
  await handle.dispose();
  // A string, not a function: the page must not see the bundler's helpers.
  const requests = (await page.evaluate(`Object.fromEntries(performance.getEntriesByType('resource')
    .map((e) => [e.name.includes('/config') ? 'settings' : e.name.replace(/^.*\\//, ''), [e.startTime, e.responseEnd]]))`)) as Timing['requests'];
  return { bubble, requests };
}

export async function run() {
  if (widgetIsStale()) await buildWidget();
  const flowise = createRequire(import.meta.url).resolve('flowise-embed/dist/web.js');
  console.log('\nBytes (KB: raw / gzip / brotli)');
  const ours = [join(WIDGET_DIST, 'widget.js'), ...readdirSync(join(WIDGET_DIST, 'chunks')).filter((f) => f.endsWith('.js')).map((f) => join(WIDGET_DIST, 'chunks', f))];
  let toChat = 0;
  for (const path of ours) {
    const s = sizes(path);
    const name = path.slice(WIDGET_DIST.length + 1);
    if (name === 'widget.js' || name.startsWith('chunks/app-')) toChat += s.brotli;
    console.log(`  ${name.padEnd(28)} ${kb(s.raw).padStart(7)} ${kb(s.gzip).padStart(7)} ${kb(s.brotli).padStart(7)}`);
  }
  const f = sizes(flowise);
  console.log(`  ${'flowise-embed dist/web.js'.padEnd(28)} ${kb(f.raw).padStart(7)} ${kb(f.gzip).padStart(7)} ${kb(f.brotli).padStart(7)}`);
  console.log(`  Parley to chat (widget.js + app chunk), brotli: ${kb(toChat)} KB`);

  const app = await startLiveApp();
  const chatbotId = await chatbotWithKnowledge(app);
  const page = (body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>bench</title></head><body><h1>Shop</h1>${body}</body></html>`;
  const flowiseJs = readFileSync(flowise);
  const site = createServer((req, res) => {
    if (req.url === '/parley') res.writeHead(200, { 'content-type': 'text/html' }).end(page(`<script src="${app.url}/widget.js" data-chatbot-id="${chatbotId}" async></script>`));
    else if (req.url === '/flowise') res.writeHead(200, { 'content-type': 'text/html' }).end(page(`<script type="module">import Chatbot from '/web.js'; Chatbot.init({ chatflowid: 'bench', apiHost: '${app.url}' });</script>`));
    else if (req.url === '/web.js') res.writeHead(200, { 'content-type': 'text/javascript', 'content-encoding': 'identity' }).end(flowiseJs);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const origin = `http://localhost:${(site.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  const timings: Record<string, Timing[]> = { parley: [], flowise: [] };
  const answer: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      // Alternate the order so neither side always runs on a warmer machine.
      for (const name of i % 2 ? ['flowise', 'parley'] : ['parley', 'flowise']) {
        // A fresh context per page: a first visit has no cache, no storage and no connection
        // open to either server (a pooled connection would hide a handshake from one side).
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light', reducedMotion: 'reduce' });
        const p = await context.newPage();
        timings[name].push(
          await timeTo(p, `${origin}/${name}`, name === 'parley'
            ? "document.querySelector('[data-parley]')?.shadowRoot?.querySelector('.bubble')?.getBoundingClientRect().width"
            : "document.querySelector('flowise-chatbot')?.shadowRoot?.querySelector('button')?.getBoundingClientRect().width"),
        );
        if (name === 'parley') {
          await p.locator('[data-parley] .bubble').click();
          const input = p.locator('[data-parley] textarea');
          await input.fill('Can I return items?');
          await input.press('Enter');
          await p.locator('[data-parley] .msg-ai .md', { hasText: /30 days/ }).waitFor();
          answer.push(await p.evaluate(() => performance.now()));
        }
        await context.close();
      }
    }
  } finally {
    await browser.close();
    site.closeAllConnections();
    site.close();
    await app.close();
  }
  const pb = median(timings.parley.map((t) => t.bubble));
  const fb = median(timings.flowise.map((t) => t.bubble));
  // Medians of each step's start and end, and of the bubble: where Parley's milliseconds go.
  const at = (name: string, request: string, end: 0 | 1) => median(timings[name].map((t) => t.requests[request]?.[end] ?? NaN)).toFixed(0);
  console.log(`\nTime from navigation (median of ${RUNS}, each a first visit in a fresh browser context, same local page)`);
  console.log(`  bubble visible: Parley ${pb.toFixed(0)} ms, flowise-embed ${fb.toFixed(0)} ms, ratio ${(pb / fb).toFixed(2)} (goal <= 0.33)`);
  console.log(`  Parley steps: widget.js ${at('parley', 'widget.js', 0)}-${at('parley', 'widget.js', 1)} ms, settings ${at('parley', 'settings', 0)}-${at('parley', 'settings', 1)} ms, bubble ${pb.toFixed(0)} ms`);
  console.log(`  flowise-embed steps: web.js ${at('flowise', 'web.js', 0)}-${at('flowise', 'web.js', 1)} ms, bubble ${fb.toFixed(0)} ms`);
  console.log(`  Parley first answer rendered (navigation, click, type, answer): ${median(answer).toFixed(0)} ms`);
}
