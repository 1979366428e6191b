/**
 * The inbox, worked as a team member does: a real visitor (the widget on another site, in a
 * browser of their own) asks and escalates; the inbox shows it live with a readable name, the
 * page the visitor was on and a count in the tab's title; the member takes it over, replies
 * with the keyboard, and the visitor's widget receives the reply under the member's display
 * name; hand back; resolve. The buttons shown match each state.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AckFrame } from '../../shared/protocol.js';
import { signIdentity } from '../../server/domain/visitors/identity.js';
import { chatbotWithKnowledge, newSession, visitor } from '../helpers/widget.js';
import { axeViolations, consoleScreenshots, startConsole, type ConsoleHarness } from './console-helpers.js';
import { hostSite, type HostSite } from './helpers.js';

let h: ConsoleHarness;
let site: HostSite;
let chatbotId: string;

beforeAll(async () => {
  h = await startConsole();
  chatbotId = await chatbotWithKnowledge(h.app);
  site = await hostSite(h.app.url, chatbotId, {
    shop: {
      before: `window.parley = window.parley || []; parley.push(['setContext', { plan: 'Gold' }]);`,
    },
  });
}, 120_000);
afterAll(async () => {
  await site?.close();
  await h?.close();
});

const buttons = async (page: Page) =>
  (await page.locator('.inbox-actions button').allTextContents()).map((s) => s.trim());

it(
  'a visitor escalates; the inbox shows it live; take over, reply, hand back, resolve; the widget receives the reply by name',
  { timeout: 120_000 },
  async () => {
    // Another visitor, named, already talking to the AI: for the search and the keyboard.
    const other = await h.app.call('POST', `/api/v2/chatbots/${chatbotId}/messages`, h.app.ownerToken, {
      message: 'Do you ship to Norway?',
      visitor: { name: 'Ada Lovelace', email: 'ada@example.com' },
    });
    expect(other.status).toBe(201);

    const { page, problems, close } = await h.open({ path: `/console/${chatbotId}/inbox` });
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    await page.locator('.inbox-live.live').waitFor();

    // The member's display name, set in the page (PATCH /me).
    await page.getByLabel('Your name, as visitors see it').fill('Dana from Acme');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('status').filter({ hasText: 'Dana from Acme' }).waitFor();

    // The visitor, on the shop's site in a browser of their own.
    const visitorContext = await h.browser.newContext({ viewport: { width: 1000, height: 800 } });
    const shop = await visitorContext.newPage();
    await shop.goto(`${site.origin}/page/shop`);
    // A single-page shop moves on without a load; the site passes no address, the widget reports it (no fragment).
    await shop.evaluate(() => history.pushState({}, '', '/page/shop?step=checkout#basket'));
    await shop.locator('[data-parley] .bubble').click();
    const input = shop.locator('[data-parley] textarea');
    await input.fill('Can I return items?');
    await input.press('Enter');
    const log = shop.locator('[data-parley] [role="log"]');
    await log.locator('.msg-ai .md', { hasText: /30 days/ }).waitFor({ timeout: 20_000 });
    await shop.locator('[data-parley] [aria-label="Talk to a person"]').click();
    await shop.locator('[data-parley] button', { hasText: 'Yes, continue' }).click();
    await log.locator('.notice-escalated').waitFor();

    // Live in the inbox, under "Escalated" (the default tab), with a made-up name, never an id.
    const rows = page.locator('.inbox-rows li');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(1);
    const name = (await rows.first().locator('.inbox-who').textContent())!;
    expect(name).toMatch(/^[A-Z][a-z]+ [A-Z][a-z]+$/);
    expect(await page.locator('.inbox-unread').first().textContent()).toMatch(/^\d+$/);
    await expect.poll(() => page.title()).toMatch(/^\(1\) /);
    expect(await page.locator('.visually-hidden[role="status"]').textContent()).toBe(`${name} asked for a person`);

    await rows.first().getByRole('button').click();
    const thread = page.locator('.inbox-thread');
    await thread.getByRole('heading', { name }).waitFor();
    await thread.locator('.inbox-msg.visitor', { hasText: 'Can I return items?' }).waitFor();
    await thread.locator('.inbox-msg.ai', { hasText: '30 days' }).waitFor();
    expect(await buttons(page)).toEqual(['Take over', 'Hand back to the AI', 'Resolve']);
    const details = page.locator('.inbox-details');
    const visited = `${site.origin}/page/shop?step=checkout`;
    const pageLink = details.getByRole('link', { name: visited });
    expect(await pageLink.getAttribute('href')).toBe(visited);
    expect(await pageLink.getAttribute('rel')).toContain('noopener');
    expect(await details.textContent()).toContain('Gold');
    expect(await details.textContent()).toContain(`${name} is a name we made up`);
    await page.locator('.inbox-unread').waitFor({ state: 'detached' });

    // The visitor types: the member sees it.
    await input.pressSequentially('one more thing');
    await page.getByText(`${name} is typing…`).waitFor();

    await page.getByRole('button', { name: 'Take over' }).click();
    await thread.locator('.inbox-state', { hasText: 'Taken over' }).waitFor();
    expect(await buttons(page)).toEqual(['Hand back to the AI', 'Resolve']);
    await log.locator('.notice-taken_over').waitFor();
    await expect.poll(() => page.title()).not.toMatch(/^\(\d+\) /);

    // r writes a reply; Ctrl+Enter sends it, Markdown and all.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('r');
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
    await page.keyboard.type('Hi, I am **here** to help.');
    // The visitor sees the member typing, by name.
    await shop.locator('[data-parley] .typing', { hasText: 'Dana from Acme is typing' }).waitFor();
    await page.keyboard.press('Control+Enter');
    const mine = thread.locator('.inbox-msg.agent', { hasText: 'Hi, I am here to help.' });
    await mine.waitFor();
    expect(await mine.locator('strong').textContent()).toBe('here');
    expect(await mine.locator('.inbox-msg-by').textContent()).toContain('Dana from Acme');
    const received = log.locator('.msg-agent', { hasText: 'Hi, I am here to help.' });
    await received.waitFor();
    expect(await shop.locator('[data-parley] [role="log"]').textContent()).toContain('Dana from Acme');
    expect(await shop.locator('[data-parley] [role="log"]').textContent()).not.toContain('@');

    await page.getByRole('button', { name: 'Hand back to the AI' }).click();
    await thread.locator('.inbox-state', { hasText: 'AI' }).waitFor();
    expect(await buttons(page)).toEqual(['Take over', 'Resolve']);
    await log.locator('.notice-released').waitFor();

    await page.getByRole('button', { name: 'Resolve' }).click();
    await thread.locator('.inbox-state', { hasText: 'Resolved' }).waitFor();
    expect(await buttons(page)).toEqual(['Reopen']);
    expect(await page.locator('.inbox-reply').count()).toBe(0);
    await log.locator('.notice-resolved').waitFor();

    // The AI tab: the other visitor by name; search by e-mail; j opens the next conversation.
    await page.getByRole('radio', { name: /AI answering/ }).check();
    await page.locator('.inbox-rows li', { hasText: 'Ada Lovelace' }).waitFor();
    await page.keyboard.press('/');
    await page.keyboard.type('nobody@example');
    await page.getByText('No conversation matches your search.').waitFor();
    // Text of an earlier message (the list shows the latest): found by the server's search.
    await page.getByLabel('Search by name, e-mail or text').fill('NORWAY');
    await page.locator('.inbox-rows li', { hasText: 'Ada Lovelace' }).waitFor();
    await page.getByLabel('Search by name, e-mail or text').fill('ada@example');
    expect(await page.locator('.inbox-rows li').count()).toBe(1);
    await page.getByLabel('Search by name, e-mail or text').fill('');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('j');
    await thread.getByRole('heading', { name: 'Ada Lovelace' }).waitFor();
    expect(await page.locator('.inbox-details').textContent()).toContain('ada@example.com');

    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'inbox');
    expect(problems).toEqual([]);
    await visitorContext.close();
    await close();

    // In Hebrew (chosen in this browser after signing in): the page's own strings, right to left.
    const he = await h.open({ path: `/console/${chatbotId}/inbox`, viewport: { width: 390, height: 844 } });
    await he.page.evaluate(() => localStorage.setItem('parley.console.language', 'he'));
    await he.page.reload();
    await he.page.getByRole('heading', { name: 'תיבת דואר', level: 1 }).waitFor();
    await he.page.getByRole('radio', { name: /בינה המלאכותית עונה/ }).check();
    await he.page.locator('.inbox-rows li', { hasText: 'Ada Lovelace' }).getByRole('button').click();
    await he.page.getByRole('button', { name: 'קח את השיחה' }).waitFor();
    expect(await he.page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    expect(await axeViolations(he.page)).toEqual([]);
    await he.page.screenshot({ path: 'test-artifacts/console/inbox-phone-he.png' });
    await he.page.getByRole('button', { name: 'חזרה לרשימה' }).click();
    await he.page.locator('.inbox-rows li', { hasText: 'Ada Lovelace' }).waitFor();
    await he.page.screenshot({ path: 'test-artifacts/console/inbox-phone-he-list.png' });
    expect(he.problems).toEqual([]);
    await he.close();
  },
);

it(
  'two members at once: one takes over, the other sees who and sees them typing, and may still take it over',
  { timeout: 90_000 },
  async () => {
    expect((await h.app.call('PATCH', '/api/v2/me', h.app.ownerToken, { name: 'Dana from Acme' })).status).toBe(200);
    const started = await h.app.call('POST', `/api/v2/chatbots/${chatbotId}/messages`, h.app.ownerToken, {
      message: 'My parcel arrived broken',
      visitor: { name: 'Lin Wu' },
    });
    const threadId = started.body.data.conversation.threadId;
    const member = await h.addUser('member', [chatbotId]);
    const owner = await h.open({ path: `/console/${chatbotId}/inbox` });
    const other = await h.open({ user: member, path: `/console/${chatbotId}/inbox` });
    for (const p of [owner.page, other.page]) await p.locator('.inbox-live.live').waitFor();

    // The visitor asks for a person: both inboxes list it under Escalated, live.
    const escalate = await h.app.call(
      'POST',
      `/api/v2/chatbots/${chatbotId}/conversations/${threadId}/escalate`,
      h.app.ownerToken,
    );
    expect(escalate.status).toBe(200);
    for (const p of [owner.page, other.page])
      await p.locator('.inbox-rows li', { hasText: 'Lin Wu' }).getByRole('button').click();

    await owner.page.getByRole('button', { name: 'Take over' }).click();
    await owner.page.locator('.inbox-thread .inbox-state', { hasText: 'Taken over' }).waitFor();
    await other.page.locator('.inbox-thread .inbox-state', { hasText: 'Taken over' }).waitFor();
    expect(await other.page.locator('.inbox-note').textContent()).toBe('Taken over by Dana from Acme');
    expect(await buttons(other.page)).toEqual(['Take over', 'Hand back to the AI', 'Resolve']);
    expect(await buttons(owner.page)).toEqual(['Hand back to the AI', 'Resolve']);

    await owner.page.getByLabel('Reply').pressSequentially('On it');
    await other.page.getByText('Dana from Acme is typing…').waitFor();

    expect([...owner.problems, ...other.problems]).toEqual([]);
    await owner.close();
    await other.close();
  },
);

/**
 * Records each Notification the page creates, still creating the real one, and lets the test hide
 * the tab (`__setHidden`): headless chromium's only tab is always "visible".
 */
