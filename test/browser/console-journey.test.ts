/**
 * The owner's whole journey in the browser, on the server as `npm start` runs it (the compiled
 * server, a fresh data folder, nobody with a password): the set-up link from the ready line, a
 * password, a chatbot, the README's quick-start site on the Knowledge page with its job watched
 * to the end, the snippet copied from the Install page onto the site's own page (another origin)
 * and checked there, and a visitor there asking the quick-start question: the widget answers
 * with its source. The team then sees the visitor and the page they wrote from in the inbox.
 * A screenshot of each step (desktop).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../helpers/child-server.js';
import { waitFor } from '../helpers/knowledge-http.js';
import { serveSite, type TestSite } from '../helpers/site.js';
import { axeViolations, CONSOLE_ARTIFACTS, DESKTOP, watchProblems } from './console-helpers.js';
import { CHROMIUM, FLAGS } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(CONSOLE_ARTIFACTS, `journey-${name}.png`), fullPage: true });

/** The README's quick-start pages, as its heredocs write them. */
function quickStartPages(): Record<string, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const pages: Record<string, string> = {};
  for (const m of readme.matchAll(/cat > (\S+\.html) <<'EOF'\n([\s\S]*?)\nEOF/g)) pages[`/${m[1]}`] = m[2]!;
  if (!pages['/index.html'] || !pages['/delivery.html']) throw new Error('the README lost its quick-start pages');
  return pages;
}

let dataDir: string;
let server: ChildProcess;
let log = '';
let site: TestSite;
let browser: Browser;
/** What the owner pasted into the site's home page (empty until then). */
let snippet = '';

beforeAll(async () => {
  mkdirSync(CONSOLE_ARTIFACTS, { recursive: true });
  const pages = quickStartPages();
  const home = pages['/index.html']!;
  site = await serveSite({
    ...pages,
    '/': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(home + snippet),
  });
  dataDir = mkdtempSync(join(tmpdir(), 'parley-journey-'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'SECRET_KEY', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'EMBEDDING_MODEL', 'SITE_URL'])
    delete env[name];
  // What `npm start` runs (the compiled server), with the quick start's one setting more.
  server = spawn(process.execPath, ['dist/server/main.js'], {
    cwd: ROOT,
    env: {
      ...env,
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ALLOW_PRIVATE_FETCH: '127.0.0.1',
      QUEUE_POLL_MS: '50',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d) => (log += d));
  server.stderr!.on('data', (d) => (log += d));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('close', r));
  }
  await site?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it(
  'from npm start to a widget answering on the owner’s page, using only the browser',
  { timeout: 150_000 },
  async () => {
    // 1. The ready line ends with the set-up link.
    await waitFor(() => log.includes('Parley is ready') || server.exitCode !== null, 60_000, 'the ready line');
    const ready = log
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; setupLink?: string })
      .find((l) => l.msg.startsWith('Parley is ready'));
    expect(ready?.setupLink, log).toMatch(/\/console\/setup#/);
    expect(ready!.msg).toContain(ready!.setupLink);

    const owner = await browser.newContext({ viewport: DESKTOP, reducedMotion: 'reduce' });
    const page = await owner.newPage();
    const problems = watchProblems(page);

    // 2. Choose a password.
    await page.goto(ready!.setupLink!);
    await page.getByRole('heading', { name: 'Welcome to Parley' }).waitFor();
    await page.getByLabel('New password').fill('a long owner passphrase');
    await page.getByLabel('The same password again').fill('a long owner passphrase');
    await shot(page, '1-setup');
    await page.getByRole('button', { name: 'Save and sign in' }).click();

    // 3. No chatbot yet: create one.
    await page.getByText('No chatbots yet. Create the first one').waitFor();
    await shot(page, '2-no-chatbot');
    await page.getByLabel('Name', { exact: true }).fill('Acme help');
    await page.getByRole('button', { name: 'Create chatbot' }).click();
    await page.getByRole('status').filter({ hasText: 'Acme help was created.' }).waitFor();
    await shot(page, '3-chatbot');

    // 4. Knowledge: the quick-start site, its job watched to the end.
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Knowledge', exact: true })
      .click();
    await page.getByRole('heading', { name: 'Knowledge', level: 1 }).waitFor();
    const chatbotId = new URL(page.url()).pathname.split('/')[2]!;
    await page.getByLabel('Start address').fill(`${site.url}/`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Added. The job below shows its progress.' }).waitFor();
    const job = page.locator('.kn-job').first();
    await job.locator('.kn-badge', { hasText: 'Done' }).waitFor({ timeout: 60_000 });
    expect(await job.locator('[data-count="done"]').textContent()).toContain('3');
    await page.locator('.kn-sources').getByText('3 documents').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, '4-knowledge');

    // 5. Install: copy the snippet, paste it into the site's home page (another origin than the console's), check it.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Install', exact: true }).click();
    await page.getByRole('heading', { name: 'Install', level: 1 }).waitFor();
    await owner.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Copy: Plain HTML' }).click();
    snippet = await page.evaluate(() => navigator.clipboard.readText());
    expect(snippet).toContain(`data-chatbot-id="${chatbotId}"`);
    await page.getByLabel('Page address').fill(`${site.url}/`);
    await page.getByRole('button', { name: 'Check my site' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `The chatbot is installed on ${site.url}/.` })
      .waitFor();
    await shot(page, '5-install');

    // 6. A visitor asks the quick-start question: the answer cites the delivery page.
    const visitorContext = await browser.newContext({ viewport: DESKTOP, reducedMotion: 'reduce' });
    const shop = await visitorContext.newPage();
    const shopProblems = watchProblems(shop);
    await shop.goto(`${site.url}/`);
    await shop.locator('[data-parley] .bubble').click();
    const input = shop.locator('[data-parley] textarea');
    await input.fill('How long does delivery take?');
    await input.press('Enter');
    const answer = shop.locator('[data-parley] [role="log"] .msg-ai', { hasText: /three to five working days/ });
    await answer.waitFor({ timeout: 30_000 });
    expect(await shop.locator('[data-parley] .sources li').allTextContents()).toContain('Delivery');
    await shop.screenshot({ path: join(CONSOLE_ARTIFACTS, 'journey-6-visitor.png') });

    // 7. The inbox: the conversation, the visitor's page though the site passed no context.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Inbox', exact: true }).click();
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    await page.getByRole('radio', { name: /AI answering/ }).check();
    const row = page.locator('.inbox-rows li').first();
    await row.getByRole('button').click();
    await page.locator('.inbox-thread .inbox-msg.visitor', { hasText: 'How long does delivery take?' }).waitFor();
    await page
      .locator('.inbox-details')
      .getByRole('link', { name: `${site.url}/` })
      .waitFor();
    await shot(page, '7-inbox');

    expect(problems).toEqual([]);
    expect(shopProblems).toEqual([]);
    await visitorContext.close();
    await owner.close();
  },
);
