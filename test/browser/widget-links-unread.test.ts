/**
 * In chromium, as a visitor uses it: a javascript: link in an AI answer or a team reply is shown
 * as text and clicking it runs nothing; messages that arrive while the window is open are read
 * (no badge, no `unread` event), while it is closed they are counted on the bubble.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatStandin, type ChatStandin } from '../helpers/chat-standin.js';
import { chatbotWithKnowledge, startLiveApp, type LiveApp } from '../helpers/widget.js';
import { freshPage, hostSite, inWidget, launch, type Browser, type HostSite } from './helpers.js';

let model: ChatStandin;
let app: LiveApp;
let chatbotId: string;
let site: HostSite;
let browser: Browser;

beforeAll(async () => {
  model = await startChatStandin();
  app = await startLiveApp({ env: { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'test-key' } });
  chatbotId = await chatbotWithKnowledge(app);
  site = await hostSite(app.url, chatbotId, {
    plain: {},
    events: {
      before: `window.__unread = []; window.parley = window.parley || []; parley.push(['on', 'unread', (n) => window.__unread.push(n)]);`,
    },
  });
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await app?.close();
  await model?.close();
});

const log = (page: Page) => inWidget(page, '[role="log"]');

async function conversationOf(page: Page): Promise<string> {
  const list = await app.call('GET', `/api/v2/chatbots/${chatbotId}/conversations`, app.ownerToken);
  const visitorId = await page.evaluate(() => Object.values(localStorage).join(' '));
  const mine = list.body.data.conversations.filter((c: { threadId: string }) => visitorId.includes(c.threadId));
  expect(mine).toHaveLength(1);
  return mine[0].threadId;
}

describe('widget links and unread count in chromium', () => {
  it(
    'a javascript: link in an AI answer and in a team reply is text: clicking it runs nothing',
    { timeout: 60_000 },
    async () => {
      const page = await freshPage(browser, site, 'plain');
      // What the script behind each link does: ask the network for an address of the host site.
      const ran: string[] = [];
      browser.context.on('request', (r) => {
        if (r.url().includes('xss-ran')) ran.push(r.url());
      });
      const hostile = (who: string) => `javascript:location='${site.origin}/xss-ran-${who}'`;
      await inWidget(page, '.bubble').click();
      model.next({
        kind: 'reply',
        text: `Ask with [the refund form](${hostile('ai')}).\n\nOr read [our page](https://example.com/refunds).`,
      });
      const input = inWidget(page, 'textarea');
      await input.fill('How do I get a refund?');
      await input.press('Enter');
      const answer = log(page).locator('.msg-ai').nth(1);
      await answer.locator('.md', { hasText: 'the refund form' }).waitFor({ timeout: 20_000 });
      const threadId = await conversationOf(page);
      const reply = await app.call(
        'POST',
        `/api/v2/chatbots/${chatbotId}/conversations/${threadId}/replies`,
        app.ownerToken,
        { message: `Or use [this link](${hostile('agent')}).` },
      );
      expect(reply.status).toBe(201);
      const agent = log(page).locator('.msg-agent', { hasText: 'this link' });
      await agent.waitFor();

      // The safe link is a link; the hostile ones are not, and a click on their text does nothing.
      await expect.poll(() => answer.locator('a[href="https://example.com/refunds"]').count()).toBe(1);
      expect(await inWidget(page, 'a[href^="javascript" i]').count()).toBe(0);
      const pagesBefore = browser.context.pages().map((p) => p.url());
      await answer.getByText('the refund form').click();
      await agent.getByText('this link').click();
      // A round trip to the server after the clicks: a fetch they started would have gone out by now.
      await app.call('GET', '/api/v2/health');
      await page.waitForLoadState('networkidle');
      expect(ran).toEqual([]);
      // Nothing opened either (a link opens a new tab).
      expect(browser.context.pages().map((p) => p.url())).toEqual(pagesBefore);
      await page.close();
    },
  );

  it(
    'while the window is open, arriving messages are read: no badge, no unread; closed, they are counted',
    { timeout: 60_000 },
    async () => {
      const page = await freshPage(browser, site, 'events');
      const unread = () => page.evaluate(() => (window as unknown as { __unread: number[] }).__unread);
      const badge = inWidget(page, '.bubble .badge');
      await inWidget(page, '.bubble').click();
      model.next({ kind: 'reply', text: 'Refunds are paid within 5 business days.' });
      const input = inWidget(page, 'textarea');
      await input.fill('When are refunds paid?');
      await input.press('Enter');
      await log(page)
        .locator('.msg-ai')
        .nth(1)
        .locator('.md', { hasText: '5 business days' })
        .waitFor({ timeout: 20_000 });
      const threadId = await conversationOf(page);
      const replies = `/api/v2/chatbots/${chatbotId}/conversations/${threadId}/replies`;
      expect((await app.call('POST', replies, app.ownerToken, { message: 'Seen while open.' })).status).toBe(201);
      await log(page).locator('.msg-agent', { hasText: 'Seen while open.' }).waitFor();
      expect(await badge.isHidden()).toBe(true);
      expect((await unread()).filter((n) => n > 0)).toEqual([]);

      // Closed: the next reply is counted on the bubble.
      await page.evaluate(() => (window as unknown as { parley: { push(c: unknown[]): void } }).parley.push(['close']));
      await inWidget(page, '.window').waitFor({ state: 'detached' });
      expect((await app.call('POST', replies, app.ownerToken, { message: 'Sent while closed.' })).status).toBe(201);
      await badge.waitFor({ state: 'visible' });
      expect(await badge.textContent()).toBe('1');
      expect((await unread()).filter((n) => n > 0)).toEqual([1]);
      await page.close();
    },
  );
});
