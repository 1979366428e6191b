/**
 * The @parley/widget examples as a reader pastes them, in chromium against the live app: the
 * React component of the README's "Widget for apps" and the Vue component of
 * packages/widget/README.md, taken from the Markdown under their headings, with only the server
 * address and chatbot id filled in. Each goes into a tiny router app, bundled with esbuild (React's
 * automatic JSX runtime; the Vue single-file component compiled by Vue's own compiler-sfc), and
 * served from another origin with a history fallback, as a single-page app is deployed.
 */
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatbotWithKnowledge, startLiveApp, type LiveApp } from '../helpers/widget.js';
import { launch, screenshot, type Browser } from '../browser/helpers.js';
import { blockUnder, ROOT, withPlaceholders } from './blocks.js';

/** Compiles `.vue` files the way @vitejs/plugin-vue does: `<script setup>` with its template inlined. */
const vueSfc: Plugin = {
  name: 'vue-sfc',
  setup(b) {
    b.onLoad({ filter: /\.vue$/ }, async (args) => {
      const { parse, compileScript } = await import('vue/compiler-sfc');
      const { descriptor, errors } = parse(readFileSync(args.path, 'utf8'), { filename: args.path });
      if (errors.length) throw errors[0];
      const script = compileScript(descriptor, { id: 'support-chat', inlineTemplate: true });
      return { contents: script.content, loader: 'ts' };
    });
  },
};

