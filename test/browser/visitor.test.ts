/**
 * The visitor's account and the other ways in, in chromium against the real server: the e-mail
 * code flow with a real SMTP server and the history on a second device, the lead form, two tabs
 * staying in step, inline mode, and the hosted page posting events to a native bridge.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf, startSmtpInbox, type SmtpInbox } from '../helpers/smtp.js';
import { chatbotWithKnowledge, startLiveApp, type LiveApp } from '../helpers/widget.js';
import { hostSite, inWidget, launch, screenshot, type Browser, type HostSite } from './helpers.js';

let app: LiveApp;
let inbox: SmtpInbox;
let chatbotId: string;
let site: HostSite;
let browser: Browser;

beforeAll(async () => {
  inbox = await startSmtpInbox();
  app = await startLiveApp({ env: { SMTP_URL: inbox.url } });
  chatbotId = await chatbotWithKnowledge(app);
  site = await hostSite(app.url, chatbotId, {
    plain: {},
    inline: { body: '<section id="help"></section>', attrs: { 'data-mode': 'inline', 'data-target': '#help' } },
  });
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await app?.close();
  await inbox?.close();
});

const q = inWidget;

async function ask(page: Page, text: string) {
  const input = q(page, 'textarea');
  await input.fill(text);
  await input.press('Enter');
}

describe('visitor accounts and entry points', () => {
  it(
    'verifies an e-mail with the code from the mailbox; a second device sees the conversation after verifying',
    { timeout: 90_000 },
    async () => {
      const email = 'ada@example.com';
      const page = await browser.context.newPage();
      await page.goto(`${site.origin}/page/plain`);
      await q(page, '.bubble').click();
      await ask(page, 'Can I return items?');
      await q(page, '.msg-ai .md')
        .filter({ hasText: /30 days/ })
        .waitFor({ timeout: 20_000 });
      await q(page, '[aria-label="Account"]').click();
      await q(page, 'input[name="email"]').fill(email);
      await q(page, 'input[name="name"]').fill('Ada');
      await q(page, 'button[type="submit"]').click();
      await q(page, 'input[name="otp"]').waitFor();
      expect(await q(page, '.resend button').isDisabled()).toBe(true);
      await screenshot(page, 'desktop-light-otp');
      await q(page, 'input[name="otp"]').fill(codeOf(await inbox.next(email)));
      await q(page, 'button[type="submit"]').click();
      await q(page, '.verified').waitFor();
      expect(await q(page, '.verified').textContent()).toContain(email);

      // A second device: another browser profile, the same address.
      const other = await launch();
      try {
        const p2 = await other.context.newPage();
        await p2.goto(`${site.origin}/page/plain`);
        await q(p2, '.bubble').click();
        await ask(p2, 'Is shipping back free?');
        await q(p2, '.msg-ai .md')
          .filter({ hasText: /free for members/ })
          .waitFor({ timeout: 20_000 });
        await app.database.db
          .updateTable('visitor_codes')
          .set({ created_at: new Date(Date.now() - 120_000).toISOString() })
          .where('email', '=', email)
          .execute();
        await q(p2, '[aria-label="Account"]').click();
        await q(p2, 'input[name="email"]').fill(email);
        await q(p2, 'button[type="submit"]').click();
        await q(p2, 'input[name="otp"]').fill(codeOf(await inbox.next(email, 1)));
        await q(p2, 'button[type="submit"]').click();
        await q(p2, '.verified').waitFor();
        await q(p2, '[aria-label="Messages"]').click();
        await q(p2, '.conversation').nth(1).waitFor();
        expect(await q(p2, '.conversation').count()).toBe(2);
        await screenshot(p2, 'desktop-light-conversations');
        await q(p2, '.conversation').last().click();
        await q(p2, '.msg-visitor').first().waitFor();
        expect(await q(p2, '[role="log"]').textContent()).toMatch(/Can I return items\?|Is shipping back free\?/);
        await q(p2, '[aria-label="Account"]').click();
        await q(p2, 'button', { hasText: 'Log out' }).click();
        await q(p2, '.verified').waitFor({ state: 'detached' });
        expect(await p2.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('parley:')).length)).toBe(
          0,
        );
      } finally {
        await other.close();
      }
      await page.close();
    },
  );

  it(
    'asks for the lead before the conversation when the chatbot collects details first',
    { timeout: 60_000 },
    async () => {
      const leadBot = await chatbotWithKnowledge(app, {
        'user-data': { collectUserDetails: 'BEFORE_CONVERSATION', collectUserData: { name: true, phone: false } },
      });
      const lsite = await hostSite(app.url, leadBot, { plain: {} });
      const page = await browser.context.newPage();
      await page.goto(`${lsite.origin}/page/plain`);
      await q(page, '.bubble').click();
      await q(page, 'form.lead-form').waitFor();
      expect(await q(page, 'textarea').count()).toBe(0);
      await screenshot(page, 'desktop-light-lead');
      await q(page, 'form.lead-form input[name="email"]').fill('lee@example.com');
      await q(page, 'form.lead-form input[name="name"]').fill('Lee');
      await q(page, 'form.lead-form button[type="submit"]').click();
      await q(page, 'textarea').waitFor();
      const leads = await app.call('GET', `/api/v2/chatbots/${leadBot}/leads`, app.ownerToken);
      expect(JSON.stringify(leads.body.data)).toContain('lee@example.com');
      await page.close();
      await lsite.close();
    },
  );

  it('two tabs of one visitor stay in step', { timeout: 60_000 }, async () => {
    const a = await browser.context.newPage();
    await a.goto(`${site.origin}/page/plain`);
    await a.evaluate(() => localStorage.clear());
    await a.reload();
    await q(a, '.bubble').click();
    await ask(a, 'Can I return items?');
    await q(a, '.msg-ai .md')
      .filter({ hasText: /30 days/ })
      .waitFor({ timeout: 20_000 });
    const b = await browser.context.newPage();
    await b.goto(`${site.origin}/page/plain`);
    await q(b, '.bubble').click();
    await q(b, '.msg-visitor', { hasText: 'Can I return items?' }).waitFor();
    await ask(b, 'Is shipping back free?');
    await q(a, '.msg-visitor', { hasText: 'Is shipping back free?' }).waitFor();
    await q(a, '.msg-ai').nth(2).waitFor({ timeout: 20_000 });
    expect(await q(a, '.msg-visitor').count()).toBe(2);
    await a.close();
    await b.close();
  });

  it(
    'inline mode fills the host element; the hosted page posts events to a native bridge',
    { timeout: 60_000 },
    async () => {
      const page = await browser.context.newPage();
      await page.goto(`${site.origin}/page/inline`);
      await page.locator('#help [data-parley] .window').waitFor();
      expect(await q(page, '.bubble').count()).toBe(0);
      await screenshot(page, 'desktop-light-inline');
      await page.close();

      const phone = await launch({ viewport: { width: 390, height: 844 }, isMobile: true });
      try {
        const p = await phone.context.newPage();
        await p.addInitScript(() => {
          (window as unknown as { __native: unknown[] }).__native = [];
          (window as unknown as { ReactNativeWebView: unknown }).ReactNativeWebView = {
            postMessage: (m: string) => (window as unknown as { __native: unknown[] }).__native.push(JSON.parse(m)),
          };
        });
        const violations: string[] = [];
        p.on('console', (m) => m.type() === 'error' && violations.push(m.text()));
        await p.goto(`${app.url}/chat/${chatbotId}`);
        await ask(p, 'Can I return items?');
        await q(p, '.msg-ai .md')
          .filter({ hasText: /30 days/ })
          .waitFor({ timeout: 20_000 });
        await screenshot(p, 'phone-light-hosted-page');
        const events = await p.evaluate(() =>
          (window as unknown as { __native: Array<{ source: string; event: string }> }).__native.map(
            (m) => `${m.source}:${m.event}`,
          ),
        );
        expect(events).toEqual(expect.arrayContaining(['parley:ready', 'parley:open', 'parley:message']));
        expect(violations).toEqual([]);
      } finally {
        await phone.close();
      }
    },
  );
});
