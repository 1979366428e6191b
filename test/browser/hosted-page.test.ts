/**
 * The hosted page a mobile app loads in a webview (`GET /chat/{chatbotId}`), in chromium with a
 * phone's viewport against the real server: the layout follows the on-screen keyboard, and the
 * widget's events reach each native bridge. Chromium shows no keyboard and has no native side,
 * so both are stood in for through their web APIs: the keyboard as iOS reports it (the visual
 * viewport shrinks, the layout viewport stays) and as Android Chrome does (the viewport itself
 * shrinks); the bridges as the objects React Native, WKWebView and an Android JavaScript
 * interface put into the page, recording what the widget posts, and the app's commands posted
 * into the page the way each platform delivers them (docs/mobile-webviews.md).
 */
import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatbotWithKnowledge, startLiveApp, type LiveApp } from '../helpers/widget.js';
import { launch, screenshot, type Browser } from './helpers.js';

let app: LiveApp;
let chatbotId: string;
let phone: Browser;

beforeAll(async () => {
  app = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(app);
  phone = await launch({ viewport: { width: 390, height: 844 }, isMobile: true });
}, 120_000);
afterAll(async () => {
  await phone?.close();
  await app?.close();
});

const q = (page: Page, selector: string) => page.locator(`[data-parley] ${selector}`);
const bottomOf = async (page: Page, selector: string) => {
  const box = (await q(page, selector).boundingBox())!;
  return box.y + box.height;
};

async function ask(page: Page, text: string) {
  const input = q(page, 'textarea');
  await input.fill(text);
  await input.press('Enter');
  await q(page, '.msg-ai .md')
    .filter({ hasText: /30 days/ })
    .waitFor({ timeout: 20_000 });
}