/** The app's files (the example among them) bundled into one ES module. */
async function bundle(files: Record<string, string>, entry: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-spa-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const out = await build({
      entryPoints: [join(dir, entry)],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      jsx: 'automatic',
      nodePaths: [join(ROOT, 'node_modules')],
      define: {
        'process.env.NODE_ENV': '"development"',
        __VUE_OPTIONS_API__: 'true',
        __VUE_PROD_DEVTOOLS__: 'false',
        __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
      },
      plugins: [vueSfc],
      logLevel: 'silent',
    });
    return out.outputFiles[0].text;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Three routes; the help button is in the layout of two and not on the checkout page, so route
// changes unmount and mount the example's component again. `window.navigate` is a router link;
// `window.user` is the signed-in user, as the app's server handed it over.
const reactApp = (component: string) => `
import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { ${component} } from './${component}';

const views = { '/': 'Home', '/pricing': 'Pricing', '/checkout': 'Checkout' };
function App() {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const onPop = () => setPath(location.pathname);
    addEventListener('popstate', onPop);
    window.navigate = (to) => { history.pushState({}, '', to); setPath(to); };
    return () => removeEventListener('popstate', onPop);
  }, []);
  return (
    <>
      <nav>{path !== '/checkout' && <${component} key={path} user={window.user} />}</nav>
      <main>{views[path]}</main>
    </>
  );
}
createRoot(document.getElementById('app')).render(<StrictMode><App /></StrictMode>);
`;

const vueApp = `
import { createApp, h } from 'vue';
import { createRouter, createWebHistory, RouterView, useRoute } from 'vue-router';
import SupportChat from './SupportChat.vue';

const view = (text) => ({ render: () => h('main', text) });
const router = createRouter({
  history: createWebHistory(),
  routes: [
    { path: '/', component: view('Home') },
    { path: '/pricing', component: view('Pricing') },
    { path: '/checkout', component: view('Checkout') },
  ],
});
const Layout = {
  setup() {
    const route = useRoute();
    return () => [h('nav', route.path !== '/checkout' ? [h(SupportChat)] : []), h(RouterView)];
  },
};
window.navigate = (to) => router.push(to);
createApp(Layout).use(router).mount('#app');
`;

let app: LiveApp;
let chatbotId: string;
let browser: Browser;
const apps: Record<string, string> = {};
const user = { email: 'ada@example.com', signature: '' };
const sites: Record<string, { server: Server; origin: string }> = {};

beforeAll(async () => {
  const built = spawnSync('npm', ['run', '--silent', 'build:widget-package'], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`build:widget-package failed:\n${built.stdout}\n${built.stderr}`);
  app = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(app);
  const made = await app.call('POST', `/api/v2/chatbots/${chatbotId}/identity-secret`, app.ownerToken);
  expect(made.status).toBe(201);
  const signature = createHmac('sha256', made.body.data.identitySecret.secret as string)
    .update(user.email)
    .digest('hex');
  user.signature = signature;
  const fill = (code: string) => withPlaceholders(code, app.url, chatbotId);
  apps.react = await bundle(
    {
      'HelpButton.tsx': fill(blockUnder('README.md', '### Widget for apps', 'tsx')),
      'main.tsx': reactApp('HelpButton'),
    },
    'main.tsx',
  );
  apps['react-identify'] = await bundle(
    {
      'SupportChat.tsx': fill(blockUnder('packages/widget/README.md', '## React', 'tsx')),
      'main.tsx': reactApp('SupportChat'),
    },
    'main.tsx',
  );
  apps.vue = await bundle(
    { 'SupportChat.vue': fill(blockUnder('packages/widget/README.md', '## Vue', 'vue')), 'main.ts': vueApp },
    'main.ts',
  );
  // Each app on its own origin; every path but its bundle is one of its routes.
  for (const [name, code] of Object.entries(apps)) {
    const server = createServer((req, res) => {
      if ((req.url ?? '/').split('?')[0] === '/app.js')
        return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(code);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme app</title></head><body><div id="app"></div><script type="module" src="/app.js"></script></body></html>`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    sites[name] = { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
  }
  browser = await launch({ viewport: { width: 1280, height: 800 } });
}, 300_000);
afterAll(async () => {
  await browser?.close();
  for (const { server } of Object.values(sites)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await app?.close();
});

const counts = (page: Page) =>
  page.evaluate(() => ({
    widgets: document.querySelectorAll('[data-parley]').length,
    scripts: document.querySelectorAll('script[src$="/widget.js"]').length,
  }));

/** This page's conversation: the one whose thread id the widget keeps in localStorage. */
async function conversationOf(page: Page) {
  const list = await app.call('GET', `/api/v2/chatbots/${chatbotId}/conversations`, app.ownerToken);
  const stored = await page.evaluate(() => Object.values(localStorage).join(' '));
  const mine = list.body.data.conversations.filter((c: { threadId: string }) => stored.includes(c.threadId));
  expect(mine).toHaveLength(1);
  return mine[0] as { threadId: string; context?: Record<string, unknown> };
}

async function teamReply(page: Page, message: string) {
  const { threadId } = await conversationOf(page);
  const reply = await app.call(
    'POST',
    `/api/v2/chatbots/${chatbotId}/conversations/${threadId}/replies`,
    app.ownerToken,
    { message },
  );
  expect(reply.status).toBe(201);
}

/** What a visitor does in the open window. */
async function ask(page: Page, text: string) {
  const input = page.locator('[data-parley] textarea');
  await input.fill(text);
  await input.press('Enter');
  await page
    .locator('[data-parley] .msg-ai .md')
    .filter({ hasText: /30 days/ })
    .waitFor({ timeout: 30_000 });
}

async function go(page: Page, path: string, view: string) {
  await page.evaluate((p) => (window as unknown as { navigate(p: string): void }).navigate(p), path);
  await page.locator('main', { hasText: view }).waitFor();
}

const EXAMPLES = {
  react: 'the React example of README.md',
  'react-identify': 'the React example of packages/widget/README.md, with a signed-in user',
  vue: 'the Vue example of packages/widget/README.md',
} as const;

for (const [framework, title] of Object.entries(EXAMPLES)) {
  describe(title, () => {
    it(
      'its button opens the widget, the visitor gets an answer, the count of unread answers shows on the button, route changes keep one widget',
      { timeout: 120_000 },
      async () => {
        const page = await browser.context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
        if (framework === 'react-identify') await page.addInitScript(`window.user = ${JSON.stringify(user)};`);
        await page.goto(`${sites[framework].origin}/`);
        const button = page.locator('nav button');
        await expect.poll(() => button.textContent(), { timeout: 30_000 }).toMatch(/^Help\s*$/);
        await page.locator('[data-parley] .bubble').waitFor({ timeout: 30_000 });
        expect(await counts(page)).toEqual({ widgets: 1, scripts: 1 });

        await button.click();
        await ask(page, 'Can I return items?');
        await screenshot(page, `desktop-light-${framework}-example`);
        if (framework === 'react-identify') {
          // identify(user) ran in its effect: the visitor is the signed-in user.
          await page.locator('[data-parley] [aria-label="Account"]').click();
          await page.locator('[data-parley] .verified', { hasText: user.email }).waitFor({ timeout: 20_000 });
          await page.locator('[data-parley] [aria-label="Back"]').click();
        }

        // Closed by the visitor: a team reply arriving now is unread, and the button says so.
        await page.locator('[data-parley] [aria-label="Close chat"]').click();
        await page.locator('[data-parley] .window').waitFor({ state: 'detached' });
        await teamReply(page, 'A person here: anything else?');
        await expect.poll(() => button.textContent(), { timeout: 20_000 }).toMatch(/^Help\s*\(1\)$/);
        await screenshot(page, `desktop-light-${framework}-example-unread`);
        // Opening reads it.
        await button.click();
        await page.locator('[data-parley] .msg-agent', { hasText: 'anything else?' }).waitFor();
        await expect.poll(() => button.textContent()).toMatch(/^Help\s*$/);

        // Route changes: the button goes (checkout) and comes back; the page keeps one widget.
        for (const [path, view] of [
          ['/pricing', 'Pricing'],
          ['/checkout', 'Checkout'],
          ['/', 'Home'],
          ['/pricing', 'Pricing'],
        ]) {
          await go(page, path, view);
          expect(await button.count()).toBe(path === '/checkout' ? 0 : 1);
          expect(await counts(page)).toEqual({ widgets: 1, scripts: 1 });
        }
        await page.goBack();
        await page.locator('main', { hasText: 'Home' }).waitFor();
        expect(await counts(page)).toEqual({ widgets: 1, scripts: 1 });

        // The button mounted anew still hears the widget: the next unread reply shows on it.
        await page.locator('[data-parley] [aria-label="Close chat"]').click();
        await page.locator('[data-parley] .window').waitFor({ state: 'detached' });
        await teamReply(page, 'And one more thing.');
        await expect.poll(() => button.textContent(), { timeout: 20_000 }).toMatch(/^Help\s*\(1\)$/);
        // A button mounted while the answer waits unread shows the count at once (as the bubble does).
        await go(page, '/checkout', 'Checkout');
        await go(page, '/', 'Home');
        await expect.poll(() => button.textContent()).toMatch(/^Help\s*\(1\)$/);
        // Its one button opens the one widget.
        await button.click();
        await page.locator('[data-parley] .msg-agent', { hasText: 'one more thing' }).waitFor();
        expect(await page.locator('[data-parley] .window').count()).toBe(1);

        if (framework === 'vue') {
          // The Vue example sends the route as context: the visitor's next message carries it.
          await page.locator('[data-parley] [aria-label="Close chat"]').click();
          await go(page, '/pricing', 'Pricing');
          await button.click();
          // (The team has taken the conversation over, so no AI answer follows.)
          await page.locator('[data-parley] textarea').fill('Is there a student discount?');
          await page.locator('[data-parley] textarea').press('Enter');
          await expect
            .poll(async () => JSON.stringify(await conversationOf(page)), { timeout: 20_000 })
            .toContain('"context":{"page":"/pricing"}');
        }
        expect(errors).toEqual([]);
        await page.close();
      },
    );
  });
}
