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
import { embedSnippet, encodeBubble } from '../widget/loader/snippet-look.js';

const RUNS = 11;
const kb = (n: number) => (n / 1024).toFixed(1);

function sizes(path: string) {
  const bytes = readFileSync(path);
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The console message the page sends when the bubble is visible. */
const SEEN = 'bench:visible';

interface Timing {
  /** Navigation to the bubble's first frame with a size. */
  bubble: number;
  /** When the element `drawn` names was first in the document (no frame yet), when asked for. */
  drawn: number | null;
  /** When the page's HTML was parsed (domInteractive): async and module scripts wait for it here. */
  parsed: number;
  /** Start and end of each script and settings request (resource timing), by short name. */
  requests: Record<string, [number, number]>;
}

/**
 * Navigates and returns when (on the page's clock, navigation = 0) `visible` first held, checked
 * every frame in the page (no driver round trip counted), with the page's resource timing and,
 * given `drawn` (a selector), when that element was first in the document. The page tells the
 * driver through a console message: until then the driver runs nothing in the page (a polling
 * `waitForFunction` injects playwright's script and polls every frame, work on the page's main
 * thread in the middle of what is measured, on either side).
 */
async function timeTo(page: Page, url: string, visible: string, drawn?: string): Promise<Timing> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await page.addInitScript(`(() => {
    const check = () => { if (${visible}) { window.__visibleAt = performance.now(); console.debug('${SEEN}'); } else requestAnimationFrame(check); };
    requestAnimationFrame(check);
    ${
      drawn
        ? `const seen = new MutationObserver(() => { if (document.querySelector('${drawn}')) { window.__drawnAt = performance.now(); seen.disconnect(); } });
    seen.observe(document, { childList: true, subtree: true });`
        : ''
    }
  })()`);
  const seen = page.waitForEvent('console', { predicate: (m) => m.text() === SEEN, timeout: 30_000 });
  seen.catch(() => {}); // awaited below; a failed goto must not leave it unhandled
  await page.goto(url, { waitUntil: 'commit' });
  await seen;
  const bubble = (await page.evaluate('window.__visibleAt')) as number;
  // A string, not a function: the page must not see the bundler's helpers.
  const requests = (await page.evaluate(`Object.fromEntries(performance.getEntriesByType('resource')
    .map((e) => [e.name.includes('/config') ? 'settings' : e.name.replace(/^.*\\//, ''), [e.startTime, e.responseEnd]]))`)) as Timing['requests'];
  const drawnAt = drawn ? ((await page.evaluate('window.__drawnAt ?? null')) as number | null) : null;
  const parsed = (await page.evaluate(`performance.getEntriesByType('navigation')[0].domInteractive`)) as number;
  return { bubble, drawn: drawnAt, parsed, requests };
}

