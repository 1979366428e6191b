/**
 * The console's team pages in chromium against the real server: leads exported as the CSV a site
 * owner downloads, API tokens created (shown once), used and revoked, webhook test sends followed
 * in the delivery log. One server, one browser, one HTTPS webhook receiver for the file; axe
 * finds nothing on each page; screenshots in test-artifacts/console/.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newId } from '../../server/domain/ids.js';
import { signIdentity } from '../../server/domain/visitors/identity.js';
import { serveSite, type TestSite } from '../helpers/site.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { axeViolations, consoleScreenshots, startConsole, type ConsoleHarness } from './console-helpers.js';

const run = promisify(execFile);
let h: ConsoleHarness;
let receiver: WebhookReceiver;
let site: TestSite;
let chatbotId: string;

beforeAll(async () => {
  receiver = await startReceiver();
  site = await serveSite();
  receiver.respond = () => 200;
  h = await startConsole({
    env: { ALLOW_PRIVATE_FETCH: '127.0.0.0/8', NODE_EXTRA_CA_CERTS: receiver.caFile, WEBHOOK_POLL_MS: '20' },
  });
  chatbotId = await h.createChatbot('Acme shop');
}, 120_000);
afterAll(async () => {
  await h?.close();
  await receiver?.close();
  await site?.close();
});

it('lists the leads and exports them as a CSV file with every lead', { timeout: 60_000 }, async () => {
  const leads: Array<{
    name: string | null;
    email: string;
    phone: string | null;
    customFields: Record<string, string>;
  }> = [
    {
      name: 'Ada Lovelace',
      email: 'ada@example.test',
      phone: '+44 20 7946 0001',
      customFields: { company: 'Engines, Ltd' },
    },
    { name: '=HYPERLINK("x")', email: 'mallory@example.test', phone: null, customFields: {} },
    { name: null, email: 'björn@example.test', phone: null, customFields: { company: 'Fika AB' } },
  ];
  for (const [i, l] of leads.entries())
    await h.app.app.services.store.resources.leads.insert({
      id: newId(),
      chatbotId,
      conversationId: null,
      chatUserId: null,
      ...l,
      source: 'widget',
      createdAt: new Date(Date.UTC(2026, 0, 10 + i)).toISOString(),
    });

  const { page, problems, close } = await h.open({ path: `/console/${chatbotId}/leads` });
  await page.getByRole('heading', { name: 'Leads' }).waitFor();
  const table = page.getByRole('table');
  await table.getByRole('cell', { name: 'ada@example.test' }).waitFor();
  expect(await table.locator('tbody tr').count()).toBe(3);
  // Newest first, as the API orders them.
  expect(await table.locator('tbody tr').first().textContent()).toContain('björn@example.test');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^Acme-shop-leads-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync((await download.path())!, 'utf8').replace(/^\ufeff/, '');
  const rows = csv.trimEnd().split('\r\n');
  expect(rows[0]).toBe('createdAt,name,email,phone,company,source,conversationId,id');
  expect(rows).toHaveLength(4);
  expect(rows[1]).toContain('björn@example.test,,Fika AB,widget');
  // A visitor's text that a spreadsheet would run as a formula is defused.
  expect(rows[2]).toContain(`"'=HYPERLINK(""x"")",mallory@example.test`);
  // (A phone's leading + too: a spreadsheet would otherwise compute it.)
  expect(rows[3]).toContain(`Ada Lovelace,ada@example.test,'+44 20 7946 0001,"Engines, Ltd",widget`);

  expect(await axeViolations(page)).toEqual([]);
  await consoleScreenshots(page, 'leads');
  expect(problems).toEqual([]);
  await close();
});

it(
  'creates a token with chosen scopes, shows it once, and revokes it so the API refuses it',
  { timeout: 60_000 },
  async () => {
    const { page, problems, close } = await h.open({ path: '/console/tokens' });
    await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Nightly export');
    await page.getByRole('radio', { name: /Chosen scopes/ }).check();
    await page.getByRole('checkbox', { name: 'leads:read' }).check();
    await page.getByRole('radio', { name: 'Only the chatbots I choose' }).check();
    await page.getByRole('checkbox', { name: 'Acme shop' }).check();
    await page.getByRole('button', { name: 'Create token' }).click();

    const secretBox = page.getByLabel('Token', { exact: true });
    await secretBox.waitFor();
    const secret = await secretBox.inputValue();
    expect(secret.length).toBeGreaterThan(20);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await consoleScreenshots(page, 'tokens-created');

    // The token does what it was given, and nothing more.
    const leads = await h.app.call('GET', `/api/v2/chatbots/${chatbotId}/leads`, secret);
    expect(leads.status).toBe(200);
    const settings = await h.app.call('GET', `/api/v2/chatbots/${chatbotId}/settings`, secret);
    expect(settings.status).toBe(403);

    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.getByLabel('Token', { exact: true }).count()).toBe(0); // shown once
    expect(await page.content()).not.toContain(secret);
    const row = page.getByRole('listitem').filter({ hasText: 'Nightly export' });
    expect(await row.textContent()).toContain('Scopes: leads:read');
    expect(await row.textContent()).toContain('Only: Acme shop');
    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'tokens');

    await row.getByRole('button', { name: 'Revoke: Nightly export' }).click();
    await row.getByRole('button', { name: 'Revoke for good' }).click();
    await page.getByRole('status').filter({ hasText: '“Nightly export” was revoked.' }).waitFor();
    const refused = await h.app.call('GET', `/api/v2/chatbots/${chatbotId}/leads`, secret);
    expect(refused.status).toBe(401);
    await page.getByText('Revoked tokens (1)').click();
    await page.getByText(/Revoked .*20\d\d/).waitFor();
    expect(problems).toEqual([]);
    await close();
  },
);

it(
  'sets the webhook URL, sends a test and sees it delivered in the log, then sends it again',
  { timeout: 60_000 },
  async () => {
    const { page, problems, close } = await h.open({ path: `/console/${chatbotId}/webhooks` });
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('Nothing sent yet.').waitFor();
    await page.getByLabel('Webhook URL').fill(`${receiver.url}/parley`);
    await page.getByRole('radio', { name: /Format B/ }).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Webhook settings saved.' }).waitFor();
    const settings = await h.app.call('GET', `/api/v2/chatbots/${chatbotId}/settings`, h.app.ownerToken);
    expect(settings.body.data.settings).toMatchObject({
      webhookUrl: `${receiver.url}/parley`,
      webhookPayloadVariant: 'B',
    });

    const before = receiver.received.length;
    await page.getByRole('combobox', { name: 'Event' }).selectOption('lead');
    await page.getByRole('button', { name: 'Send test' }).click();
    await receiver.waitFor((r) => r.length > before);
    const sent = receiver.received[before];
    expect(sent.path).toBe('/parley');
    // The log shows it delivered (the page looks again while it is pending).
    const entry = page
      .getByRole('list', { name: 'Delivery log' })
      .getByRole('listitem')
      .filter({ hasText: 'Lead' })
      .first();
    await entry.getByText('Delivered').waitFor();
    expect(await entry.textContent()).toContain('HTTP 200');
    expect(await entry.textContent()).toContain(`${receiver.url}/parley`);
    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'webhooks', { fullPage: true });

    await entry.getByRole('button', { name: /^Send again/ }).click();
    await receiver.waitFor((r) => r.length > before + 1);
    expect(receiver.received[before + 1].headers['webhook-id']).toBe(sent.headers['webhook-id']);
    await entry.getByText('Attempts: 2').waitFor();
    expect(problems).toEqual([]);
    await close();
  },
);

it(
  'shows the figures the API counts, per day and in total, from one call, with the questions asked most',
  { timeout: 60_000 },
  async () => {
    for (const message of ['How long do refunds take?', 'Do you ship to Norway?', 'how long do REFUNDS take'])
      expect(
        (await h.app.call('POST', `/api/v2/chatbots/${chatbotId}/messages`, h.app.ownerToken, { message })).status,
      ).toBe(201);
    const { page, problems, close } = await h.open({ path: `/console/${chatbotId}/analytics` });
    const analyticsCalls: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.endsWith('/analytics')) analyticsCalls.push(r.url());
    });
    await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
    await page.locator('[data-figure="conversations"]').waitFor();
    const figure = async (name: string) => (await page.locator(`[data-figure="${name}"]`).textContent())!.trim();

    // The same seven days of the browser's (here: this machine's) time zone, asked of the API directly.
    const start = new Date();
    start.setHours(0, 0, 0, 0);
    start.setDate(start.getDate() - 6);
    const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const api = (
      await h.app.call(
        'GET',
        `/api/v2/chatbots/${chatbotId}/analytics?from=${encodeURIComponent(start.toISOString())}&timezone=${encodeURIComponent(timezone)}`,
        h.app.ownerToken,
      )
    ).body.data.analytics;
    expect(api.conversations).toBe(3);
    expect(api.days).toHaveLength(7);
    expect(await figure('conversations')).toBe(String(api.conversations));
    expect(await figure('messages')).toBe(String(api.messages.total));
    expect(await figure('leads')).toBe(String(api.leads));
    expect(await figure('answered')).toBe(String(api.answers.answered));
    expect(await figure('not-sure')).toBe(String(api.answers.notSure));
    expect(await figure('unanswered')).toBe(String(api.answers.refused));
    expect(await figure('escalation-rate')).toBe('0%');

    // Each chart has its table: seven days, today's row holding today's figures.
    const chart = page.getByRole('figure', { name: 'Conversations per day' });
    expect(await chart.getByRole('img').getAttribute('aria-label')).toContain('3 in the last 7 days');
    await chart.getByText('Show as a table').click();
    const rows = chart.getByRole('row');
    expect(await rows.count()).toBe(8);
    expect(await rows.last().getByRole('cell').textContent()).toBe('3');
    const messages = page.getByRole('figure', { name: 'Messages per day' });
    await messages.getByText('Show as a table').click();
    expect(await messages.getByRole('row').last().getByRole('cell').textContent()).toBe(String(api.messages.total));
    const answers = page.getByRole('figure', { name: 'Answers per day' });
    await answers.getByText('Show as a table').click();
    const today = api.days[6].answers;
    expect(await answers.getByRole('row').last().getByRole('cell').allTextContents()).toEqual(
      [today.answered, today.notSure, today.refused].map(String),
    );
    await page.getByRole('figure', { name: 'Escalation rate per day' }).waitFor();

    // The questions asked most, as the API counts them: the two wordings of one question are one.
    const top = page.getByRole('list', { name: 'Questions visitors ask most' }).getByRole('listitem');
    expect(await top.first().textContent()).toContain('how long do REFUNDS take');
    expect(await top.first().textContent()).toContain(`2×, ${api.topQuestions[0].answered} answered`);
    expect(await top.count()).toBe(2);

    // Another period is one request for the whole range, not one per day (the shell may load the
    // page again meanwhile, which asks for the seven days once more).
    const thirty = new Date(start);
    thirty.setDate(thirty.getDate() - 23);
    // Playwright may report the request after the chart it fed has drawn: wait for the report too.
    const thirtyAsked = page.waitForRequest((r) => {
      const url = new URL(r.url());
      return url.pathname.endsWith('/analytics') && url.searchParams.get('from') === thirty.toISOString();
    });
    await page.getByRole('combobox', { name: 'Period' }).selectOption('30');
    await page
      .getByRole('figure', { name: 'Conversations per day' })
      .getByRole('img', { name: /3 in the last 30 days/ })
      .waitFor();
    await thirtyAsked;
    const froms = analyticsCalls.map((u) => new URL(u).searchParams.get('from'));
    expect(froms.filter((f) => f === thirty.toISOString())).toHaveLength(1);
    expect(froms.filter((f) => f !== thirty.toISOString() && f !== start.toISOString())).toEqual([]);
    for (const u of analyticsCalls) expect(new URL(u).searchParams.get('timezone')).toBe(timezone);

    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'analytics', { fullPage: true });
    expect(problems).toEqual([]);
    await close();
  },
);

it('adds a person to two chatbots, changes their role and removes them from one', { timeout: 60_000 }, async () => {
  const second = await h.createChatbot('Acme outlet');
  const { page, problems, close } = await h.open({ path: `/console/${chatbotId}/members` });
  await page.getByRole('heading', { name: 'Team', level: 1 }).waitFor();
  await page.getByRole('textbox', { name: 'E-mail' }).fill('grace@team.test');
  await page.getByRole('textbox', { name: 'Display name (optional)' }).fill('Grace');
  await page.getByRole('checkbox', { name: 'Acme outlet' }).check();
  await page.getByRole('button', { name: 'Add to the team' }).click();
  await page.getByRole('status').filter({ hasText: 'grace@team.test was added.' }).waitFor();
  const row = page.getByRole('listitem').filter({ hasText: 'grace@team.test' });
  await row.getByText('Also on: Acme outlet').waitFor();
  const members = async (id: string) =>
    (await h.app.call('GET', `/api/v2/chatbots/${id}/members`, h.app.ownerToken)).body.data.members as Array<{
      email: string;
      role: string;
      name: string | null;
    }>;
  expect((await members(chatbotId)).find((m) => m.email === 'grace@team.test')).toMatchObject({
    role: 'member',
    name: 'Grace',
  });
  expect((await members(second)).map((m) => m.email)).toContain('grace@team.test');

  await row.getByRole('combobox', { name: 'Role of Grace' }).selectOption('admin');
  await page.getByRole('status').filter({ hasText: 'Grace is now Admin.' }).waitFor();
  expect((await members(second)).find((m) => m.email === 'grace@team.test')?.role).toBe('admin');
  expect(await axeViolations(page)).toEqual([]);
  await consoleScreenshots(page, 'members', { fullPage: true });

  await row.getByRole('button', { name: 'Remove: Grace' }).click();
  await row.getByRole('button', { name: 'Remove from chatbot' }).click();
  await page.getByRole('status').filter({ hasText: 'Grace was removed from this chatbot.' }).waitFor();
  expect((await members(chatbotId)).map((m) => m.email)).not.toContain('grace@team.test');
  expect((await members(second)).map((m) => m.email)).toContain('grace@team.test');
  expect(problems).toEqual([]);
  await close();
});

it(
  'gives the snippet and its variants, signs identities as the server checks them, and checks a site for the snippet',
  { timeout: 60_000 },
  async () => {
    const { page, problems, close } = await h.open({ path: `/console/${chatbotId}/install` });
    await page.getByRole('heading', { name: 'Install', level: 1 }).waitFor();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    const snippet = `<script src="${h.app.url}/widget.js" data-chatbot-id="${chatbotId}" fetchpriority="high" async></script>`;
    await page.getByRole('button', { name: 'Copy: Plain HTML' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);
    await page.getByRole('radio', { name: 'React' }).check();
    expect(await page.locator('pre[aria-label="React"]').textContent()).toContain(
      `s.dataset.chatbotId = '${chatbotId}'`,
    );
    await page.getByRole('radio', { name: 'Vue' }).check();
    expect(await page.locator('pre[aria-label="Vue"]').textContent()).toContain('onMounted');
    expect(await page.locator('pre[aria-label="Mobile apps"]').textContent()).toBe(`${h.app.url}/chat/${chatbotId}`);

    // Each identity sample, run as the site's server would run it (node, php, python3), signs an
    // e-mail the widget's session endpoint accepts as verified: the page's text, not a copy of it.
    const secret = (await h.app.call('POST', `/api/v2/chatbots/${chatbotId}/identity-secret`, h.app.ownerToken)).body
      .data.identitySecret.secret as string;
    const email = 'björn.ek@example.test';
    const samples: Array<[string, string, (file: string) => [string, string[]], string]> = [
      ['Node.js', 'cjs', (f) => ['node', [f, email]], '\nprocess.stdout.write(parleySignature(process.argv[2]));\n'],
      ['PHP', 'php', (f) => ['php', [f, email]], '\necho parley_signature($argv[1]);\n'],
      ['Python', 'py', (f) => ['python3', [f, email]], '\nimport sys\nprint(parley_signature(sys.argv[1]), end="")\n'],
    ];
    const dir = mkdtempSync(join(tmpdir(), 'parley-identity-'));
    try {
      for (const [label, ext, command, call] of samples) {
        await page.getByRole('radio', { name: label, exact: true }).check();
        const code = (await page.locator(`pre[aria-label="${label}"]`).textContent())!;
        const file = join(dir, `sample.${ext}`);
        writeFileSync(file, code + call);
        const [bin, args] = command(file);
        const { stdout } = await run(bin, args, { env: { ...process.env, PARLEY_IDENTITY_SECRET: secret } });
        expect(stdout, label).toMatch(/^[0-9a-f]{64}$/);
        const session = await h.app.call('POST', `/api/widget/${chatbotId}/session`, null, {
          identity: { email, signature: stdout },
        });
        expect(session.status, label).toBe(201);
        expect(session.body.data.visitor, label).toMatchObject({ email, verified: true });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // A signature made with another secret is refused: the check above can fail.
    const forged = await h.app.call('POST', `/api/widget/${chatbotId}/session`, null, {
      identity: { email, signature: signIdentity('not the secret', email) },
    });
    expect(forged.body.error.code).toBe('IDENTITY_NOT_VALID');

    // Check my site: a page without the snippet, then with it.
    site.set('/', '<!doctype html><html><body><h1>Acme</h1></body></html>');
    await page.getByLabel('Page address').fill(`${site.url}/`);
    await page.getByRole('button', { name: 'Check my site' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: `No snippet for this chatbot on ${site.url}/` })
      .waitFor();
    site.set('/', `<!doctype html><html><body><h1>Acme</h1>${snippet}</body></html>`);
    await page.getByRole('button', { name: 'Check my site' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `The chatbot is installed on ${site.url}/.` })
      .waitFor();

    expect(await axeViolations(page)).toEqual([]);
    await consoleScreenshots(page, 'install', { fullPage: true });
    expect(problems).toEqual([]);
    await close();
  },
);
