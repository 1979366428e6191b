/**
 * The console in chromium, for every console page's browser test (console/README.md): one live
 * server and one browser per test file; each user signs in through the real form in a browser
 * context of their own (cookies apart). Also the checks every page makes: no page error or CSP
 * violation, axe with 0 violations, screenshots desktop and phone, light and dark.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Role } from '../../shared/scopes.js';
import type { TestAppOptions } from '../helpers/app.js';
import { startLiveApp, type LiveApp } from '../helpers/widget.js';
import { CHROMIUM, FLAGS } from './helpers.js';

export const CONSOLE_ARTIFACTS = join(process.cwd(), 'test-artifacts', 'console');
export const PASSWORD = 'a passphrase for the console';
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export interface ConsoleUser {
  email: string;
  password: string;
  role: Role;
}

export interface ConsoleHarness {
  /** The live server: `app.url`, `app.ownerToken` (a Full token of the owner), `app.call(…)`, `app.app.services`. */
  app: LiveApp;
  browser: Browser;
  /** The account's owner, with PASSWORD. */
  owner: ConsoleUser;
  /**
   * A page signed in as `user` (the owner by default) through the sign-in form, in a context of
   * its own, opened at `path` (default /console) and settled (the shell shown).
   */
  open(options?: OpenOptions): Promise<ConsolePage>;
  /** A user of the given role added to these chatbots (POST /members), with PASSWORD. */
  addUser(role: Exclude<Role, 'owner'>, chatbotIds: string[]): Promise<ConsoleUser>;
  /** A chatbot made with the owner's token; returns its id. */
  createChatbot(title: string, settings?: Record<string, Record<string, unknown>>): Promise<string>;
  close(): Promise<void>;
}

export interface OpenOptions {
  user?: ConsoleUser;
  path?: string;
  viewport?: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
  locale?: string;
}

export interface ConsolePage {
  page: Page;
  context: BrowserContext;
  /** Page errors, console errors and CSP violations seen so far: a test ends expecting []. */
  problems: string[];
  close(): Promise<void>;
}

let users = 0;

/** One server and one browser for the test file (call in beforeAll, close in afterAll). */
export async function startConsole(options: TestAppOptions = {}): Promise<ConsoleHarness> {
  const app = await startLiveApp(options);
  const account = await app.app.services.accounts.resolve();
  const ownerRecord = (await app.app.services.store.users.owner(account.id))!;
  await app.app.services.signIn.setPassword(ownerRecord, PASSWORD);
  const owner: ConsoleUser = { email: ownerRecord.email, password: PASSWORD, role: 'owner' };
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  const contexts = new Set<BrowserContext>();

  const harness: ConsoleHarness = {
    app,
    browser,
    owner,
    async open(options = {}) {
      const context = await browser.newContext({
        viewport: options.viewport ?? DESKTOP,
        colorScheme: options.colorScheme ?? 'light',
        locale: options.locale ?? 'en-US',
        reducedMotion: 'reduce',
      });
      contexts.add(context);
      const page = await context.newPage();
      const problems = watchProblems(page);
      await page.goto(`${app.url}${options.path ?? '/console'}`);
      await signInThroughForm(page, options.user ?? owner);
      return {
        page,
        context,
        problems,
        async close() {
          contexts.delete(context);
          await context.close();
        },
      };
    },
    async addUser(role, chatbotIds) {
      const email = `${role}-${++users}@team.test`;
      let userId = '';
      for (const id of chatbotIds) {
        const res = await app.call('POST', `/api/v2/chatbots/${id}/members`, app.ownerToken, { email, role });
        if (res.status !== 201 && res.status !== 200) throw new Error(`member not added: ${JSON.stringify(res.body)}`);
        userId = res.body.data.member.userId;
      }
      const user = (await app.app.services.store.users.get(userId))!;
      await app.app.services.signIn.setPassword(user, PASSWORD);
      return { email, password: PASSWORD, role };
    },
    async createChatbot(title, settings) {
      const res = await app.call('POST', '/api/v2/chatbots', app.ownerToken, { title, ...(settings && { settings }) });
      if (res.status !== 201) throw new Error(`chatbot not created: ${JSON.stringify(res.body)}`);
      return res.body.data.chatbot.id;
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => undefined);
      await browser.close();
      await app.close();
    },
  };
  return harness;
}

/** Fills and sends the sign-in form as a person does (in any language), then waits for the shell. */
export async function signInThroughForm(page: Page, user: ConsoleUser) {
  await page.locator('input[name="email"]').fill(user.email);
  await page.locator('input[name="password"]').fill(user.password);
  await page.locator('form button[type="submit"]').click();
  await page.locator('nav.side').waitFor();
}

/** Collects page errors, console errors and CSP violations of `page`. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    // A refused API call logs its status: the tests assert those through the page itself.
    if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text()))
      problems.push(`console: ${m.text()}`);
  });
  void page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (e) =>
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`),
    ),
  );
  return problems;
}

/** axe-core's violations on the page as it is now (injected past the page's CSP, through the devtools protocol). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            ctx: unknown,
            opts: unknown,
          ): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
  });
}

/**
 * Screenshots of the page as it is, at desktop and phone width, light and dark:
 * test-artifacts/console/<name>-{desktop,phone}-{light,dark}.png. Look at them.
 */
export async function consoleScreenshots(page: Page, name: string, options: { fullPage?: boolean } = {}) {
  mkdirSync(CONSOLE_ARTIFACTS, { recursive: true });
  const size = page.viewportSize();
  for (const [width, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({
        path: join(CONSOLE_ARTIFACTS, `${name}-${width}-${scheme}.png`),
        fullPage: options.fullPage ?? false,
      });
    }
  }
  await page.emulateMedia({ colorScheme: null });
  if (size) await page.setViewportSize(size);
}
