/**
 * The console's shell in chromium against the real server: sign in through the form (a wrong
 * password said in words), the chatbot list (create, switch, rename, delete after typing the
 * name), a member who sees only their chatbot and no owner's buttons, another language on
 * demand, a session ended elsewhere. axe finds nothing; screenshots in test-artifacts/console/.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLiveApp } from '../helpers/widget.js';
import {
  axeViolations,
  consoleScreenshots,
  PASSWORD,
  signInThroughForm,
  startConsole,
  watchProblems,
  type ConsoleHarness,
} from './console-helpers.js';

let h: ConsoleHarness;

beforeAll(async () => {
  h = await startConsole();
}, 120_000);
afterAll(() => h?.close());

it(
  'signs in through the form: a wrong password is refused in words, then the chatbot list',
  { timeout: 60_000 },
  async () => {
    const context = await h.browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    const res = await page.goto(`${h.app.url}/console`);
    expect(res?.headers()['content-security-policy']).toMatch(/script-src 'self'/);
    await page.getByRole('heading', { name: 'Sign in to Parley' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'sign-in');

    await page.getByLabel('E-mail').fill(h.owner.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'do not match' }).waitFor();

    await signInThroughForm(page, h.owner);
    // No chatbot yet: the list, with what to do first.
    await page.waitForURL(/\/console\/chatbots$/);
    await page.getByText('No chatbots yet. Create the first one').waitFor();
    const cookies = await context.cookies(h.app.url);
    expect(cookies.find((c) => c.name === 'parley_session')).toMatchObject({
      httpOnly: true,
      sameSite: 'Lax',
      path: '/',
    });
    expect(problems).toEqual([]);
    await context.close();
  },
);

it('creates, switches, renames and deletes chatbots', { timeout: 60_000 }, async () => {
  const { page, problems, close } = await h.open();
  await page.waitForURL(/\/console\/chatbots$/);
  await page.getByLabel('Name', { exact: true }).fill('Garden shop');
  await page.getByRole('button', { name: 'Create chatbot' }).click();
  await page.getByRole('status').filter({ hasText: 'Garden shop was created.' }).waitFor();
  await page.getByLabel('Name', { exact: true }).fill('Bike repairs');
  await page.getByRole('button', { name: 'Create chatbot' }).click();
  await page.getByRole('heading', { name: 'Bike repairs' }).waitFor();
  // The switcher lists both, newest first; the one made last is selected.
  const switcher = page.getByRole('combobox', { name: 'Chatbot' });
  expect(await switcher.locator('option').allTextContents()).toEqual(['Bike repairs', 'Garden shop']);
  expect(await switcher.inputValue()).toBe(
    (await h.app.call('GET', '/api/v2/chatbots', h.app.ownerToken)).body.data.chatbots[0].id,
  );
  // Switch from the list: Garden shop opens at its first page and is selected in the header.
  const garden = (await h.app.call('GET', '/api/v2/chatbots', h.app.ownerToken)).body.data.chatbots.find(
    (c: { title: string }) => c.title === 'Garden shop',
  ).id;
  await page.getByRole('button', { name: 'Open: Garden shop' }).click();
  await page.waitForURL(new RegExp(`/console/${garden}/[a-z-]+$`));
  expect(await switcher.locator('option:checked').textContent()).toBe('Garden shop');
  // Back on the list it is the selected one.
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Chatbots' }).click();
  await page.locator('.chatbot-row.selected').getByRole('heading', { name: 'Garden shop' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await consoleScreenshots(page, 'chatbots');

  // Rename in place.
  await page.getByRole('button', { name: 'Rename: Garden shop' }).click();
  await page.getByLabel('New name for Garden shop').fill('Garden centre');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('heading', { name: 'Garden centre' }).waitFor();
  const listed = await h.app.call('GET', '/api/v2/chatbots', h.app.ownerToken);
  expect(listed.body.data.chatbots.map((c: { title: string }) => c.title).sort()).toEqual([
    'Bike repairs',
    'Garden centre',
  ]);

  // Delete: the button stays off until the name is typed.
  await page.getByRole('button', { name: 'Delete: Bike repairs' }).click();
  const confirm = page.getByRole('group', { name: 'Delete Bike repairs?' });
  const button = confirm.getByRole('button', { name: 'Delete for good' });
  expect(await button.isDisabled()).toBe(true);
  await consoleScreenshots(page, 'chatbots-delete');
  await confirm.getByLabel('Type the name to confirm').fill('Bike repairs');
  await button.click();
  await page.getByRole('status').filter({ hasText: 'Bike repairs was deleted.' }).waitFor();
  expect(await switcher.locator('option').allTextContents()).toEqual(['Garden centre']);
  expect((await h.app.call('GET', '/api/v2/chatbots', h.app.ownerToken)).body.data.chatbots).toHaveLength(1);
  expect(problems).toEqual([]);
  await close();
});

it('a member sees only their chatbot, and no create, rename or delete', { timeout: 60_000 }, async () => {
  const theirs = await h.createChatbot('Support desk');
  await h.createChatbot('Owner only');
  const member = await h.addUser('member', [theirs]);
  const { page, problems, close } = await h.open({ user: member, path: '/console/chatbots' });
  await page.getByRole('heading', { name: 'Support desk' }).waitFor();
  expect(await page.getByRole('heading', { name: 'Owner only' }).count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Create chatbot' }).count()).toBe(0);
  expect(await page.getByRole('button', { name: /^(Rename|Delete):/ }).count()).toBe(0);
  // Their display name, which visitors see on their replies: set in the account menu.
  await page.locator('.account-menu summary').click();
  await page.getByText(`Signed in as ${member.email} · Member`).waitFor();
  await page.getByLabel('Your name').fill('Sam from support');
  await page.getByRole('button', { name: 'Save name' }).click();
  await page.locator('.account-menu summary').filter({ hasText: 'Sam from support' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await consoleScreenshots(page, 'account-menu');
  // Escape closes the menu and gives the focus back to its button.
  await page.keyboard.press('Escape');
  expect(await page.locator('.account-menu').getAttribute('open')).toBeNull();
  const members = await h.app.call('GET', `/api/v2/chatbots/${theirs}/members`, h.app.ownerToken);
  expect(members.body.data.members.find((m: { email: string }) => m.email === member.email).name).toBe(
    'Sam from support',
  );
  expect(problems).toEqual([]);
  await close();
});

it(
  "speaks the browser's language, another when chosen, loading the strings on demand; phone width, dark",
  { timeout: 60_000 },
  async () => {
    // A German browser: signed in through the German form.
    const { page, problems, close } = await h.open({
      path: '/console/chatbots',
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
      locale: 'de-DE',
    });
    await page.getByRole('heading', { name: 'Chatbots' }).waitFor();
    await page.getByRole('button', { name: 'Chatbot anlegen' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    await page.locator('.account-menu summary').click();
    await page.locator('.account-menu summary').click();
    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'chatbots-de');
    // Arabic reads right to left.
    await page.locator('.account-menu summary').click();
    await page.getByLabel('Sprache').selectOption('ar');
    await page.getByRole('button', { name: 'إنشاء روبوت الدردشة' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await page.locator('.account-menu summary').click();
    await consoleScreenshots(page, 'chatbots-ar');
    expect(problems).toEqual([]);
    await close();
  },
);

it(
  'sign out everywhere: the other browser is asked to sign in again on its next call',
  { timeout: 60_000 },
  async () => {
    const laptop = await h.open({ path: '/console/chatbots' });
    const phone = await h.open({ path: '/console/chatbots' });
    await phone.page.locator('.account-menu summary').click();
    await phone.page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await phone.page.getByRole('heading', { name: 'Sign in to Parley' }).waitFor();
    // The laptop's next call finds its session over.
    await laptop.page.getByLabel('Name', { exact: true }).fill('After sign-out');
    await laptop.page.getByRole('button', { name: 'Create chatbot' }).click();
    await laptop.page.getByText('Your session ended. Sign in again to continue.').waitFor();
    expect(
      (await h.app.call('GET', '/api/v2/chatbots', h.app.ownerToken)).body.data.chatbots.map(
        (c: { title: string }) => c.title,
      ),
    ).not.toContain('After sign-out');
    await signInThroughForm(laptop.page, { ...h.owner, password: PASSWORD });
    expect(laptop.problems).toEqual([]);
    await laptop.close();
    await phone.close();
  },
);

it('first run: the set-up link lets the owner choose a password, once', { timeout: 60_000 }, async () => {
  const fresh = await startLiveApp();
  try {
    const account = await fresh.app.services.accounts.resolve();
    const owner = (await fresh.app.services.store.users.owner(account.id))!;
    const link = `${fresh.url}/console/setup#${await fresh.app.services.signIn.setupToken(owner)}`;
    const context = await h.browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    // Before: the sign-in form says where to look.
    await page.goto(`${fresh.url}/console`);
    await page.getByText('First run: nobody has a password yet.').waitFor();
    await page.goto(link);
    await page.getByRole('heading', { name: 'Welcome to Parley' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'setup');
    await page.getByLabel('New password').fill('the owner chose this');
    await page.getByLabel('The same password again').fill('the owner chose that');
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The two passwords differ.' }).waitFor();
    await page.getByLabel('The same password again').fill('the owner chose this');
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await page.locator('nav[aria-label="Console"]').waitFor();
    expect(new URL(page.url()).hash).toBe('');
    // The link is spent: another browser opening it is told so.
    const other = await h.browser.newContext();
    const second = await other.newPage();
    await second.goto(link);
    await second.getByLabel('New password').fill('someone else tries');
    await second.getByLabel('The same password again').fill('someone else tries');
    await second.getByRole('button', { name: 'Save and sign in' }).click();
    await second.getByRole('alert').filter({ hasText: 'no longer works' }).waitFor();
    expect((await fresh.app.services.signIn.signIn(owner.email, 'the owner chose this')).ok).toBe(true);
    expect(problems).toEqual([]);
    await other.close();
    await context.close();
  } finally {
    await fresh.close();
  }
});
