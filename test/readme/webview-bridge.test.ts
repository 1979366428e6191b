/**
 * The React Native examples (README "Mobile webviews", docs/mobile-webviews.md) cannot run here:
 * there is no native runtime. Their bridge logic can: the `send` and `onMessage` of each block,
 * taken from the Markdown as written, run in chromium against the hosted page's real traffic,
 * with `window.ReactNativeWebView` and the WebView's `postMessage` as react-native-webview
 * provides them (a string each way; into the page on `document` on Android, `window` on iOS).
 */
import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatbotWithKnowledge, startLiveApp, type LiveApp } from '../helpers/widget.js';
import { launch, screenshot, type Browser } from '../browser/helpers.js';
import { blockUnder } from './blocks.js';

/** The text of the arrow function `(e) => { … }` that follows `after` in `code`. */
function handlerAfter(code: string, after: string): string {
  const start = code.indexOf('(e) => {', code.indexOf(after));
  if (code.indexOf(after) < 0 || start < 0) throw new Error(`no "(e) => {" after "${after}" in:\n${code}`);
  let depth = 0;
  for (let i = code.indexOf('{', start); i < code.length; i++) {
    if (code[i] === '{') depth++;
    if (code[i] === '}' && --depth === 0) return code.slice(start, i + 1);
  }
  throw new Error(`unbalanced handler in:\n${code}`);
}

function bridgeOf(code: string) {
  const send = /^\s*(const send = \(command\) => .*;)$/m.exec(code)?.[1];
  if (!send) throw new Error(`no "const send" in:\n${code}`);
  return { send, onMessage: handlerAfter(code, 'onMessage') };
}

const EXAMPLES = {
  'README.md': { ...bridgeOf(blockUnder('README.md', '### Mobile webviews', 'jsx')), platform: 'android' },
  'docs/mobile-webviews.md': {
    ...bridgeOf(blockUnder('docs/mobile-webviews.md', '## React Native (`react-native-webview`)', 'jsx')),
    platform: 'ios',
  },
} as const;

/**
 * The app's side in the page: the example's `send` and `onMessage` with the component's props and
 * state (`identity`, `onUnread` / `setUnread`) and the WebView ref, recording what crosses.
 */
function nativeSide(example: { send: string; onMessage: string; platform: string }, identity: unknown): string {
  const target = example.platform === 'android' ? 'document' : 'window';
  return `(() => {
  const rn = (window.__rn = { posted: [], sent: [], unread: [] });
  const identity = ${JSON.stringify(identity)};
  const onUnread = (count) => rn.unread.push(count);
  const setUnread = onUnread;
  // WebView.postMessage(string): react-native-webview dispatches it in the page as a message event.
  const webView = { current: { postMessage: (data) => {
    rn.sent.push(JSON.parse(data));
    ${target}.dispatchEvent(new MessageEvent('message', { data }));
  } } };
  ${example.send}
  const onMessage = ${example.onMessage};
  rn.send = send;
  // What react-native-webview injects: the page's message as a string, to onMessage after the native hop.
  window.ReactNativeWebView = { postMessage: (data) => {
    rn.posted.push(JSON.parse(String(data)));
    setTimeout(() => onMessage({ nativeEvent: { data: String(data) } }));
  } };
})();`;
}

let app: LiveApp;
let chatbotId: string;
let phone: Browser;
let identity: { email: string; signature: string; name: string };

beforeAll(async () => {
  app = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(app);
  const made = await app.call('POST', `/api/v2/chatbots/${chatbotId}/identity-secret`, app.ownerToken);
  expect(made.status).toBe(201);
  const email = 'ada@example.com';
  const signature = createHmac('sha256', made.body.data.identitySecret.secret as string)
    .update(email)
    .digest('hex');
  identity = { email, signature, name: 'Ada' };
  phone = await launch({ viewport: { width: 390, height: 844 }, isMobile: true });
}, 120_000);
afterAll(async () => {
  await phone?.close();
  await app?.close();
});

type Rn = {
  posted: Array<{ source: string; event: string; detail: unknown }>;
  sent: Array<{ source: string; command: unknown[] }>;
  unread: number[];
};
const rn = (page: Page) => page.evaluate(() => (window as unknown as { __rn: Rn }).__rn);
const q = (page: Page, selector: string) => page.locator(`[data-parley] ${selector}`);

for (const [file, example] of Object.entries(EXAMPLES)) {
  describe(`the React Native example of ${file} (${example.platform} delivery)`, () => {
    it(
      'on ready it identifies the user, it hears the unread count, and it ignores what is not Parley',
      { timeout: 90_000 },
      async () => {
        const page = await phone.context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.addInitScript(`localStorage.clear(); ${nativeSide(example, identity)}`);
        await page.goto(`${app.url}/chat/${chatbotId}`);

        // ready → the example sends identify, and the page signs the visitor in with it.
        await expect
          .poll(async () => (await rn(page)).sent, { timeout: 30_000 })
          .toContainEqual({ source: 'parley', command: ['identify', identity] });

        const input = q(page, 'textarea');
        await input.fill('Can I return items?');
        await input.press('Enter');
        await q(page, '.msg-ai .md')
          .filter({ hasText: /30 days/ })
          .waitFor({ timeout: 30_000 });
        // The visitor's conversation is the signed-in user's.
        await q(page, '[aria-label="Account"]').click();
        await page.locator('[data-parley] .verified', { hasText: identity.email }).waitFor({ timeout: 20_000 });
        await q(page, '[aria-label="Back"]').click();

        // Closed by the app (the example's own send), a team reply is unread: the app hears 1.
        await page.evaluate(() => (window as unknown as { __rn: { send(c: unknown[]): void } }).__rn.send(['close']));
        await expect.poll(async () => (await rn(page)).posted.map((m) => m.event)).toContain('close');
        const list = await app.call('GET', `/api/v2/chatbots/${chatbotId}/conversations`, app.ownerToken);
        const threadId = list.body.data.conversations[0].threadId as string;
        const reply = await app.call(
          'POST',
          `/api/v2/chatbots/${chatbotId}/conversations/${threadId}/replies`,
          app.ownerToken,
          { message: 'A person here: anything else?' },
        );
        expect(reply.status).toBe(201);
        await expect.poll(async () => (await rn(page)).unread, { timeout: 20_000 }).toContain(1);

        // Something else in the page posting to the app: not Parley's, so no identify follows.
        await page.evaluate(() =>
          (
            window as unknown as { ReactNativeWebView: { postMessage(s: string): void } }
          ).ReactNativeWebView.postMessage(JSON.stringify({ source: 'analytics', event: 'ready' })),
        );
        await page.evaluate(() => new Promise((resolve) => setTimeout(resolve)));
        const { posted, sent, unread } = await rn(page);
        const fromParley = posted.filter((m) => m.source === 'parley');
        // Exactly one identify per ready the page posted, and every unread count it posted, in order.
        expect(sent.filter((m) => m.command[0] === 'identify')).toHaveLength(
          fromParley.filter((m) => m.event === 'ready').length,
        );
        expect(unread).toEqual(fromParley.filter((m) => m.event === 'unread').map((m) => m.detail));
        expect(unread.at(-1)).toBe(1);
        await screenshot(page, `phone-light-react-native-${example.platform}`);
        expect(errors).toEqual([]);
        await page.close();
      },
    );
  });
}
