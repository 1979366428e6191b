/**
 * The playground at /demo in chromium: a pasted token, controls that save the chatbot's
 * appearance and redraw the real widget, the contrast warning, and the agent console taking a
 * conversation over and replying, seen live in the widget on the same page.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chatbotWithKnowledge, startLiveApp, type LiveApp } from '../helpers/widget.js';
import { launch, screenshot, type Browser } from './helpers.js';

let app: LiveApp;
let chatbotId: string;
let browser: Browser;

beforeAll(async () => {
  app = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(app);
  browser = await launch({ viewport: { width: 1280, height: 1000 } });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

it('themes the real widget, warns on low contrast, and runs the agent console', { timeout: 90_000 }, async () => {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${app.url}/demo?chatbot=${chatbotId}`);
  await page.getByLabel(/API token/).fill(app.ownerToken);
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.locator('[data-parley] .bubble').waitFor();
  expect(await page.locator('.snippet').textContent()).toContain(`data-chatbot-id="${chatbotId}"`);

  await page.getByLabel('brandColor').fill('#dddddd');
  await page.getByText(/contrast is/).waitFor();
  await page.getByLabel('brandColor').fill('#7b1fa2');
  await page.getByLabel('welcomeMessage').fill('Welcome to the themed shop');
  await page.getByRole('button', { name: 'Apply to the preview' }).click();
  await page.getByText('Saved').waitFor();
  await page.locator('[data-parley] .bubble').click();
  await page.locator('[data-parley] .msg-ai', { hasText: 'Welcome to the themed shop' }).waitFor();
  expect(await page.locator('[data-parley] .header').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(123, 31, 162)');

  const input = page.locator('[data-parley] textarea');
  await input.fill('Can I return items?');
  await input.press('Enter');
  await page.locator('[data-parley] .msg-ai').nth(1).waitFor({ timeout: 20_000 });
  await page.locator('.threads button').first().waitFor();
  await page.locator('.threads button').first().click();
  await page.getByRole('button', { name: 'Take over' }).click();
  await page.locator('[data-parley] .notice-taken_over').waitFor();
  await page.getByLabel('Reply').fill('Hello from the console');
  await page.locator('.thread form button[type="submit"]').click();
  await page.locator('[data-parley] .msg-agent', { hasText: 'Hello from the console' }).waitFor();
  await page.getByRole('button', { name: 'Resolve' }).click();
  await page.locator('[data-parley] .notice-resolved').waitFor();
  await screenshot(page, 'demo-playground');
  expect(errors).toEqual([]);
});
