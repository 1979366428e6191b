/**
 * The embed snippet carrying the bubble's look (`data-bubble`, widget/loader/snippet-look.ts): the
 * bubble shows while the chatbot's settings are still on their way (held back here), the settings
 * then restyle that same bubble when the snippet is stale, an invalid attribute is ignored, and a
 * snippet matching the settings draws exactly what the plain snippet draws (same pixels).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatbotWithKnowledge, startLiveApp, type LiveApp } from '../helpers/widget.js';
import { hostSite, launch, screenshot, type Browser, type HostSite } from './helpers.js';

let app: LiveApp;
let chatbotId: string;
let site: HostSite;
let browser: Browser;

// The chatbot's settings: the defaults (blue, right, 20/20, medium) with a tooltip.
const MATCHING = '#1f6feb,#ffffff,R,20,20,M';

beforeAll(async () => {
  app = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(app, { appearance: { tooltip: 'Questions? Ask us' } });
  site = await hostSite(app.url, chatbotId, {
    plain: {},
    stale: { attrs: { 'data-bubble': '#7b1fa2,#ffffff,L,40,30,L' } },
    matching: { attrs: { 'data-bubble': MATCHING } },
    invalid: { attrs: { 'data-bubble': '#7b1fa2;background:red,#fff,L,40,30,L' } },
  });
  browser = await launch();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await app?.close();
});

const bubble = (page: Page) => page.locator('[data-parley] .bubble');
const tip = (page: Page) => page.locator('[data-parley] .tip');
const background = (page: Page) => bubble(page).evaluate((el) => getComputedStyle(el).backgroundColor);

/** Opens a page with the settings request held until `release()` is called. */
async function heldBack(name: string, b: Browser = browser) {
  const page = await b.context.newPage();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let asked = 0;
  await page.route(`${app.url}/api/widget/${chatbotId}/config`, async (route) => {
    asked++;
    await released;
    await route.continue();
  });
  await page.goto(`${site.origin}/page/${name}`);
  return { page, release, asked: () => asked };
}

describe('data-bubble on the script tag', () => {
  it('draws the bubble before the settings arrive, then a stale look is restyled in place by the settings', async () => {
    const { page, release, asked } = await heldBack('stale');
    await bubble(page).waitFor({ timeout: 10_000 });
    expect(asked()).toBe(1);
    // The snippet's look: purple, left, 30 px from the side, 40 from the bottom, large.
    expect(await background(page)).toBe('rgb(123, 31, 162)');
    let box = (await bubble(page).boundingBox())!;
    expect(box).toMatchObject({ x: 30, width: 72 });
    expect(800 - (box.y + box.height)).toBe(40);
    // The tooltip is the server's text: it waits for the settings. Nothing stored before interaction.
    expect(await tip(page).count()).toBe(0);
    expect(await page.evaluate(() => localStorage.length + sessionStorage.length + document.cookie.length)).toBe(0);
    await screenshot(page, 'desktop-light-snippet-bubble-held');
    await bubble(page).evaluate((el) => ((el as HTMLElement & { __seen?: boolean }).__seen = true));

    release();
    await tip(page).waitFor();
    expect(await tip(page).textContent()).toContain('Questions? Ask us');
    // The same bubble, in the settings' look: blue, right, 20/20, medium.
    expect(await background(page)).toBe('rgb(31, 111, 235)');
    box = (await bubble(page).boundingBox())!;
    expect(box.width).toBe(60);
    expect(1280 - (box.x + box.width)).toBe(20);
    expect(800 - (box.y + box.height)).toBe(20);
    expect(await page.locator('[data-parley]').count()).toBe(1);
    expect(await bubble(page).count()).toBe(1);
    expect(await bubble(page).evaluate((el) => (el as HTMLElement & { __seen?: boolean }).__seen)).toBe(true);
    expect(await bubble(page).getAttribute('aria-label')).toBe('Open chat: Shop');
    expect(await page.evaluate(() => localStorage.length + sessionStorage.length + document.cookie.length)).toBe(0);
    await screenshot(page, 'desktop-light-snippet-bubble-restyled');

    // It still opens the chat.
    await bubble(page).click();
    await page.locator('[data-parley] .window').waitFor();
    await page.close();
  });

  it('ignores an invalid attribute: no bubble until the settings, then the settings\' bubble', async () => {
    const { page, release } = await heldBack('invalid');
    await page.waitForLoadState('load');
    // widget.js has run (its settings request is held) and drew nothing.
    await expect.poll(() => page.evaluate(() => typeof (window as { parley?: { loaded?: boolean } }).parley?.loaded)).toBe('boolean');
    expect(await page.locator('[data-parley]').count()).toBe(0);
    release();
    await tip(page).waitFor();
    expect(await background(page)).toBe('rgb(31, 111, 235)');
    expect(1280 - ((await bubble(page).boundingBox())!.x + 60)).toBe(20);
    await page.close();
  });

  it('a snippet matching the settings draws exactly the plain snippet\'s pixels, on desktop and on a phone', { timeout: 60_000 }, async () => {
    const phone = await launch({ viewport: { width: 390, height: 844 }, isMobile: true });
    try {
      for (const [device, b] of [['desktop', browser], ['phone', phone]] as const) {
        const shots: Buffer[] = [];
        for (const name of ['plain', 'matching']) {
          const page = await b.context.newPage();
          await page.goto(`${site.origin}/page/${name}`);
          await tip(page).waitFor();
          shots.push(await page.screenshot());
          await screenshot(page, `${device}-light-snippet-bubble-${name}`);
          await page.close();
        }
        expect(shots[1].equals(shots[0])).toBe(true);
      }
    } finally {
      await phone.close();
    }
  });
});
