/**
 * The console's Appearance & behaviour page in chromium, against the real server: the brand colour
 * changes the real widget in the preview before anything is saved; Save makes the public widget
 * config carry it; a starter added in the page shows in the preview; the phone frame, light and
 * dark; axe finds nothing; no page error or CSP violation.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  axeViolations,
  CONSOLE_ARTIFACTS,
  consoleScreenshots,
  startConsole,
  type ConsoleHarness,
} from './console-helpers.js';

let h: ConsoleHarness;
beforeAll(async () => {
  h = await startConsole();
}, 120_000);
afterAll(() => h?.close());

it(
  'previews an unsaved brand colour, saves it into the widget config, adds a starter, frames a phone',
  { timeout: 90_000 },
  async () => {
    const chatbotId = await h.createChatbot('Garden shop');
    const { page, problems, close } = await h.open({ path: `/console/${chatbotId}/appearance` });
    await page.getByRole('heading', { name: 'Appearance & behaviour', level: 1 }).waitFor();
    const preview = () => page.frameLocator('.ap-stage iframe.shown');
    const header = () =>
      preview()
        .locator('[data-parley] .header')
        .evaluate((el) => getComputedStyle(el).backgroundColor);
    await expect.poll(header, { timeout: 15_000 }).toBe('rgb(31, 111, 235)');
    const widgetConfig = async () => (await h.app.call('GET', `/api/widget/${chatbotId}/config`)).body.data;

    // A low-contrast pair is warned about; the colour shows in the preview before saving.
    const brand = page.getByRole('textbox', { name: 'Brand colour', exact: true });
    await brand.fill('#dddddd');
    await page
      .getByRole('alert')
      .filter({ hasText: /hard to read/ })
      .waitFor();
    await brand.fill('#7b1fa2');
    await expect.poll(header, { timeout: 15_000 }).toBe('rgb(123, 31, 162)');
    // The preview redrawn and opened never takes the focus from the field being edited (it did,
    // and the next keys typed went into the preview's composer).
    expect(await brand.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.getByText('1 unsaved change').waitFor();
    expect((await widgetConfig()).appearance.brandColor).toBe('#1f6feb');

    // Saved: the public widget config (what visitors load) carries it.
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText(/^Saved\./).waitFor();
    expect((await widgetConfig()).appearance.brandColor).toBe('#7b1fa2');
    await page.getByText('All changes saved').waitFor();

    // A starter added in the list shows in the preview at once.
    await page.getByRole('button', { name: 'Messages' }).click();
    const starters = page.getByRole('region', { name: 'Conversation starters' });
    await starters.getByText('Add: Conversation starters').click();
    await starters.getByLabel('Button text').fill('Delivery times');
    await starters.getByLabel('Message sent').fill('How long does delivery take?');
    await starters.getByRole('button', { name: 'Add', exact: true }).click();
    await starters.getByRole('listitem').filter({ hasText: 'Delivery times' }).waitFor();
    await preview().locator('[data-parley] button', { hasText: 'Delivery times' }).waitFor({ timeout: 15_000 });
    expect((await widgetConfig()).starters.map((s: { title: string }) => s.title)).toEqual(['Delivery times']);

    // A second one, moved above the first: the order visitors get follows.
    await starters.getByLabel('Button text').fill('Returns');
    await starters.getByLabel('Message sent').fill('How do returns work?');
    await starters.getByRole('button', { name: 'Add', exact: true }).click();
    await starters.getByRole('button', { name: 'Move up: Returns' }).click();
    await expect
      .poll(async () => (await widgetConfig()).starters.map((s: { title: string }) => s.title))
      .toEqual(['Returns', 'Delivery times']);

    // The identity secret is made and shown once.
    await page.getByRole('button', { name: 'Identity verification' }).click();
    await page.getByRole('button', { name: 'Make a secret' }).click();
    expect((await page.getByLabel('Identity secret').inputValue()).length).toBeGreaterThan(20);
    const identity = await h.app.call('GET', `/api/v2/chatbots/${chatbotId}/identity-secret`, h.app.ownerToken);
    expect(identity.body.data.identitySecret.configured).toBe(true);
    await page.getByRole('button', { name: 'Messages' }).click();

    expect(await axeViolations(page)).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await consoleScreenshots(page, 'appearance');

    // The phone frame, light and dark.
    await page.getByRole('button', { name: 'Phone' }).click();
    await preview().locator('[data-parley] button', { hasText: 'Delivery times' }).waitFor({ timeout: 15_000 });
    mkdirSync(CONSOLE_ARTIFACTS, { recursive: true });
    await page
      .locator('.ap-device')
      .screenshot({ path: join(CONSOLE_ARTIFACTS, 'appearance-preview-phone-light.png') });
    await page.getByRole('button', { name: 'Dark' }).click();
    await page.locator('.ap-stage iframe.shown[data-theme="dark"]').waitFor({ timeout: 15_000 });
    await preview().locator('[data-parley] button', { hasText: 'Delivery times' }).waitFor({ timeout: 15_000 });
    await page.locator('.ap-device').screenshot({ path: join(CONSOLE_ARTIFACTS, 'appearance-preview-phone-dark.png') });

    expect(problems).toEqual([]);
    await close();
  },
);

it('works right to left in Arabic and dark: adds an allowed domain and saves it', { timeout: 60_000 }, async () => {
  const chatbotId = await h.createChatbot('Arabic shop');
  const { page, problems, close } = await h.open({
    path: `/console/${chatbotId}/appearance`,
    locale: 'ar',
    colorScheme: 'dark',
  });
  await page.getByRole('heading', { name: 'المظهر والسلوك', level: 1 }).waitFor();
  expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
  await page.getByRole('button', { name: 'النطاقات المسموح بها' }).click();
  await page.getByLabel('النطاق المراد إضافته').fill('https://Shop.Example.com/pricing');
  await page.getByRole('button', { name: 'إضافة نطاق' }).click();
  // Pasted addresses keep their host only, as the API stores it.
  await page.getByText('shop.example.com', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'حفظ التغييرات' }).click();
  await page.getByText(/^تم الحفظ\./).waitFor();
  const settings = (await h.app.call('GET', `/api/v2/chatbots/${chatbotId}/settings`, h.app.ownerToken)).body.data
    .settings;
  expect(settings.allowedDomains).toEqual(['shop.example.com']);
  await page.locator('.ap-stage iframe.shown[data-theme="dark"]').waitFor({ timeout: 15_000 });
  expect(await axeViolations(page)).toEqual([]);
  await page.evaluate(() => window.scrollTo(0, 0));
  await consoleScreenshots(page, 'appearance-ar');
  expect(problems).toEqual([]);
  await close();
});
