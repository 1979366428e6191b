/**
 * The window's states a visitor sees as a conversation goes on, in chromium against the real
 * server, light and dark, desktop and phone: the bubble while the window is open beside it, the
 * member's name under the title while they have the conversation (and not after it is resolved,
 * nor on the Account view), the Account form, and the verified e-mail with its badge.
 * Screenshots: test-artifacts/widget/.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf, startSmtpInbox, type SmtpInbox } from '../helpers/smtp.js';
import { chatbotWithKnowledge, startLiveApp, type LiveApp } from '../helpers/widget.js';
import {
  askWidget,
  freshPage,
  hostSite,
  inWidget as q,
  launch,
  screenshot,
  type Browser,
  type HostSite,
} from './helpers.js';

let app: LiveApp;
let inbox: SmtpInbox;
let chatbotId: string;
let site: HostSite;

beforeAll(async () => {
  inbox = await startSmtpInbox();
  app = await startLiveApp({ env: { SMTP_URL: inbox.url } });
  chatbotId = await chatbotWithKnowledge(app);
  site = await hostSite(app.url, chatbotId, { plain: {}, arabic: { attrs: { 'data-locale': 'ar' } } });
}, 120_000);

afterAll(async () => {
  await site?.close();
  await app?.close();
  await inbox?.close();
});

async function newestThread() {
  const list = await app.call('GET', `/api/v2/chatbots/${chatbotId}/conversations`, app.ownerToken);
  return `/api/v2/chatbots/${chatbotId}/conversations/${list.body.data.conversations[0].threadId}`;
}

const visible = (page: Page, selector: string) =>
  q(page, selector).evaluate(
    (el) => getComputedStyle(el).display !== 'none' && (el as HTMLElement).getBoundingClientRect().width > 0,
  );

async function verify(page: Page, email: string) {
  await q(page, '[aria-label="Account"]').click();
  await q(page, 'input[name="email"]').fill(email);
  await q(page, 'button[type="submit"]').click();
  await q(page, 'input[name="otp"]').fill(codeOf(await inbox.next(email)));
  await q(page, 'button[type="submit"]').click();
  await q(page, '.verified').waitFor();
}

/** The badge sits on the e-mail's line, right before it, inside the account view. */
async function badgeBesideEmail(page: Page) {
  const badge = (await q(page, '.verified-badge').boundingBox())!;
  const line = (await q(page, '.verified').boundingBox())!;
  const view = (await q(page, '.account').boundingBox())!;
  expect(badge.y).toBeGreaterThanOrEqual(line.y - 1);
  expect(badge.y + badge.height).toBeLessThanOrEqual(line.y + line.height + 1);
  expect(badge.x).toBeGreaterThanOrEqual(view.x);
  expect(badge.x + badge.width).toBeLessThan(line.x + line.width);
}

for (const scheme of ['light', 'dark'] as const) {
  describe(`window states (${scheme})`, () => {
    it(
      "desktop: the open window's bubble shows a closing chevron; the member's name only while they have the conversation in the chat view; the Account form asks once; the verified badge beside the e-mail",
      { timeout: 120_000 },
      async () => {
        const browser: Browser = await launch({ colorScheme: scheme });
        try {
          const page = await freshPage(browser, site, 'plain');
          await q(page, '.bubble').click();
          await q(page, '.window').waitFor();
          expect(await visible(page, '.bubble .close-icon')).toBe(true);
          expect(await q(page, '.bubble > :first-child').evaluate((el) => getComputedStyle(el).display)).toBe('none');
          expect(await q(page, '.bubble').getAttribute('aria-label')).toMatch(/^Close chat/);
          await screenshot(page, `desktop-${scheme}-open-bubble-chevron`);

          await askWidget(page, 'Can I return items?', /30 days/);
          const thread = await newestThread();
          expect((await app.call('POST', `${thread}/take-over`, app.ownerToken)).status).toBe(200);
          await q(page, '.header-sub', { hasText: 'Support team' }).waitFor();
          await screenshot(page, `desktop-${scheme}-taken-over`);

          await q(page, '[aria-label="Account"]').click();
          await q(page, '.account').waitFor();
          expect(await q(page, '.header-sub').count()).toBe(0);
          expect((await q(page, '.account').innerText()).match(/Verify your e-mail/g)).toHaveLength(1);
          await screenshot(page, `desktop-${scheme}-account-form`);
          await q(page, '[aria-label="Back"]').click();
          await q(page, '.header-sub').waitFor();

          expect((await app.call('PATCH', thread, app.ownerToken, { status: 'RESOLVED' })).status).toBe(200);
          await q(page, '.notice-resolved').waitFor();
          expect(await q(page, '.header-sub').count()).toBe(0);
          await screenshot(page, `desktop-${scheme}-resolved`);

          await verify(page, `ada-${scheme}@example.com`);
          await badgeBesideEmail(page);
          await screenshot(page, `desktop-${scheme}-verified`);

          // The chevron closes the window; the bubble is a chat bubble again.
          await q(page, '.bubble').click();
          await q(page, '.window').waitFor({ state: 'detached' });
          expect(await visible(page, '.bubble .close-icon')).toBe(false);
          expect(await q(page, '.bubble').getAttribute('aria-label')).toMatch(/^Open chat/);
          await page.close();
        } finally {
          await browser.close();
        }
      },
    );

    it(
      'phone: the verified badge beside the e-mail, no name under the title on the Account view',
      { timeout: 90_000 },
      async () => {
        const browser = await launch({ colorScheme: scheme, viewport: { width: 390, height: 844 }, isMobile: true });
        try {
          const page = await freshPage(browser, site, 'plain');
          await q(page, '.bubble').click();
          await askWidget(page, 'Can I return items?', /30 days/);
          expect((await app.call('POST', `${await newestThread()}/take-over`, app.ownerToken)).status).toBe(200);
          await q(page, '.header-sub').waitFor();
          await screenshot(page, `phone-${scheme}-taken-over`);
          await verify(page, `bo-${scheme}@example.com`);
          expect(await q(page, '.header-sub').count()).toBe(0);
          await badgeBesideEmail(page);
          await screenshot(page, `phone-${scheme}-verified`);
          await page.close();
        } finally {
          await browser.close();
        }
      },
    );
  });
}

it(
  'data-locale="ar" on a page: the tooltip, the bubble\'s label and the floating window in Arabic, right to left',
  { timeout: 60_000 },
  async () => {
    const browser = await launch();
    try {
      const page = await freshPage(browser, site, 'arabic');
      await q(page, '.tip', { hasText: 'مرحبًا! كيف يمكنني مساعدتك اليوم؟' }).waitFor();
      expect(await q(page, '.bubble').getAttribute('aria-label')).toMatch(/^فتح المحادثة/);
      await q(page, '.bubble').click();
      await q(page, '.window[dir="rtl"][lang="ar"]').waitFor();
      expect(await q(page, '.bubble').getAttribute('aria-label')).toMatch(/^إغلاق المحادثة/);
      await askWidget(page, 'Can I return items?', /30 days/);
      await screenshot(page, 'desktop-light-rtl-arabic-floating');
      await page.close();
    } finally {
      await browser.close();
    }
  },
);