describe('hosted page in a phone webview', () => {
  it(
    'the composer stays above the keyboard: iOS (visual viewport shrinks) and Android (viewport resizes)',
    { timeout: 60_000 },
    async () => {
      const page = await phone.context.newPage();
      await page.goto(`${app.url}/chat/${chatbotId}`);
      await q(page, 'textarea').waitFor();
      expect(await bottomOf(page, '.window')).toBe(844);
      await q(page, 'textarea').focus();

      // iOS: a 330 px keyboard; the layout viewport (and 100dvh) stay 844 px tall.
      const keyboard = (height: number | null) =>
        page.evaluate((h) => {
          const vv = window.visualViewport!;
          if (h === null) delete (vv as unknown as Record<string, unknown>).height;
          else Object.defineProperty(vv, 'height', { configurable: true, get: () => h });
          vv.dispatchEvent(new Event('resize'));
        }, height);
      await keyboard(514);
      expect(await page.evaluate(() => window.innerHeight)).toBe(844);
      expect(await bottomOf(page, '.window')).toBe(514);
      expect(await bottomOf(page, '.composer')).toBeLessThanOrEqual(514);
      expect(await bottomOf(page, '.composer')).toBeGreaterThan(400);
      await screenshot(page, 'phone-light-hosted-keyboard');
      await keyboard(null);
      expect(await bottomOf(page, '.window')).toBe(844);

      // Android Chrome: the viewport itself shrinks (interactive-widget=resizes-content).
      await page.setViewportSize({ width: 390, height: 480 });
      await page.waitForFunction(() => window.innerHeight === 480);
      expect(await bottomOf(page, '.window')).toBe(480);
      expect(await bottomOf(page, '.composer')).toBeLessThanOrEqual(480);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.close();
    },
  );

  it(
    '?locale=ar is Arabic, right to left; Hebrew too, in the dark theme on a desktop',
    { timeout: 60_000 },
    async () => {
      const page = await phone.context.newPage();
      await page.addInitScript('localStorage.clear()');
      await page.goto(`${app.url}/chat/${chatbotId}?locale=ar`);
      await q(page, 'textarea[placeholder="اطرح سؤالًا…"]').waitFor();
      expect(await q(page, '.window').getAttribute('dir')).toBe('rtl');
      expect(await q(page, '.window').getAttribute('lang')).toBe('ar');
      // Right to left: the send button sits at the left of the input.
      const input = (await q(page, 'textarea').boundingBox())!;
      const send = (await q(page, 'button.send').boundingBox())!;
      expect(send.x).toBeLessThan(input.x);
      await ask(page, 'Can I return items?');
      await screenshot(page, 'phone-light-rtl-arabic');
      await page.close();

      const desktop = await launch({ colorScheme: 'dark' });
      try {
        const p = await desktop.context.newPage();
        await p.goto(`${app.url}/chat/${chatbotId}?locale=he&theme=dark`);
        await q(p, 'textarea[placeholder="שאלו שאלה…"]').waitFor();
        expect(await q(p, '.window').getAttribute('dir')).toBe('rtl');
        await ask(p, 'Can I return items?');
        await screenshot(p, 'desktop-dark-rtl-hebrew');
      } finally {
        await desktop.close();
      }
    },
  );

  it("an unknown chatbot id: a 404 page saying so in the visitor's language", async () => {
    const page = await phone.context.newPage();
    const res = await page.goto(`${app.url}/chat/no_such_bot`);
    expect(res!.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Chat not found');
    await screenshot(page, 'phone-light-hosted-not-found');
    await page.goto(`${app.url}/chat/no_such_bot?locale=he`);
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await screenshot(page, 'phone-light-rtl-hosted-not-found');
    await page.close();
  });

  const BRIDGES = {
    'React Native': `window.ReactNativeWebView = { postMessage: (m) => window.__native.push(JSON.parse(m)) };`,
    'iOS WKWebView': `window.webkit = { messageHandlers: { parley: { postMessage: (m) => window.__native.push(JSON.parse(JSON.stringify(m))) } } };`,
    'Android interface': `window.ParleyAndroid = { postMessage: (m) => window.__native.push(typeof m === 'string' ? JSON.parse(m) : { notAString: m }) };`,
  };

  for (const [bridge, install] of Object.entries(BRIDGES)) {
    it(`${bridge}: ready, open and each message posted as { source, event, detail }`, { timeout: 60_000 }, async () => {
      const page = await phone.context.newPage();
      // A new visitor each time (the pages share the browser's storage).
      await page.addInitScript(`localStorage.clear(); window.__native = []; ${install}`);
      await page.goto(`${app.url}/chat/${chatbotId}`);
      await ask(page, 'Can I return items?');
      const posted = await page.evaluate(
        () => (window as unknown as { __native: Array<{ source: string; event: string; detail: unknown }> }).__native,
      );
      expect(posted.every((m) => m.source === 'parley')).toBe(true);
      const events = posted.map((m) => m.event);
      expect(events.slice(0, 2)).toEqual(['ready', 'open']);
      const messages = posted
        .filter((m) => m.event === 'message')
        .map((m) => m.detail as { author: string; text: string });
      expect(messages.map((m) => m.author)).toEqual(['visitor', 'ai']);
      expect(messages[0].text).toBe('Can I return items?');
      expect(messages[1].text).toMatch(/30 days/);
      await page.close();
    });
  }

  it(
    'the app drives the page: close, open, identify, sendMessage and setLocale posted in; events posted out; a framing site is ignored',
    { timeout: 60_000 },
    async () => {
      const made = await app.call('POST', `/api/v2/chatbots/${chatbotId}/identity-secret`, app.ownerToken);
      expect(made.status).toBeLessThan(300);
      const signature = createHmac('sha256', made.body.data.identitySecret.secret as string)
        .update('ada@example.com')
        .digest('hex');
      const page = await phone.context.newPage();
      await page.addInitScript(`localStorage.clear(); window.__native = []; ${BRIDGES['React Native']}`);
      await page.goto(`${app.url}/chat/${chatbotId}`);
      type Posted = { source: string; event: string; detail: unknown };
      const posted = () => page.evaluate(() => (window as unknown as { __native: Posted[] }).__native);
      const events = async () => (await posted()).map((m) => m.event);
      const waitFor = (event: string, count = 1) =>
        page.waitForFunction(
          ([e, n]) => (window as unknown as { __native: Posted[] }).__native.filter((m) => m.event === e).length >= n,
          [event, count] as const,
        );
      // How each platform delivers: react-native-webview's postMessage dispatches a string on
      // `document` (Android) or `window` (iOS); WKWebView's evaluateJavaScript and Android's
      // evaluateJavascript run window.postMessage with the object.
      const send = (via: 'rn-android' | 'rn-ios' | 'evaluate', command: unknown[]) =>
        page.evaluate(
          ([v, c]) => {
            const message = { source: 'parley', command: c };
            if (v === 'rn-android')
              document.dispatchEvent(new MessageEvent('message', { data: JSON.stringify(message) }));
            else if (v === 'rn-ios')
              window.dispatchEvent(new MessageEvent('message', { data: JSON.stringify(message) }));
            else window.postMessage(message, '*');
          },
          [via, command] as const,
        );

      await waitFor('ready');
      await waitFor('open');
      await send('rn-android', ['close']);
      await waitFor('close');
      await send('rn-ios', ['open']);
      await waitFor('open', 2);
      expect((await events()).filter((e) => e === 'open' || e === 'close')).toEqual(['open', 'close', 'open']);

      await send('evaluate', ['sendMessage', 'Can I return items?']);
      await q(page, '.msg-ai .md')
        .filter({ hasText: /30 days/ })
        .waitFor({ timeout: 20_000 });
      await waitFor('message', 2);
      const messages = (await posted()).filter((m) => m.event === 'message').map((m) => m.detail as { author: string });
      expect(messages.map((m) => m.author)).toEqual(['visitor', 'ai']);

      await send('rn-android', ['identify', { email: 'ada@example.com', signature, name: 'Ada' }]);
      await q(page, '[aria-label="Account"]').click();
      await page.locator('[data-parley] .verified', { hasText: 'ada@example.com' }).waitFor();
      await q(page, '[aria-label="Back"]').click();

      // A site framing the page posts with its own window as the source: nothing happens.
      await page.evaluate(() => document.body.append(document.createElement('iframe')));
      const frame = page.frames().find((f) => f !== page.mainFrame())!;
      await frame.evaluate(() => parent.postMessage({ source: 'parley', command: ['close'] }, '*'));
      // Unknown commands and malformed messages are ignored too.
      await send('evaluate', ['destroy']);
      await page.evaluate(() => window.postMessage('not json', '*'));
      await send('rn-ios', ['setLocale', 'de']);
      await q(page, 'textarea[placeholder="Stellen Sie eine Frage…"]').waitFor();
      expect((await events()).filter((e) => e === 'close')).toHaveLength(1);
      expect(await q(page, '.window').count()).toBe(1);
      await screenshot(page, 'phone-light-hosted-native-commands');
      await page.close();
    },
  );
});
