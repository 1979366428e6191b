/**
 * The device verification page in chromium, as a person uses it: open the link the CLI prints,
 * sign in, continue with the code filled in, compare it, approve. No CSP violation under the
 * page's own strict policy, the stylesheet applied, no axe violation; screenshots in
 * test-artifacts/widget/device-*.png.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLiveApp, type LiveApp } from '../helpers/widget.js';
import { launch, screenshot, type Browser } from './helpers.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const PASSWORD = 'a passphrase for chromium';

let app: LiveApp;
let browser: Browser;
let email: string;

beforeAll(async () => {
  app = await startLiveApp();
  const account = await app.app.services.accounts.resolve();
  const owner = (await app.app.services.store.users.owner(account.id))!;
  email = owner.email;
  await app.app.services.signIn.setPassword(owner, PASSWORD);
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function axeViolations(page: import('playwright-core').Page) {
  // Injected through the devtools protocol, which the page's CSP does not govern.
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: Array<{ id: string; nodes: unknown[] }> }> };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => `${v.id} (${v.nodes.length})`);
  });
}

it(
  'sign in, continue with the code from the link, approve; the CLI side then gets its token',
  { timeout: 60_000 },
  async () => {
    const started = (
      await app.app.inject({
        method: 'POST',
        url: '/oauth/device_authorization',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'client_id=parley-cli&scope=chatbots:read%20conversations:read',
      })
    ).json();
    const page = await browser.context.newPage();
    await page.addInitScript(() => {
      (window as unknown as { __violations: string[] }).__violations = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        (window as unknown as { __violations: string[] }).__violations.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));

    await page.goto(`${app.url}/device?user_code=${started.user_code.replace('-', '')}`);
    await page.getByRole('heading', { name: 'Sign in to approve a device' }).waitFor();
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('main')!).maxWidth)).toBe('512px');
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'device-sign-in');

    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'not right' }).waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('heading', { name: 'Enter the code shown on your device' }).waitFor();
    expect(await page.getByLabel('Code').inputValue()).toBe(started.user_code.replace('-', ''));
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByRole('heading', { name: 'Parley CLI asks for access' }).waitFor();
    expect(await page.locator('.code').textContent()).toBe(started.user_code);
    expect(await page.locator('li code').allTextContents()).toEqual(['chatbots:read', 'conversations:read']);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'device-approve');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Device approved' }).waitFor();

    expect(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)).toEqual([]);
    expect(errors).toEqual([]);
    const cookies = await browser.context.cookies(`${app.url}/device`);
    expect(cookies.find((c) => c.name === 'parley_session')).toMatchObject({
      httpOnly: true,
      sameSite: 'Lax',
      path: '/',
    });

    const token = await app.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        client_id: 'parley-cli',
        device_code: started.device_code,
      }).toString(),
    });
    expect(token.statusCode).toBe(200);
    expect(token.json().scope).toBe('chatbots:read conversations:read');
  },
);
