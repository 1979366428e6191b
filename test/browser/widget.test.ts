/**
 * The widget in a real browser against the real server: the script tag on a customer page of
 * another origin, the chat with streamed answers, the team taking over through the v2 API,
 * reconnecting, strict CSP, hostile text. Screenshots of the main states: test-artifacts/widget/.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatbotWithKnowledge, startLiveApp, type LiveApp } from '../helpers/widget.js';
import { XSS_CORPUS } from '../helpers/xss-corpus.js';
import { hostSite, launch, screenshot, type Browser, type HostSite } from './helpers.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let app: LiveApp;
let chatbotId: string;
let site: HostSite;
let browser: Browser;

const STRICT_CSP = (parley: string) =>
  `default-src 'none'; script-src 'nonce-{nonce}' ${parley}; connect-src ${parley} ${parley.replace(/^http/, 'ws')}; img-src ${parley}; style-src 'self'; base-uri 'none'`;

beforeAll(async () => {
  app = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(app, {
    appearance: { welcomeMessage: 'Hi! Ask me about returns.', brandColor: '#0b6e4f', tooltip: 'Questions? Ask us' },
  });
  for (const title of ['How do refunds work?', 'Return window']) {
    const r = await app.call('POST', `/api/v2/chatbots/${chatbotId}/starters`, app.ownerToken, {
      title,
      description: title === 'Return window' ? 'How long can I return items?' : 'How do refunds work?',
    });
    if (r.status >= 300) throw new Error(`starter: ${JSON.stringify(r.body)}`);
  }
  site = await hostSite(app.url, chatbotId, {
    plain: {},
    csp: {
      csp: STRICT_CSP(app.url),
      before: `window.__violations = []; document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`,
    },
    // The server's origin in connect-src but no ws: source: chromium blocks the socket with an
    // error event and no close, and the widget must go on over Server-Sent Events.
    'csp-no-ws': {
      csp: `default-src 'none'; script-src 'nonce-{nonce}' ${app.url}; connect-src ${app.url}; img-src ${app.url}; style-src 'self'; base-uri 'none'`,
      before: `window.__violations = []; document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`,
    },
    api: {
      before: `window.parley = window.parley || []; window.__events = []; ['ready','open','close','message','escalated','unread'].forEach((n) => parley.push(['on', n, (d) => window.__events.push(n)])); parley.push(['open']);`,
    },
  });
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await app?.close();
});

async function openPage(name: string): Promise<Page> {
  const page = await browser.context.newPage();
  await page.goto(`${site.origin}/page/${name}`);
  return page;
}

const bubble = (page: Page) => page.locator('[data-parley] .bubble');
const win = (page: Page) => page.locator('[data-parley] .window');
const log = (page: Page) => page.locator('[data-parley] [role="log"]');

describe('widget in chromium', () => {
  it('the script tag on another origin shows the bubble; a click opens the window with welcome and starters; nothing stored before', async () => {
    const page = await openPage('plain');
    await bubble(page).waitFor();
    expect(await page.locator('[data-parley] .tip').textContent()).toContain('Questions? Ask us');
    expect(await page.evaluate(() => localStorage.length + document.cookie.length)).toBe(0);
    await screenshot(page, 'desktop-light-bubble');
    await bubble(page).click();
    await win(page).waitFor();
    expect(await win(page).locator('h1').textContent()).toBe('Shop');
    await log(page).getByText('Hi! Ask me about returns.').waitFor();
    await page.locator('[data-parley] button.prompt', { hasText: 'Return window' }).waitFor();
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    await screenshot(page, 'desktop-light-open');
    await page.close();
  });

  it('a starter streams an answer with sources; feedback is kept; reload brings the history back', async () => {
    const page = await openPage('plain');
    await bubble(page).click();
    await page.locator('[data-parley] button.prompt', { hasText: 'Return window' }).click();

    await log(page)
      .locator('.msg-ai .md', { hasText: /30 days/ })
      .waitFor({ timeout: 20_000 });
    expect(await page.locator('[data-parley] .sources li').first().textContent()).toBe('Returns');
    await page.locator('[data-parley] .meta [aria-label="Helpful"]').first().click();
    await screenshot(page, 'desktop-light-answer');
    await page.reload();
    await bubble(page).click();
    await log(page).getByText('How long can I return items?').waitFor();
    await log(page)
      .locator('.msg-ai .md', { hasText: /30 days/ })
      .waitFor();
    expect(await page.locator('[data-parley] .meta [aria-label="Helpful"]').first().getAttribute('aria-pressed')).toBe(
      'true',
    );
    await page.close();
  });

  it('Shift+Enter grows the input line by line (up to its limit); Enter sends every line and it shrinks back', async () => {
    const page = await openPage('plain');
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await bubble(page).click();
    const input = page.locator('[data-parley] textarea');
    await input.click();
    const height = async () => (await input.boundingBox())!.height;
    const one = await height();
    await page.keyboard.type('Three things:');
    for (const line of ['returns', 'refunds']) {
      await page.keyboard.press('Shift+Enter');
      await page.keyboard.type(line);
    }
    const three = await height();
    expect(three).toBeGreaterThan(one * 1.8);
    await screenshot(page, 'desktop-light-multiline');
    for (let i = 0; i < 12; i++) await page.keyboard.press('Shift+Enter');
    const most = await height();
    expect(most).toBeGreaterThan(three);
    expect(most).toBeLessThanOrEqual(160);
    expect(await log(page).locator('.msg-visitor').count()).toBe(0);
    for (let i = 0; i < 12; i++) await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    const sent = log(page).locator('.msg-visitor');
    await sent.waitFor();
    expect(await sent.locator('.plain').innerText()).toBe('Three things:\nreturns\nrefunds');
    await expect.poll(async () => Math.abs((await height()) - one)).toBeLessThan(1);
    await page.close();
  });

  it('the strict-CSP page works with no violation', async () => {
    const page = await openPage('csp');
    // A new visitor (the earlier tests' visitor shares this origin's storage).
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await bubble(page).click();
    const input = page.locator('[data-parley] textarea');
    await input.fill('Can I return items?');
    await input.press('Enter');
    await log(page)
      .locator('.msg-ai .md', { hasText: /30 days/ })
      .waitFor({ timeout: 20_000 });
    // The window's stylesheet applied (a brand-coloured header), with no inline style allowed.
    const bg = await page.locator('[data-parley] .header').evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(bg).toBe('rgb(11, 110, 79)');
    expect(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)).toEqual([]);
    await page.close();
  });

  it('a CSP that allows the server in connect-src but not ws: answers over Server-Sent Events', async () => {
    const page = await openPage('csp-no-ws');
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await bubble(page).click();
    const input = page.locator('[data-parley] textarea');
    await input.fill('Can I return items?');
    await input.press('Enter');
    await log(page)
      .locator('.msg-ai .md', { hasText: /30 days/ })
      .waitFor({ timeout: 20_000 });
    expect(await page.locator('[data-parley] .banner').count()).toBe(0);
    const violations = await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
    // The socket was tried and blocked, and nothing else was.
    expect(violations.length).toBeGreaterThan(0);
    expect(violations.every((v) => v.startsWith('connect-src ws://'))).toBe(true);
    await screenshot(page, 'desktop-light-csp-no-ws');
    await page.close();
  });

  it('a wrong data-chatbot-id: no bubble and one console error naming the id', async () => {
    const wrong = await hostSite(app.url, 'no_such_bot', { plain: {} });
    try {
      const page = await browser.context.newPage();
      const logged: string[] = [];
      page.on('console', (m) => logged.push(`${m.type()} ${m.text()}`));
      await page.goto(`${wrong.origin}/page/plain`);
      await expect.poll(() => logged.filter((l) => l.includes('parley')).length).toBe(1);
      expect(logged.find((l) => l.includes('parley'))).toBe(
        `error parley: widget not shown: no chatbot with the id "no_such_bot" on ${app.url} (data-chatbot-id of the widget.js script tag)`,
      );
      expect(await bubble(page).count()).toBe(0);
      await page.close();
    } finally {
      await wrong.close();
    }
  });

  it('host-page API: a queue before the script, events, close returns focus to the bubble', async () => {
    const page = await openPage('api');
    await win(page).waitFor();
    await page.evaluate(() => (window as unknown as { parley: { push(c: unknown[]): void } }).parley.push(['close']));
    await win(page).waitFor({ state: 'detached' });
    const events = await page.evaluate(() => (window as unknown as { __events: string[] }).__events);
    expect(events).toEqual(expect.arrayContaining(['ready', 'open', 'close']));
    await page.close();
  });

  it('hostile text in answers, agent replies and starter titles runs nothing', { timeout: 60_000 }, async () => {
    const hostile = await chatbotWithKnowledge(app);
    await app.call('POST', `/api/v2/chatbots/${hostile}/starters`, app.ownerToken, {
      title: XSS_CORPUS[1],
      description: XSS_CORPUS[0],
    });
    const xsite = await hostSite(app.url, hostile, { plain: {} });
    const page = await browser.context.newPage();
    await page.goto(`${xsite.origin}/page/plain`);
    await bubble(page).click();
    await page.locator('[data-parley] button.prompt').first().click();
    await log(page).locator('.msg-ai').nth(1).waitFor({ timeout: 20_000 });
    const conversations = await app.call('GET', `/api/v2/chatbots/${hostile}/conversations`, app.ownerToken);
    const threadId =
      conversations.body.data.conversations?.[0]?.threadId ?? conversations.body.data.threads?.[0]?.threadId;
    for (const text of XSS_CORPUS.slice(0, 8)) {
      const r = await app.call(
        'POST',
        `/api/v2/chatbots/${hostile}/conversations/${threadId}/replies`,
        app.ownerToken,
        { message: text },
      );
      expect(r.status).toBe(201);
    }
    await log(page).locator('.msg-agent').nth(7).waitFor();
    await screenshot(page, 'desktop-light-hostile');
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('[data-parley] .window img:not(.header-icon):not(.avatar img)').count()).toBe(0);
    await page.close();
    await xsite.close();
  });
  it(
    'escalation through the dialog; a take-over and an agent reply made through the API appear live; handed back, the AI answers again',
    { timeout: 60_000 },
    async () => {
      const page = await openPage('plain');
      await page.evaluate(() => localStorage.clear());
      await page.reload();
      await bubble(page).click();
      const input = page.locator('[data-parley] textarea');
      await input.fill('Can I return items?');
      await input.press('Enter');
      await log(page)
        .locator('.msg-ai .md', { hasText: /30 days/ })
        .waitFor({ timeout: 20_000 });
      await page.locator('[data-parley] [aria-label="Talk to a person"]').click();
      await page.locator('[data-parley] [role="alertdialog"]').waitFor();
      await screenshot(page, 'desktop-light-escalation-dialog');
      await page.locator('[data-parley] button', { hasText: 'Yes, continue' }).click();
      await log(page).locator('.notice-escalated').waitFor();
      const list = await app.call('GET', `/api/v2/chatbots/${chatbotId}/conversations`, app.ownerToken);
      const thread = list.body.data.conversations.find((c: { escalated: boolean }) => c.escalated);
      const base = `/api/v2/chatbots/${chatbotId}/conversations/${thread.threadId}`;
      expect((await app.call('POST', `${base}/take-over`, app.ownerToken)).status).toBe(200);
      await log(page).locator('.notice-taken_over').waitFor();
      expect(
        (await app.call('POST', `${base}/replies`, app.ownerToken, { message: 'Hi, I am **here** to help.' })).status,
      ).toBe(201);
      await log(page).locator('.msg-agent', { hasText: 'Hi, I am here to help.' }).waitFor();
      await screenshot(page, 'desktop-light-agent');
      expect((await app.call('POST', `${base}/switch-to-ai`, app.ownerToken)).status).toBe(200);
      await log(page).locator('.notice-released').waitFor();
      await input.fill('Is shipping back free?');
      await input.press('Enter');
      // The welcome, the first answer, then this one.
      await log(page)
        .locator('.msg-ai')
        .nth(2)
        .locator('.md', { hasText: /free for members/ })
        .waitFor({ timeout: 20_000 });
      await page.close();
    },
  );

  it(
    'network dropped mid-answer: reconnects, nothing lost or repeated; a message typed offline is sent once',
    { timeout: 60_000 },
    async () => {
      const page = await browser.context.newPage();
      let cut = false;
      let refuse = false;
      await page.routeWebSocket(/\/api\/widget\/ws/, (ws) => {
        if (refuse) return void ws.close({ code: 1006 });
        const server = ws.connectToServer();
        ws.onMessage((m) => server.send(m));
        server.onMessage((m) => {
          if (cut && String(m).includes('"answer.delta"')) {
            cut = false;
            refuse = true;
            ws.close({ code: 1006 });
            server.close();
            return;
          }
          ws.send(m);
        });
      });
      await page.goto(`${site.origin}/page/plain`);
      await page.evaluate(() => localStorage.clear());
      await page.reload();
      await bubble(page).click();
      const input = page.locator('[data-parley] textarea');
      await input.fill('Can I return items?');
      cut = true;
      await input.press('Enter');
      // The offline banner (not the "Connecting…" one shown while the first message waits for the socket).
      await page.locator('[data-parley] .banner', { hasText: 'You are offline' }).waitFor();
      await input.fill('Is shipping back free?');
      await input.press('Enter');
      await screenshot(page, 'desktop-light-offline');
      refuse = false;
      // The welcome and one answer to each question, each visitor message once.
      await log(page)
        .locator('.msg-ai')
        .nth(2)
        .locator('.md', { hasText: /free for members/ })
        .waitFor({ timeout: 30_000 });
      expect(await log(page).locator('.msg-ai').nth(1).textContent()).toContain('30 days');
      await page.waitForTimeout(500);
      expect(await log(page).locator('.msg-ai').count()).toBe(3);
      expect(await log(page).locator('.streaming').count()).toBe(0);
      expect(await log(page).locator('.msg-visitor', { hasText: 'Can I return items?' }).count()).toBe(1);
      expect(await log(page).locator('.msg-visitor', { hasText: 'Is shipping back free?' }).count()).toBe(1);
      await page.locator('[data-parley] .banner').waitFor({ state: 'detached' });
      await page.close();
    },
  );

  it(
    'right to left and a non-English locale; phone and dark screenshots; no axe violations',
    { timeout: 60_000 },
    async () => {
      // The texts a chatbot starts with are left untouched: the widget writes them in German.
      const rtl = await chatbotWithKnowledge(app, {
        appearance: { rtl: true },
        localization: { localization: { locale: 'de' } },
      });
      const rsite = await hostSite(app.url, rtl, { plain: {} });
      const page = await browser.context.newPage();
      await page.goto(`${rsite.origin}/page/plain`);
      expect(await page.locator('[data-parley] .tip').textContent()).toContain(
        'Hallo! Wie kann ich Ihnen heute helfen?',
      );
      expect(await bubble(page).getAttribute('aria-label')).toBe('Chat öffnen: Shop');
      await screenshot(page, 'desktop-light-rtl-de-bubble');
      await bubble(page).click();
      await win(page).waitFor();
      expect(await win(page).getAttribute('dir')).toBe('rtl');
      await page.locator('[data-parley] [aria-label="Chat schließen"]').waitFor();
      await log(page).getByText('Hallo! Wie kann ich Ihnen heute helfen?').waitFor();
      expect(await page.locator('[data-parley] textarea').getAttribute('placeholder')).toBe('Stellen Sie eine Frage…');
      expect(await page.locator('[data-parley] .watermark').textContent()).toBe('Bereitgestellt von Parley');
      expect(await win(page).textContent()).not.toMatch(/Ask a question|Powered by|How can I help/);
      await screenshot(page, 'desktop-light-rtl-de');
      await page.close();
      await rsite.close();

      for (const scheme of ['light', 'dark'] as const) {
        const phone = await launch({ colorScheme: scheme, viewport: { width: 390, height: 844 }, isMobile: true });
        const p = await phone.context.newPage();
        await p.goto(`${site.origin}/page/plain`);
        await bubble(p).waitFor();
        await screenshot(p, `phone-${scheme}-bubble`);
        await bubble(p).click();
        await win(p).waitFor();
        const input = p.locator('[data-parley] textarea');
        await input.fill('Can I return items?');
        await input.press('Enter');
        await log(p)
          .locator('.msg-ai .md', { hasText: /30 days/ })
          .waitFor({ timeout: 20_000 });
        await screenshot(p, `phone-${scheme}-answer`);
        await p.addScriptTag({ content: AXE });
        const violations = await p.evaluate(async () => {
          const axe = (
            window as unknown as {
              axe: {
                run(ctx: unknown, opts: unknown): Promise<{ violations: Array<{ id: string; nodes: unknown[] }> }>;
              };
            }
          ).axe;
          const result = await axe.run({ include: [['[data-parley]']] }, { resultTypes: ['violations'] });
          return result.violations.map((v) => `${v.id} (${v.nodes.length})`);
        });
        expect(violations, scheme).toEqual([]);
        await phone.close();
      }
    },
  );
  it(
    'bubble settings (size, side, distances, no tooltip), auto-open on desktop, focus back to the bubble on close, full screen',
    { timeout: 60_000 },
    async () => {
      const styled = await chatbotWithKnowledge(app, {
        appearance: {
          iconSize: 'LARGE',
          iconPosition: 'BOTTOM_LEFT',
          distanceFromBottom: 40,
          horizontalDistance: 30,
          hideTooltip: true,
          autoOpenChatWindowInDesktop: 'ALWAYS_OPEN_WITH_DELAY',
          autoOpenChatWindowDelayInDesktop: 300,
        },
      });
      const ssite = await hostSite(app.url, styled, { plain: {} });
      const page = await browser.context.newPage();
      await page.goto(`${ssite.origin}/page/plain`);
      const box = (await bubble(page).boundingBox())!;
      expect(box.width).toBe(72);
      expect(box.x).toBe(30);
      expect(800 - (box.y + box.height)).toBe(40);
      expect(await page.locator('[data-parley] .tip').count()).toBe(0);
      // Opened by the delay alone; a page view stores nothing.
      await win(page).waitFor();
      expect(await page.evaluate(() => localStorage.length)).toBe(0);
      await page.locator('[data-parley] [aria-label="Full screen"]').click();
      const full = (await win(page).boundingBox())!;
      expect(full.width).toBeGreaterThan(1200);
      await page.keyboard.press('Escape');
      await win(page).waitFor({ state: 'detached' });
      expect(
        await page.evaluate(() => document.querySelector('[data-parley]')!.shadowRoot!.activeElement?.className),
      ).toBe('bubble');
      await page.close();
      await ssite.close();
    },
  );

  it(
    'auto-open follows the phone setting on a phone and the desktop setting on a desktop',
    { timeout: 60_000 },
    async () => {
      const mobileOnly = await chatbotWithKnowledge(app, {
        appearance: {
          autoOpenChatWindowInMobile: 'ALWAYS_OPEN_WITH_DELAY',
          autoOpenChatWindowDelayInMobile: 200,
          autoOpenChatWindowInDesktop: 'DONT_OPEN',
        },
      });
      const msite = await hostSite(app.url, mobileOnly, { plain: {} });
      const phone = await launch({ viewport: { width: 390, height: 844 }, isMobile: true });
      try {
        const p = await phone.context.newPage();
        await p.goto(`${msite.origin}/page/plain`);
        await win(p).waitFor();
        // Full screen on the phone, the bubble hidden behind it.
        expect((await win(p).boundingBox())!.height).toBe(844);
        expect(await bubble(p).isVisible()).toBe(false);
      } finally {
        await phone.close();
      }
      const desk = await browser.context.newPage();
      await desk.goto(`${msite.origin}/page/plain`);
      await bubble(desk).waitFor();
      // Well past the phone's delay, the desktop window stays closed.
      await desk.waitForTimeout(1000);
      expect(await win(desk).count()).toBe(0);
      await desk.close();
      await msite.close();
    },
  );
});
