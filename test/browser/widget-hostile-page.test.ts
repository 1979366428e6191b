/**
 * The widget on hostile pages and a visitor's rough paths, in chromium against the real server:
 * an inline target a single-page app renders late and renders anew, a page whose global CSS
 * reaches every element, a page enforcing Trusted Types, a reload in the middle of an answer,
 * two tabs open before the first message, the escalation dialog's keyboard trap, and axe in the
 * states the other browser tests do not check (escalation dialog, lead form, e-mail code,
 * conversation list).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatStandin } from '../helpers/chat-standin.js';
import { codeOf, startSmtpInbox, type SmtpInbox } from '../helpers/smtp.js';
import { chatbotWithKnowledge, startLiveApp, type LiveApp } from '../helpers/widget.js';
import {
  askWidget,
  freshPage,
  hostSite,
  inWidget,
  launch,
  screenshot,
  type Browser,
  type HostSite,
} from './helpers.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const HOSTILE_CSS = `* { all: unset; } body { display: block; text-transform: uppercase; letter-spacing: 6px; line-height: 3; text-align: center; font: 30px/3 serif; } button { display: none !important; } div { transform: translateX(0); }`;

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
    spa: { body: '<nav><button id="go">Help</button></nav>', attrs: { 'data-mode': 'inline', 'data-target': '#help' } },
    trusted: {
      csp: `default-src 'none'; script-src 'nonce-{nonce}' ${app.url}; connect-src ${app.url} ${app.url.replace(/^http/, 'ws')}; img-src ${app.url}; style-src 'self'; require-trusted-types-for 'script'; trusted-types 'none'`,
      before: `window.__violations = []; document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sample));`,
    },
    // What old libraries and page scripts do to globals: Prototype.js's Array#toJSON (arrays
    // stringify to a quoted string), enumerable Array and Object additions, fetch and WebSocket
    // wrapped by an analytics script.
    globals: {
      before: `Array.prototype.toJSON = function () { return JSON.stringify(this.slice()); };
        Array.prototype.last = function () { return this[this.length - 1]; };
        Object.prototype.extend = function () {};
        const f = window.fetch; window.fetch = function (input, init) { window.__fetches = (window.__fetches || 0) + 1; return f.call(this, input, init); };
        const W = window.WebSocket; window.WebSocket = function (url, protocols) { window.__sockets = (window.__sockets || 0) + 1; return new W(url, protocols); };
        window.WebSocket.prototype = W.prototype; window.WebSocket.OPEN = 1;`,
    },
    hostile: { body: `<style>${HOSTILE_CSS} body { white-space: nowrap; }</style>` },
    // On a phone a page that does not wrap is wider than the screen, and so is where fixed elements go.
    'hostile-phone': { body: `<style>${HOSTILE_CSS}</style>` },
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
const fresh = (name: string) => freshPage(browser, site, name);
const ask = askWidget;

async function axe(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE });
  return page.evaluate(async () => {
    const run = (
      window as unknown as {
        axe: {
          run(
            ctx: unknown,
            opts: unknown,
          ): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }>;
        };
      }
    ).axe;
    const result = await run.run({ include: [['[data-parley]']] }, { resultTypes: ['violations'] });
    return result.violations.map((v) => `${v.id} ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}

describe('the widget on hostile pages and rough paths', () => {
  it(
    'inline: a target the page renders after the script ran gets the chat, and again when it is rendered anew',
    { timeout: 60_000 },
    async () => {
      const page = await fresh('spa');
      await page.waitForFunction(() =>
        performance.getEntriesByType('resource').some((e) => e.name.endsWith('/config')),
      );
      await page.waitForTimeout(300);
      await page.evaluate(() => {
        const help = document.createElement('section');
        help.id = 'help';
        document.body.append(help);
      });
      await page.locator('#help [data-parley] .window').waitFor();
      await ask(page, 'Can I return items?', /30 days/);
      // The app navigates away and back: the container is removed and rendered again.
      await page.evaluate(() => document.querySelector('#help')!.remove());
      expect(await q(page, '.window').count()).toBe(0);
      await page.evaluate(() => {
        const help = document.createElement('section');
        help.id = 'help';
        document.body.append(help);
      });
      await page.locator('#help [data-parley] .msg-visitor', { hasText: 'Can I return items?' }).waitFor();
      await screenshot(page, 'desktop-light-inline-late-target');
      await page.close();
    },
  );

  it(
    'a page that enforces Trusted Types (no policy allowed): the chat works with no violation',
    { timeout: 60_000 },
    async () => {
      const page = await fresh('trusted');
      await q(page, '.bubble').click();
      await ask(page, 'Can I return items?', /30 days/);
      expect(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)).toEqual([]);
      await page.close();
    },
  );

  it(
    'reload in the middle of an answer: the rest streams in and the answer is there once, whole',
    { timeout: 90_000 },
    async () => {
      // A model that answers slowly (a stand-in for the hosted one), so the reload lands mid-answer.
      const model = await startChatStandin();
      const slow = await startLiveApp({ env: { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'test-key' } });
      const slowBot = await chatbotWithKnowledge(slow);
      const ssite = await hostSite(slow.url, slowBot, { plain: {} });
      try {
        const text = 'Items can be returned for thirty days, and shipping back is free for members of the garden club.';
        model.next({ kind: 'reply', text, pieceDelayMs: 150 });
        const page = await browser.context.newPage();
        await page.goto(`${ssite.origin}/page/plain`);
        await q(page, '.bubble').click();
        const input = q(page, 'textarea');
        await input.fill('Can I return items?');
        await input.press('Enter');
        await q(page, '.streaming', { hasText: 'returned' }).waitFor();
        await page.reload();
        await q(page, '.bubble').click();
        // The answer's start was missed: dots, not an empty bubble, until the whole answer comes.
        await q(page, '.streaming .dots').waitFor();
        await screenshot(page, 'desktop-light-reload-mid-answer');
        await q(page, '.msg-ai .md', { hasText: 'garden club.' }).waitFor({ timeout: 20_000 });
        expect(await q(page, '.msg-ai').count()).toBe(2);
        expect(await q(page, '.msg-ai').last().locator('.md').innerText()).toBe(text);
        expect(await q(page, '.msg-visitor').count()).toBe(1);
        expect(await q(page, '.streaming').count()).toBe(0);
        await page.close();
      } finally {
        await ssite.close();
        await slow.close();
        await model.close();
      }
    },
  );

  it(
    'two tabs with the chat open before the first message: the other tab follows the conversation and adds to it',
    { timeout: 60_000 },
    async () => {
      const a = await fresh('plain');
      const b = await browser.context.newPage();
      await b.goto(`${site.origin}/page/plain`);
      await q(a, '.bubble').click();
      await q(b, '.bubble').click();
      await q(b, 'textarea').waitFor();
      await ask(a, 'Can I return items?', /30 days/);
      await q(b, '.msg-visitor', { hasText: 'Can I return items?' }).waitFor();
      await ask(b, 'Is shipping back free?', /free for members/, 1);
      // One conversation: each tab shows both questions, once.
      await q(a, '.msg-visitor', { hasText: 'Is shipping back free?' }).waitFor();
      expect(await q(a, '.msg-visitor').count()).toBe(2);
      expect(await q(b, '.msg-visitor').count()).toBe(2);
      await a.close();
      await b.close();
    },
  );

  it(
    'a page that changes Array.prototype and Object.prototype and wraps fetch and WebSocket: the chat works',
    { timeout: 60_000 },
    async () => {
      const page = await fresh('globals');
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await q(page, '.bubble').click();
      await ask(page, 'Can I return items?', /30 days/);
      await q(page, '.meta [aria-label="Helpful"]').first().click();
      await expect
        .poll(() => q(page, '.meta [aria-label="Helpful"]').first().getAttribute('aria-pressed'))
        .toBe('true');
      expect(
        await page.evaluate(() => [
          (window as unknown as { __sockets: number }).__sockets > 0,
          (window as unknown as { __fetches: number }).__fetches > 0,
        ]),
      ).toEqual([true, true]);
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it(
    'a page whose global CSS reaches every element: the bubble and the window keep their own look',
    { timeout: 60_000 },
    async () => {
      const page = await fresh('hostile');
      const box = (await q(page, '.bubble').boundingBox())!;
      expect(box.width).toBe(60);
      expect(1280 - (box.x + box.width)).toBe(20);
      await q(page, '.bubble').click();
      await q(page, '.window').waitFor();
      await ask(page, 'Can I return items?', /30 days/);
      const look = await q(page, '.msg-ai .md')
        .last()
        .evaluate((el) => {
          const s = getComputedStyle(el);
          return { transform: s.textTransform, spacing: s.letterSpacing, align: s.textAlign, white: s.whiteSpace };
        });
      expect(look).toEqual({ transform: 'none', spacing: 'normal', align: 'start', white: 'normal' });
      await screenshot(page, 'desktop-light-hostile-css');
      await page.close();

      // On a phone the window covers the screen, the page's rules notwithstanding.
      const phone = await launch({ viewport: { width: 390, height: 844 }, isMobile: true });
      try {
        const p = await phone.context.newPage();
        await p.goto(`${site.origin}/page/hostile-phone`);
        await q(p, '.bubble').click();
        await q(p, '.window').waitFor();
        expect(await q(p, '.window').boundingBox()).toEqual({ x: 0, y: 0, width: 390, height: 844 });
        await q(p, 'textarea').fill('Can I return items?');
        await q(p, 'textarea').press('Enter');
        await q(p, '.msg-ai .md', { hasText: /30 days/ }).waitFor({ timeout: 20_000 });
        await screenshot(p, 'phone-light-hostile-css');
      } finally {
        await phone.close();
      }
    },
  );

  it(
    'the escalation dialog keeps the keyboard inside it, in the floating and the inline window, and gives focus back on cancel',
    { timeout: 60_000 },
    async () => {
      const inDialog = (page: Page) =>
        page.evaluate(
          () => !!document.querySelector('[data-parley]')!.shadowRoot!.activeElement?.closest('[role="alertdialog"]'),
        );
      for (const name of ['plain', 'spa'] as const) {
        const page = await fresh(name);
        if (name === 'spa')
          await page.evaluate(() =>
            document.body.append(Object.assign(document.createElement('section'), { id: 'help' })),
          );
        else await q(page, '.bubble').click();
        await ask(page, 'Can I return items?', /30 days/);
        await q(page, '[aria-label="Talk to a person"]').click();
        await q(page, '[role="alertdialog"]').waitFor();
        for (const key of ['Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
          await page.keyboard.press(key);
          expect(await inDialog(page), `${name}: ${key}`).toBe(true);
        }
        await q(page, 'button', { hasText: 'Cancel' }).click();
        await q(page, '[role="alertdialog"]').waitFor({ state: 'detached' });
        expect(
          await page.evaluate(() =>
            document.querySelector('[data-parley]')!.shadowRoot!.activeElement?.getAttribute('aria-label'),
          ),
          name,
        ).toBe('Talk to a person');
        await page.close();
      }
    },
  );

  it(
    'no axe violations in the escalation dialog, the lead form, the e-mail code step and the conversation list',
    { timeout: 90_000 },
    async () => {
      const page = await fresh('plain');
      await q(page, '.bubble').click();
      await ask(page, 'Can I return items?', /30 days/);
      await q(page, '[aria-label="Talk to a person"]').click();
      await q(page, '[role="alertdialog"]').waitFor();
      expect(await axe(page), 'escalation dialog').toEqual([]);
      await q(page, 'button', { hasText: 'Cancel' }).click();

      await q(page, '[aria-label="Messages"]').click();
      await q(page, '.conversation').first().waitFor();
      expect(await axe(page), 'conversation list').toEqual([]);

      await q(page, '[aria-label="Account"]').click();
      await q(page, 'input[name="email"]').fill('ada@example.com');
      await q(page, 'button[type="submit"]').click();
      await q(page, 'input[name="otp"]').waitFor();
      codeOf(await inbox.next('ada@example.com'));
      expect(await axe(page), 'e-mail code').toEqual([]);
      await page.close();

      const leadBot = await chatbotWithKnowledge(app, {
        'user-data': { collectUserDetails: 'BEFORE_CONVERSATION', collectUserData: { name: true, phone: true } },
      });
      const lsite = await hostSite(app.url, leadBot, { plain: {} });
      const lead = await browser.context.newPage();
      await lead.goto(`${lsite.origin}/page/plain`);
      await q(lead, '.bubble').click();
      await q(lead, 'form.lead-form').waitFor();
      expect(await axe(lead), 'lead form').toEqual([]);
      await lead.close();
      await lsite.close();
    },
  );
});
