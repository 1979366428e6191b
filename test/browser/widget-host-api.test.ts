/**
 * The host-page API as a careless integrator uses it, in chromium against the real server: calls
 * the server would refuse as they are (a regional locale, a long page context, a badly signed
 * identity), identify and setContext on every render, several commands in one push, a close
 * before the chat has loaded, a reset while a message waits offline, destroy and the snippet
 * again, two copies of the snippet. (Hostile pages: widget-hostile-page.test.ts; the two files
 * keep each app under the per-IP session limit, every test visitor coming from 127.0.0.1.)
 */
import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatbotWithKnowledge, startLiveApp, type LiveApp } from '../helpers/widget.js';
import { askWidget, freshPage, hostSite, inWidget, launch, type Browser, type HostSite } from './helpers.js';

let app: LiveApp;
let chatbotId: string;
let site: HostSite;
let browser: Browser;

const BAD_IDENTITY = `{ email: 'ada@example.com', signature: '${'ab'.repeat(32)}' }`;

beforeAll(async () => {
  app = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(app);
  site = await hostSite(app.url, chatbotId, {
    plain: {},
    regional: { before: `window.parley = window.parley || []; parley.push(['setLocale', 'de-CH']);` },
    context: {
      before: `window.parley = window.parley || []; parley.push(['setContext', { page: 'https://shop.example/garden?' + 'utm_source=newsletter&'.repeat(40) }]);`,
    },
    identify: { before: `window.parley = window.parley || []; parley.push(['identify', ${BAD_IDENTITY}]);` },
    contact: {
      body: '<p><button id="contact">Contact us</button></p>',
      before: `window.parley = window.parley || []; document.addEventListener('click', (e) => e.target.id === 'contact' && window.parley.push(['open']));`,
    },
    named: { body: '<section id="parley"><h2>Parley with our team</h2></section>' },
    twice: { body: `<script src="${app.url}/widget.js" data-chatbot-id="${chatbotId}" async></script>` },
  });
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await app?.close();
});

const q = inWidget;
const fresh = (name: string) => freshPage(browser, site, name);
const ask = askWidget;
const push = (page: Page, ...commands: unknown[][]) =>
  page.evaluate(
    (c) => (window as unknown as { parley: { push(...c: unknown[][]): void } }).parley.push(...c),
    commands,
  );