export async function run() {
  if (widgetIsStale()) await buildWidget();
  const flowise = createRequire(import.meta.url).resolve('flowise-embed/dist/web.js');
  console.log('\nBytes (KB: raw / gzip / brotli)');
  const ours = [
    join(WIDGET_DIST, 'widget.js'),
    ...readdirSync(join(WIDGET_DIST, 'chunks'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => join(WIDGET_DIST, 'chunks', f)),
  ];
  let toChat = 0;
  for (const path of ours) {
    const s = sizes(path);
    const name = path.slice(WIDGET_DIST.length + 1);
    if (name === 'widget.js' || name.startsWith('chunks/app-')) toChat += s.brotli;
    console.log(`  ${name.padEnd(28)} ${kb(s.raw).padStart(7)} ${kb(s.gzip).padStart(7)} ${kb(s.brotli).padStart(7)}`);
  }
  const f = sizes(flowise);
  console.log(
    `  ${'flowise-embed dist/web.js'.padEnd(28)} ${kb(f.raw).padStart(7)} ${kb(f.gzip).padStart(7)} ${kb(f.brotli).padStart(7)}`,
  );
  console.log(`  Parley to chat (widget.js + app chunk), brotli: ${kb(toChat)} KB`);

  const app = await startLiveApp();
  const chatbotId = await chatbotWithKnowledge(app);
  const page = (body: string) =>
    `<!doctype html><html><head><meta charset="utf-8"><title>bench</title></head><body><h1>Shop</h1>${body}</body></html>`;
  const flowiseJs = readFileSync(flowise);
  // The snippet as the playground (demo/) gives it to a site owner: with the bubble's look.
  const bubble = encodeBubble((await app.call('GET', `/api/widget/${chatbotId}/config`)).body.data);
  if (!bubble) throw new Error("the bench chatbot's look cannot be carried by the snippet");
  const site = createServer((req, res) => {
    if (req.url === '/parley')
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(embedSnippet(app.url, chatbotId, bubble)));
    else if (req.url === '/flowise')
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          page(
            `<script type="module">import Chatbot from '/web.js'; Chatbot.init({ chatflowid: 'bench', apiHost: '${app.url}' });</script>`,
          ),
        );
    else if (req.url === '/web.js')
      res.writeHead(200, { 'content-type': 'text/javascript', 'content-encoding': 'identity' }).end(flowiseJs);
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
        const context = await browser.newContext({
          viewport: { width: 1280, height: 800 },
          colorScheme: 'light',
          reducedMotion: 'reduce',
        });
        const p = await context.newPage();
        timings[name].push(
          await timeTo(
            p,
            `${origin}/${name}`,
            name === 'parley'
              ? "document.querySelector('[data-parley]')?.shadowRoot?.querySelector('.bubble')?.getBoundingClientRect().width"
              : "document.querySelector('flowise-chatbot')?.shadowRoot?.querySelector('button')?.getBoundingClientRect().width",
            // Parley's bubble is in the document (drawn, no frame yet) as soon as its host is.
            name === 'parley' ? '[data-parley]' : undefined,
          ),
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
  // Where the milliseconds go: the median of each step's duration within a run (medians of
  // starts and ends taken separately would mix runs).
  const step = (name: string, marks: Array<(t: Timing) => number | undefined>) =>
    marks
      .slice(1)
      .map((mark, i) => median(timings[name].map((t) => (mark(t) ?? NaN) - (marks[i](t) ?? NaN))).toFixed(0));
  const req = (request: string, end: 0 | 1) => (t: Timing) => t.requests[request]?.[end];
  // The snippet carries the look: the bubble is drawn as widget.js runs; the settings confirm it after.
  const ps = step('parley', [
    () => 0,
    req('widget.js', 0),
    req('widget.js', 1),
    (t) => t.drawn ?? undefined,
    (t) => t.bubble,
    req('settings', 1),
  ]);
  const fs = step('flowise', [() => 0, req('web.js', 0), req('web.js', 1), (t) => t.bubble]);
  console.log(
    `\nTime from navigation (median of ${RUNS}, each a first visit in a fresh browser context, same local page)`,
  );
  console.log(
    `  bubble visible: Parley ${pb.toFixed(0)} ms, flowise-embed ${fb.toFixed(0)} ms, ratio ${(pb / fb).toFixed(2)} (goal <= 0.33)`,
  );
  console.log(
    `  page parsed (domInteractive, median): Parley's page ${median(timings.parley.map((t) => t.parsed)).toFixed(0)} ms, flowise-embed's ${median(timings.flowise.map((t) => t.parsed)).toFixed(0)} ms`,
  );
  console.log(
    `  Parley steps (median ms): page to widget.js request ${ps[0]}, widget.js ${ps[1]}, until drawn ${ps[2]} (script waits and runs), until the bubble's frame ${ps[3]}; the settings arrive ${ps[4]} ms after the frame`,
  );
  console.log(
    `  flowise-embed steps (median ms): page to web.js request ${fs[0]}, web.js ${fs[1]}, until the bubble's frame ${fs[2]} (parse and run)`,
  );
  console.log(`  Parley first answer rendered (navigation, click, type, answer): ${median(answer).toFixed(0)} ms`);
}
