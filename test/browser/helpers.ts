/**
 * Browser tests: Debian's chromium driven by playwright-core against the real server (listening
 * on 127.0.0.1) and customer pages served from another origin (localhost, another port), with
 * the CSP each test asks for. Screenshots go to test-artifacts/widget/ (git-ignored).
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser as PlaywrightBrowser, type BrowserContext, type Page } from 'playwright-core';

export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'widget');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

// One chromium per fork, shared by the files it runs (vitest keeps this module between them):
// starting chromium costs more than a whole browser test; each launch() is a fresh context.
let chromiumOfFork: Promise<PlaywrightBrowser> | null = null;
function sharedChromium(): Promise<PlaywrightBrowser> {
  if (!chromiumOfFork) {
    chromiumOfFork = chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
    chromiumOfFork.then(
      (b) => b.on('disconnected', () => (chromiumOfFork = null)),
      () => (chromiumOfFork = null),
    );
  }
  return chromiumOfFork;
}

/** A new browser context (no cookies, storage or cache of any other) with these settings. */
export async function launch(
  options: {
    colorScheme?: 'light' | 'dark';
    viewport?: { width: number; height: number };
    isMobile?: boolean;
  } = {},
): Promise<Browser> {
  const context = await (
    await sharedChromium()
  ).newContext({
    colorScheme: options.colorScheme ?? 'light',
    viewport: options.viewport ?? { width: 1280, height: 800 },
    isMobile: options.isMobile,
    hasTouch: options.isMobile,
    reducedMotion: 'reduce',
  });
  return {
    context,
    close: () => context.close(),
  };
}

export interface HostSite {
  /** http://localhost:PORT: another origin than the Parley server (127.0.0.1). */
  origin: string;
  close(): Promise<void>;
}

export interface HostPage {
  /** Extra HTML in <body> before the script tag. */
  body?: string;
  /** Attributes of the widget script tag besides src and data-chatbot-id. */
  attrs?: Record<string, string>;
  /** A Content-Security-Policy for the page (`{nonce}` is replaced by the page's nonce). */
  csp?: string;
  /** Inline script before the widget (needs the nonce under a CSP). */
  before?: string;
}

/** Serves customer pages: `/page/<name>` as registered with `page()`. */
export async function hostSite(parley: string, chatbotId: string, pages: Record<string, HostPage>): Promise<HostSite> {
  const server: Server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? '').replace(/^\/page\//, '').split('?')[0]);
    const page = pages[name];
    if (!page) {
      res.writeHead(404).end('not found');
      return;
    }
    const nonce = 'n0nce' + Math.random().toString(36).slice(2);
    const attrs = Object.entries(page.attrs ?? {})
      .map(([k, v]) => ` ${k}="${v}"`)
      .join('');
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme shop</title></head>
<body><main><h1>Acme shop</h1><p>Everything for your garden, delivered in two days.</p></main>${page.body ?? ''}
${page.before ? `<script nonce="${nonce}">${page.before}</script>` : ''}
<script src="${parley}/widget.js" data-chatbot-id="${chatbotId}"${attrs} nonce="${nonce}" async></script></body></html>`;
    const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
    if (page.csp) headers['content-security-policy'] = page.csp.replaceAll('{nonce}', nonce);
    res.writeHead(200, headers).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://localhost:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // The browser keeps connections alive; close() alone would wait for them.
        server.closeAllConnections();
      }),
  };
}

export async function screenshot(page: Page, name: string) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

/** The widget's shadow root content, through playwright's shadow-piercing CSS locators. */
export const widget = (page: Page) => page.locator('[data-parley]');

/** An element inside the widget. */
export const inWidget = (page: Page, selector: string, options?: { hasText?: string | RegExp }) =>
  page.locator(`[data-parley] ${selector}`, options);

/** A page of `site` as a first visit: nothing of an earlier test's visitor left in its storage. */
export async function freshPage(browser: Browser, site: HostSite, name: string): Promise<Page> {
  const page = await browser.context.newPage();
  await page.goto(`${site.origin}/page/${name}`);
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  return page;
}

/** Sends `text` from the open window and waits for the `nth` answer (0: the first after the welcome) to match. */
export async function askWidget(page: Page, text: string, answer: RegExp, nth = 0) {
  const input = inWidget(page, 'textarea');
  await input.fill(text);
  await input.press('Enter');
  await inWidget(page, '.msg-ai')
    .nth(nth + 1)
    .locator('.md', { hasText: answer })
    .waitFor({ timeout: 20_000 });
}