describe('the host-page API used carelessly', () => {
  it(
    'a page element with id="parley" (which the browser also names window.parley) does not stop the widget, and the API replaces the name',
    { timeout: 60_000 },
    async () => {
      const page = await fresh('named');
      try {
        await q(page, '.bubble').waitFor();
        expect(await page.evaluate(() => (window as unknown as { parley: { loaded?: boolean } }).parley.loaded)).toBe(
          true,
        );
        await push(page, ['open']);
        await q(page, 'textarea').waitFor();
      } finally {
        await page.close();
      }
    },
  );

  it(
    'a ready handler added after the widget was ready is called at once, once; a handler that throws stops neither the widget nor the others',
    { timeout: 60_000 },
    async () => {
      const page = await fresh('plain');
      try {
        await q(page, '.bubble').waitFor();
        const calls = await page.evaluate(() => {
          const w = window as unknown as { parley: { push(...c: unknown[][]): void }; readyCalls: number };
          w.readyCalls = 0;
          w.parley.push(
            [
              'on',
              'ready',
              () => {
                throw new Error("the page's bug");
              },
            ],
            ['on', 'ready', () => w.readyCalls++],
          );
          return w.readyCalls;
        });
        expect(calls).toBe(1);
        await q(page, '.bubble').click();
        await ask(page, 'Can I return items?', /30 days/);
      } finally {
        await page.close();
      }
    },
  );

  for (const [name, what] of [
    ['regional', "setLocale('de-CH')"],
    ['context', 'a page context with a long URL'],
    ['identify', 'an identity with a bad signature'],
  ]) {
    it(`${what} from the host page does not cut the visitor off`, { timeout: 60_000 }, async () => {
      const page = await fresh(name);
      try {
        await q(page, '.bubble').click();
        await ask(page, 'Can I return items?', /30 days/);
        expect(await q(page, '.banner').count()).toBe(0);
      } finally {
        await page.close();
      }
    });
  }

  it('a badly signed identity for a returning visitor keeps their conversation', { timeout: 60_000 }, async () => {
    const page = await fresh('plain');
    await q(page, '.bubble').click();
    await ask(page, 'Can I return items?', /30 days/);
    await push(page, ['identify', { email: 'ada@example.com', signature: 'ab'.repeat(32) }]);
    await ask(page, 'Is shipping back free?', /free for members/, 1);
    await page.reload();
    await q(page, '.bubble').click();
    await q(page, '.msg-visitor', { hasText: 'Can I return items?' }).waitFor();
    await page.close();
  });

  it('several commands in one push all run, as they do before the script loads', async () => {
    const page = await fresh('plain');
    await q(page, '.bubble').waitFor();
    await page.evaluate(() => ((window as unknown as { __opened: number }).__opened = 0));
    await page.evaluate(() =>
      (window as unknown as { parley: { push(...c: unknown[]): void } }).parley.push(
        ['on', 'open', () => (window as unknown as { __opened: number }).__opened++],
        ['open'],
      ),
    );
    await q(page, '.window').waitFor();
    expect(await page.evaluate(() => (window as unknown as { __opened: number }).__opened)).toBe(1);
    await page.close();
  });

  it('a close right after an open, while the chat is still loading, leaves the window closed', async () => {
    const page = await fresh('plain');
    await q(page, '.bubble').waitFor();
    await page.evaluate(() => {
      const w = window as unknown as { __events: string[]; parley: { push(c: unknown[]): void } };
      w.__events = [];
      for (const event of ['open', 'close']) w.parley.push(['on', event, () => w.__events.push(event)]);
      w.parley.push(['open']);
      w.parley.push(['close']);
    });
    await page.waitForFunction(() => (window as unknown as { __events: string[] }).__events.length === 2);
    expect(await page.evaluate(() => (window as unknown as { __events: string[] }).__events)).toEqual([
      'open',
      'close',
    ]);
    expect(await q(page, '.window').count()).toBe(0);
    await page.close();
  });

  it('reset while a message waits offline: the next visitor never sends it', { timeout: 60_000 }, async () => {
    const page = await browser.context.newPage();
    let offline = true;
    await page.routeWebSocket(/\/api\/widget\/ws/, (ws) => {
      if (offline) return void ws.close({ code: 1006 });
      const server = ws.connectToServer();
      ws.onMessage((m) => server.send(m));
      server.onMessage((m) => ws.send(m));
    });
    await page.route(/\/api\/widget\/(sse|frames)$/, (route) => (offline ? route.abort() : route.continue()));
    await page.goto(`${site.origin}/page/plain`);
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await q(page, '.bubble').click();
    const input = q(page, 'textarea');
    await input.fill('My card number is 4242 4242 4242 4242');
    await input.press('Enter');
    await q(page, '.banner', { hasText: 'You are offline' }).waitFor();
    await push(page, ['reset']);
    offline = false;
    await ask(page, 'Can I return items?', /30 days/);
    await page.waitForTimeout(1000);
    const text = await q(page, '[role="log"]').textContent();
    expect(text).not.toContain('4242');
    const list = await app.call('GET', `/api/v2/chatbots/${chatbotId}/conversations`, app.ownerToken);
    for (const c of list.body.data.conversations as Array<{ threadId: string }>) {
      const messages = await app.call(
        'GET',
        `/api/v2/chatbots/${chatbotId}/conversations/${c.threadId}/messages`,
        app.ownerToken,
      );
      expect(JSON.stringify(messages.body)).not.toContain('4242');
    }
    await page.close();
  });

  it('destroy, then the snippet added again: one bubble, and the chat works', { timeout: 60_000 }, async () => {
    const page = await fresh('plain');
    await q(page, '.bubble').waitFor();
    await push(page, ['destroy']);
    expect(await page.locator('[data-parley]').count()).toBe(0);
    await page.evaluate(
      ([parley, id]) => {
        const script = document.createElement('script');
        script.src = `${parley}/widget.js`;
        script.dataset.chatbotId = id;
        document.body.append(script);
      },
      [app.url, chatbotId],
    );
    await q(page, '.bubble').click();
    await ask(page, 'Can I return items?', /30 days/);
    expect(await page.locator('[data-parley]').count()).toBe(1);
    await page.close();
  });

  it(
    'two copies of the snippet on one page: one bubble, one window, each message once',
    { timeout: 60_000 },
    async () => {
      const page = await fresh('twice');
      await q(page, '.bubble').click();
      await ask(page, 'Can I return items?', /30 days/);
      expect(await page.locator('[data-parley]').count()).toBe(1);
      expect(await q(page, '.msg-visitor').count()).toBe(1);
      await page.close();
    },
  );

  it(
    'setContext and identify on every render of a single-page app (the same values, or a new page each time) make one session renewal, not one per call',
    { timeout: 60_000 },
    async () => {
      const page = await fresh('plain');
      const sessions: number[] = [];
      page.on('response', (r) => r.url().endsWith('/session') && sessions.push(r.status()));
      await q(page, '.bubble').click();
      await ask(page, 'Can I return items?', /30 days/);
      await page.evaluate((signature) => {
        const parley = (window as unknown as { parley: { push(c: unknown[]): void } }).parley;
        for (let i = 0; i < 30; i++) {
          parley.push(['setContext', { plan: 'pro' }]);
          parley.push(['identify', { email: 'ada@example.com', signature }]);
          parley.push(['setContext', { plan: 'pro', page: `/garden/${i}` }]);
        }
      }, 'ab'.repeat(32));
      await ask(page, 'Is shipping back free?', /free for members/, 1);
      expect(await q(page, '.banner').count()).toBe(0);
      // A burst is one renewal (the refused identity once more at most), not a request per call:
      // those would use up the per-IP session limit other visitors behind the same address share.
      expect(sessions).not.toContain(429);
      expect(sessions.length).toBeLessThanOrEqual(5);
      await page.close();
    },
  );
  it(
    'a correctly signed identify once the visitor is chatting: verified as that address, the conversation kept',
    { timeout: 60_000 },
    async () => {
      const made = await app.call('POST', `/api/v2/chatbots/${chatbotId}/identity-secret`, app.ownerToken);
      expect(made.status).toBeLessThan(300);
      const signature = createHmac('sha256', made.body.data.identitySecret.secret as string)
        .update('ada@example.com')
        .digest('hex');
      const page = await fresh('plain');
      await q(page, '.bubble').click();
      await ask(page, 'Can I return items?', /30 days/);
      await push(page, ['identify', { email: 'ada@example.com', signature, name: 'Ada' }]);
      await q(page, '[aria-label="Account"]').click();
      await q(page, '.verified', { hasText: 'ada@example.com' }).waitFor();
      await q(page, '[aria-label="Back"]').click();
      await q(page, '.msg-visitor', { hasText: 'Can I return items?' }).waitFor();
      await ask(page, 'Is shipping back free?', /free for members/, 1);
      await page.close();
    },
  );
  it("opened from the page's own button, the window gives focus back to that button when closed", async () => {
    const page = await fresh('contact');
    await q(page, '.bubble').waitFor();
    await page.locator('#contact').click();
    await q(page, '.window').waitFor();
    await page.keyboard.press('Escape');
    await q(page, '.window').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('contact');
    await page.close();
  });
});
