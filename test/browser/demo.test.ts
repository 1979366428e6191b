/**
 * The playground at /demo in chromium: a pasted token; controls that redraw the real widget at
 * once without saving, Reset that drops the changes, Apply that saves them to the chatbot; the
 * contrast warning; and the agent console taking a conversation over and replying, seen live
 * in the widget on the same page.
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

const header = (page: import('playwright-core').Page) =>
  page.locator('[data-parley] .header').evaluate((el) => getComputedStyle(el).backgroundColor);

it(
  'previews unsaved settings in the real widget, resets and applies them, warns on low contrast, and runs the agent console',
  { timeout: 90_000 },
  async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${app.url}/demo?chatbot=${chatbotId}`);
    await page.getByLabel(/API token/).fill(app.ownerToken);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.locator('[data-parley] .bubble').waitFor();
    expect(await page.locator('.snippet').textContent()).toContain(`data-chatbot-id="${chatbotId}"`);
    // The snippet carries the saved bubble's look (widget/loader/snippet-look.ts).
    await expect
      .poll(() => page.locator('.snippet').textContent())
      .toContain('data-bubble="#1f6feb,#ffffff,R,20,20,M"');
    // Kept at the browser's normal script priority, and never blocking the page (embedSnippet).
    expect(await page.locator('.snippet').textContent()).toMatch(/ fetchpriority="high" async><\/script>$/);

    const saved = async () =>
      (await app.call('GET', `/api/v2/chatbots/${chatbotId}`, app.ownerToken)).body.data.chatbot.settings;
    const before = await saved();
    expect(await page.getByRole('button', { name: 'Apply' }).isDisabled()).toBe(true);
    await page.locator('[data-parley] .bubble').click();
    await page.locator('[data-parley] .msg-ai', { hasText: 'Hi! How can I help you today?' }).waitFor();

    // A change shows in the open widget at once, and is not saved.
    await page.getByRole('textbox', { name: 'Brand colour', exact: true }).fill('#dddddd');
    await page.getByText(/hard to read/).waitFor();
    await page.getByRole('textbox', { name: 'Brand colour', exact: true }).fill('#7b1fa2');
    await page.getByLabel('Welcome message').fill('Welcome to the themed shop');
    await page.locator('[data-parley] .msg-ai', { hasText: 'Welcome to the themed shop' }).waitFor();
    await expect.poll(() => header(page)).toBe('rgb(123, 31, 162)');
    await page.getByText(/Unsaved changes/).waitFor();
    expect(await saved()).toEqual(before);
    await screenshot(page, 'demo-preview-unsaved');

    // Reset: the saved settings again, in the controls and the widget.
    await page.getByRole('button', { name: 'Reset' }).click();
    await page.locator('[data-parley] .msg-ai', { hasText: 'Hi! How can I help you today?' }).waitFor();
    await expect.poll(() => header(page)).toBe('rgb(31, 111, 235)');
    expect(await page.getByRole('textbox', { name: 'Brand colour', exact: true }).inputValue()).toBe('#1f6feb');
    expect(await page.getByLabel('Welcome message').inputValue()).toBe('Hi! How can I help you today?');

    // The locale previews the widget's own German text for the untouched defaults.
    await page.locator('select:has(option[value="da"])').selectOption('de');
    await page.locator('[data-parley] .msg-ai', { hasText: 'Hallo! Wie kann ich Ihnen heute helfen?' }).waitFor();
    expect(await page.locator('[data-parley] textarea').getAttribute('placeholder')).toBe('Stellen Sie eine Frage…');
    await page.getByRole('button', { name: 'Reset' }).click();
    await page.locator('[data-parley] .msg-ai', { hasText: 'Hi! How can I help you today?' }).waitFor();

    // Apply saves to the chatbot; the widget then draws from the server.
    await page.getByRole('textbox', { name: 'Brand colour', exact: true }).fill('#7b1fa2');
    await page.getByLabel('Welcome message').fill('Welcome to the themed shop');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Saved').waitFor();
    await expect
      .poll(() => page.locator('.snippet').textContent())
      .toContain('data-bubble="#7b1fa2,#ffffff,R,20,20,M"');
    expect(await saved()).toMatchObject({
      ...before,
      brandColor: '#7b1fa2',
      welcomeMessage: 'Welcome to the themed shop',
    });
    expect((await app.call('GET', `/api/widget/${chatbotId}/config`)).body.data.appearance).toMatchObject({
      brandColor: '#7b1fa2',
      welcomeMessage: 'Welcome to the themed shop',
    });
    expect(await page.evaluate(() => 'parleyPreview' in window)).toBe(false);
    await page.locator('[data-parley] .msg-ai', { hasText: 'Welcome to the themed shop' }).waitFor();
    await expect.poll(() => header(page)).toBe('rgb(123, 31, 162)');
    expect(await page.getByRole('button', { name: 'Apply' }).isDisabled()).toBe(true);

    const input = page.locator('[data-parley] textarea');
    await input.fill('Can I return items?');
    await input.press('Enter');
    await page.locator('[data-parley] .msg-ai').nth(1).waitFor({ timeout: 20_000 });
    await page.locator('.threads button').first().waitFor();
    await page.locator('.threads button').first().click();
    await page.getByRole('button', { name: 'Take over' }).click();
    await page.locator('[data-parley] .notice-taken_over').waitFor();
    await page.getByLabel('Reply', { exact: true }).fill('Hello from the console');
    await page.locator('.thread form button[type="submit"]').click();
    await page.locator('[data-parley] .msg-agent', { hasText: 'Hello from the console' }).waitFor();
    await page.getByRole('button', { name: 'Resolve' }).click();
    await page.locator('[data-parley] .notice-resolved').waitFor();
    await screenshot(page, 'demo-playground');
    expect(errors).toEqual([]);
  },
);