function recordNotifications() {
  const w = window as unknown as {
    __notes: Array<{ title: string; body: string | null; tag: string | null }>;
    __setHidden(hidden: boolean): void;
  };
  const Real = window.Notification;
  w.__notes = [];
  const Recorded = function (title: string, options?: NotificationOptions) {
    w.__notes.push({ title, body: options?.body ?? null, tag: options?.tag ?? null });
    return new Real(title, options);
  } as unknown as typeof Notification;
  Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
  Recorded.requestPermission = (cb?: NotificationPermissionCallback) => Real.requestPermission(cb);
  window.Notification = Recorded;
  let hidden = false;
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
  Object.defineProperty(document, 'visibilityState', {
    configurable: true,
    get: () => (hidden ? 'hidden' : 'visible'),
  });
  w.__setHidden = (value) => {
    hidden = value;
    document.dispatchEvent(new Event('visibilitychange'));
  };
}

it(
  'a new escalation notifies the browser while the inbox is in the background, and counts in the title; nothing when notifications are blocked',
  { timeout: 90_000 },
  async () => {
    const secret = (await h.app.call('POST', `/api/v2/chatbots/${chatbotId}/identity-secret`, h.app.ownerToken)).body
      .data.identitySecret.secret as string;
    const open = async (permission: 'granted' | 'denied') => {
      const opened = await h.open({ path: `/console/${chatbotId}/inbox` });
      await opened.page.addInitScript(recordNotifications);
      if (permission === 'granted') await opened.context.grantPermissions(['notifications'], { origin: h.app.url });
      else {
        // Blocked as a person blocks it in the browser's site settings (Playwright grants only).
        const cdp = await opened.context.newCDPSession(opened.page);
        const { targetInfo } = await cdp.send('Target.getTargetInfo');
        await cdp.send('Browser.setPermission', {
          permission: { name: 'notifications' },
          setting: 'denied',
          origin: h.app.url,
          browserContextId: targetInfo.browserContextId,
        });
      }
      await opened.page.reload();
      await opened.page.locator('.inbox-live.live').waitFor();
      return opened;
    };
    const allowed = await open('granted');
    const blocked = await open('denied');
    await allowed.page.getByText('Browser notifications are on for new escalations.').waitFor();
    await blocked.page.getByText('Notifications are blocked in this browser; the tab title still counts').waitFor();
    const badge = async (page: Page) => Number(/^\((\d+)\) /.exec(await page.title())?.[1] ?? 0);
    const notes = (page: Page) =>
      page.evaluate(() => (window as unknown as { __notes: Array<{ title: string; body: string | null }> }).__notes);

    // A signed-in visitor of the site asks, then asks for a person.
    const escalateAs = async (email: string, name: string, text: string) => {
      const session = await newSession(h.app, chatbotId, {
        identity: { email, name, signature: signIdentity(secret, email) },
      });
      const c = await visitor(h.app.url, session.token);
      c.send({ type: 'message.send', clientId: `m-${name.replace(/ /g, '-')}`, text });
      const ack = await c.waitFor<AckFrame>((f) => f.type === 'ack');
      await c.waitFor((f) => f.type === 'answer.done');
      c.send({ type: 'escalate', conversationId: ack.conversationId });
      await c.waitFor((f) => f.type === 'condition');
      c.close();
    };

    // In front, the inbox itself shows it: no notification, the title counts it.
    const before = await badge(allowed.page);
    await escalateAs('grace@example.test', 'Grace Hopper', 'Where is my order 1042?');
    await allowed.page.locator('.inbox-rows li', { hasText: 'Grace Hopper' }).waitFor();
    await expect.poll(() => badge(allowed.page)).toBe(before + 1);
    expect(await notes(allowed.page)).toEqual([]);

    // In the background: a notification naming the visitor with what they wrote.
    for (const p of [allowed.page, blocked.page])
      await p.evaluate(() => (window as unknown as { __setHidden(h: boolean): void }).__setHidden(true));
    await escalateAs('alan@example.test', 'Alan Turing', 'Can I change the delivery address?');
    await expect.poll(() => notes(allowed.page)).toHaveLength(1);
    expect((await notes(allowed.page))[0]).toMatchObject({
      title: 'Alan Turing asked for a person',
      body: 'Can I change the delivery address?',
    });
    await expect.poll(() => badge(allowed.page)).toBe(before + 2);

    // Blocked: nothing is shown, the title still counts.
    await expect.poll(() => badge(blocked.page)).toBe(before + 2);
    expect(await notes(blocked.page)).toEqual([]);
    expect([...allowed.problems, ...blocked.problems]).toEqual([]);
    await allowed.close();
    await blocked.close();
  },
);
