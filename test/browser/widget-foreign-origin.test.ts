/**
 * The widget on a page that is not in the chatbot's allowed domains, in chromium (which enforces
 * CORS): the site's developer reads in the console why there is no chat, instead of CORS errors
 * and "Failed to fetch".
 */
import type { ConsoleMessage } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chatbotWithKnowledge, startLiveApp, type LiveApp } from '../helpers/widget.js';
import { hostSite, launch, widget, type Browser, type HostSite } from './helpers.js';

let app: LiveApp;
let site: HostSite;
let browser: Browser;

beforeAll(async () => {
  app = await startLiveApp();
  const chatbotId = await chatbotWithKnowledge(app, { general: { allowedDomains: ['shop.example'] } });
  site = await hostSite(app.url, chatbotId, { plain: {} });
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await app?.close();
});

it(
  "says in the console that the site is not in the chatbot's allowed domains, with no CORS error",
  { timeout: 60_000 },
  async () => {
    const page = await browser.context.newPage();
    const messages: ConsoleMessage[] = [];
    page.on('console', (m) => messages.push(m));
    const reason = page.waitForEvent('console', {
      predicate: (m) => m.text().includes("this site is not in the chatbot's allowed domains"),
      timeout: 20_000,
    });
    await page.goto(`${site.origin}/page/plain`);
    const said = await reason;
    expect(said.text()).toContain(`add ${new URL(site.origin).host} to allowedDomains`);
    expect(said.text()).toMatch(/^parley: /);
    const texts = messages.map((m) => m.text());
    expect(texts.filter((text) => /CORS|Failed to fetch/i.test(text))).toEqual([]);
    expect(await widget(page).count()).toBe(0);
    await page.close();
  },
);
