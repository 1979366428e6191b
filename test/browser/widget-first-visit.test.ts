/**
 * A visitor's first page view: widget.js and the chatbot's settings come over one connection to
 * the Parley server (the settings request is credentialed like the script tag's own, so the
 * browser reuses that connection instead of a second TCP and TLS handshake before the bubble),
 * and behind a proxy that drops the CORS credentials header the bubble still shows.
 */
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chatbotWithKnowledge, startLiveApp, type LiveApp } from '../helpers/widget.js';
import { hostSite, launch, type Browser, type HostSite } from './helpers.js';

let app: LiveApp;
let chatbotId: string;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  app = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(app);
}, 60_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await app?.close();
});

/** A fresh browser (no cache, no pooled connection) on a customer page served from another origin. */
async function firstVisit(parley: string): Promise<{ site: HostSite; browser: Browser }> {
  const site = await hostSite(parley, chatbotId, { plain: {} });
  const browser = await launch();
  closers.push(
    () => site.close(),
    () => browser.close(),
  );
  return { site, browser };
}

it('widget.js and the settings come over one connection: no second handshake before the bubble', async () => {
  let connections = 0;
  const count = () => connections++;
  app.app.server.on('connection', count);
  try {
    const { site, browser } = await firstVisit(app.url);
    const page = await browser.context.newPage();
    await page.goto(`${site.origin}/page/plain`);
    await page.locator('[data-parley] .bubble').waitFor();
    const requests = (await page.evaluate(`performance.getEntriesByType('resource').map((e) => e.name)`)) as string[];
    expect(requests.filter((url) => url.startsWith(app.url)).map((url) => new URL(url).pathname)).toEqual([
      '/widget.js',
      `/api/widget/${chatbotId}/config`,
    ]);
    expect(connections).toBe(1);
  } finally {
    app.app.server.off('connection', count);
  }
});

it('behind a proxy that drops Access-Control-Allow-Credentials, the settings are asked for again without credentials and the bubble shows', async () => {
  const target = new URL(app.url);
  const asked: string[] = [];
  const proxy: Server = createServer((req, res) => {
    if (req.url?.endsWith('/config')) asked.push(String(req.headers['sec-fetch-mode']));
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        const headers = { ...answer.headers };
        delete headers['access-control-allow-credentials'];
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => (proxy.closeAllConnections(), proxy.close(() => resolve()))));
  const { site, browser } = await firstVisit(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
  const page = await browser.context.newPage();
  await page.goto(`${site.origin}/page/plain`);
  await page.locator('[data-parley] .bubble').waitFor();
  expect(asked).toEqual(['cors', 'cors']);
});
