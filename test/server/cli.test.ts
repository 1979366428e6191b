/**
 * The operator's CLI, called exactly as operators and scripts call it:
 * `npm run --silent cli -- <command>` in the project folder, DATA_DIR pointing at a temporary
 * install. What it writes is checked through the real app opened on the same SQLite file.
 * Each spawn costs over a second of CPU (npm, then tsx), so every run starts up front, a few
 * at a time, and each test awaits the runs it needs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { migrations } from '../../server/storage/migrations/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let dataDir: string;
let app: FastifyInstance;

/** At most this many CLI processes at once: more only thrash two cores. */
const PARALLEL = 3;
let running = 0;
const waiting: (() => void)[] = [];

/** `npm run --silent cli -- ...args` against the temporary install; never rejects. */
async function cli(...args: string[]): Promise<Run> {
  return cliWith({}, ...args);
}

/** The same with extra environment variables. */
async function cliWith(extraEnv: NodeJS.ProcessEnv, ...args: string[]): Promise<Run> {
  if (running >= PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await spawnCli(args, extraEnv);
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function spawnCli(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  // The install under test is the SQLite file in DATA_DIR, whatever the caller's shell says.
  delete env.DATABASE_URL;
  delete env.SECRET_KEY;
  Object.assign(env, extraEnv);
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', 'cli', '--', ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (err) => resolve({ code: -1, stdout, stderr: stderr + String(err) }));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The single JSON object a `--json` command prints, after checking it succeeded. */
function json(run: Run): any {
  expect(run.stderr, run.stderr).toBe('');
  expect(run.code).toBe(0);
  const lines = run.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]);
}

/** The same output parsed without asserting (for chained runs; the tests assert later). */
const parsed = (run: Run): any => {
  try {
    return JSON.parse(run.stdout);
  } catch {
    return {};
  }
};

async function call(method: 'GET' | 'POST' | 'PATCH', url: string, token: string, body?: object) {
  const res = await app.inject({
    method,
    url: `/api/v2${url}`,
    headers: { authorization: `Bearer ${token}` },
    ...(body && { payload: body }),
  });
  return { status: res.statusCode, body: res.json() };
}

const expectError = async (res: Promise<{ status: number; body: any }>, status: number, code: string) => {
  const { status: got, body } = await res;
  expect(got, code).toBe(status);
  expect(body.error.code).toBe(code);
  expect(body.error.hint).toBeTruthy();
};

let migrate: Run;
/** A full token of the first account's owner, minted in-process, to look at what the CLI did. */
let admin: string;
/** Two chatbots of the first account. */
let chatbotIds: string[];
/** An account whose id begins with "-", as one in 64 did before ids stopped doing so. */
const DASHED = '-dashed_account_id_0001';
let runs: ReturnType<typeof startRuns>;

/** Every run, in the order the tests need them; chained runs wait for what they depend on. */
function startRuns() {
  return {
    // A full token: it works, is listed, then is revoked.
    full: (async () => {
      const created = await cli('tokens', 'create', '--access', 'full', '--json');
      const { token, id } = parsed(created);
      const me = await call('GET', '/me', token ?? 'none');
      const listed = await cli('tokens', 'list');
      const revoked = await cli('tokens', 'revoke', id ?? 'none');
      return { created, me, listed, revoked };
    })(),
    custom: cli('tokens', 'create', '--access', 'custom', '--scopes', 'chatbots:read', '--json'),
    restricted: cli('tokens', 'create', '--access', 'standard', '--chatbots', chatbotIds[0], '--json'),
    bad: {
      badAccess: cli('tokens', 'create', '--access', 'bogus'),
      badOnOff: cli('plan', 'set', '--webhooks', 'maybe'),
      unknownCommand: cli('frobnicate'),
      unknownFlag: cli('tokens', 'list', '--colour'),
      noCommand: cli(),
    } as Record<string, Promise<Run>>,
    // A second account: listed, reached with --account, then given a plan without features.
    second: (async () => {
      const created = await cli('accounts', 'create', '--email', 'Ops@Example.com', '--json');
      const id: string = parsed(created).id ?? 'none';
      const [listed, token] = await Promise.all([
        cli('accounts', 'list'),
        cli('tokens', 'create', '--access', 'full', '--account', id, '--json'),
      ]);
      const bearer: string = parsed(token).token ?? 'none';
      const chatbot = await call('POST', '/chatbots', bearer, { title: 'Plan' });
      const plan = await cli(
        'plan',
        'set',
        '--account',
        id,
        '--max-chatbots',
        '0',
        '--webhooks',
        'off',
        '--analytics',
        'off',
        '--branding-removal',
        'off',
        '--json',
      );
      return {
        id,
        created,
        listed,
        token,
        bearer,
        chatbotId: chatbot.body?.data?.chatbot?.id as string | undefined,
        plan,
      };
    })(),
    legacy: cli('legacy-keys', 'create', '--json'),
    // "--account -x" and "--account=-x" both reach the account whose id begins with "-".
    dashed: (async () => {
      const token = await cli('tokens', 'create', '--access', 'full', '--account', DASHED, '--json');
      const plan = await cli('plan', 'show', `--account=${DASHED}`, '--json');
      return { token, plan };
    })(),
    planShow: cli('plan', 'show'),
    notANumber: cli('invoices', 'record', '--name', 'April', '--amount', 'abc', '--currency', 'EUR'),
    badConfig: cliWith({ LOG_LEVEL: 'loud' }, 'accounts', 'list'),
    unreachable: cliWith({ DATABASE_URL: 'postgres://parley:secret-password@127.0.0.1:1/nowhere' }, 'accounts', 'list'),
    // A member's first token, and a user the account does not have.
    member: cli('tokens', 'create', '--access', 'standard', '--user', 'Member@Example.com', '--json'),
    noUser: cli('tokens', 'create', '--access', 'standard', '--user', 'nobody@example.com'),
    invoice: cli('invoices', 'record', '--name', 'March', '--amount', '12.50', '--currency', 'EUR', '--json'),
  };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'parley-cli-'));
  // First and alone: it creates the database, the secret key and the install's first account.
  migrate = await cli('migrate');
  app = await buildApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { logger: false });
  await app.ready();
  const owner = (await app.services.store.users.owner((await app.services.accounts.resolve()).id))!;
  admin = (await app.services.tokens.create(owner, { access: 'full' })).token;
  chatbotIds = [];
  for (const title of ['Inside', 'Outside'])
    chatbotIds.push((await call('POST', '/chatbots', admin, { title })).body.data.chatbot.id);
  const at = new Date().toISOString();
  const plan = {
    name: 'dashed',
    maxChatbots: 3,
    maxPages: 10,
    webhooks: false,
    analytics: true,
    brandingRemoval: false,
    active: true,
  };
  await app.services.store.accounts.insert({ id: DASHED, name: 'Dashed', plan, createdAt: at, updatedAt: at });
  await app.services.store.users.insert({
    id: 'dashed-owner',
    accountId: DASHED,
    email: 'dash@example.com',
    name: null,
    role: 'owner',
    createdAt: at,
  });
  expect(
    (await call('POST', `/chatbots/${chatbotIds[0]}/members`, admin, { email: 'member@example.com', role: 'member' }))
      .status,
  ).toBe(201);
  runs = startRuns();
}, 90_000);

afterAll(async () => {
  // Let every spawned CLI finish before its database goes away.
  if (runs) await Promise.allSettled([...Object.values(runs), ...Object.values(runs.bad)]);
  await app?.close();
  rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

// Generous timeouts: runs queue behind each other, and CI shares two cores with other test files.
describe('cli', { timeout: 120_000 }, () => {
  test('migrate brings a new database up to date, announcing each migration on stderr as it starts', async () => {
    const created = `Creating a new database at ${join(dataDir, 'parley.db')} (DATA_DIR=${dataDir})\n`;
    expect(migrate.stderr).toBe(
      created +
        Object.keys(migrations('sqlite'))
          .map((name) => `applying migration ${name}\n`)
          .join(''),
    );
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toMatch(new RegExp(`^Applied to SQLite at ${join(dataDir, 'parley.db')}: 0001-foundation`));
  });

  test('tokens create --access full --json prints one object whose token works', async () => {
    const { created, me } = await runs.full;
    const token = json(created);
    expect(token).toMatchObject({ token: expect.any(String), id: expect.any(String), access: 'full' });
    expect(me.status).toBe(200);
    expect(me.body.data.token.id).toBe(token.id);
    expect(me.body.data.scopes).toContain('chatbots:delete');
    expect(me.body.data.chatbotIds).toBeNull();
  });

  test('tokens list shows the token; tokens revoke ID makes it fail on its next request', async () => {
    const { created, listed, revoked } = await runs.full;
    const { token, id } = json(created);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+ACCESS\s+STATUS\s+LAST USED\s+NAME\n/);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+full\\s+active\\s+\\d{4}-\\S+\\s+full token$`, 'm'));
    expect(revoked.stderr).toBe('');
    expect(revoked.code).toBe(0);
    expect(revoked.stdout.trim()).toBe(`Revoked ${id}`);
    await expectError(call('GET', '/me', token), 401, 'TOKEN_NOT_VALID');
  });

  test('tokens create --user EMAIL gives that user of the account a token within their role; an unknown e-mail exits 1 with one line', async () => {
    const created = json(await runs.member);
    const me = await call('GET', '/me', created.token);
    expect(me.status).toBe(200);
    expect(me.body.data.user).toMatchObject({ email: 'member@example.com', role: 'member' });
    expect(me.body.data.scopes).not.toContain('settings:write');
    const none = await runs.noUser;
    // Not found is a failure, not a usage mistake: one line, no usage text.
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^Error: no user nobody@example.com in account \S+\n$/);
    expect(none.stdout).toBe('');
  });

  test('tokens create --access custom --scopes gives exactly those scopes', async () => {
    const created = json(await runs.custom);
    expect(created.scopes).toEqual(['chatbots:read']);
    const me = await call('GET', '/me', created.token);
    expect(me.body.data.scopes).toEqual(['chatbots:read']);
    expect((await call('GET', '/chatbots', created.token)).status).toBe(200);
    await expectError(call('POST', '/chatbots', created.token, { title: 'Nope' }), 403, 'TOKEN_SCOPE_NOT_ALLOWED');
  });

  test('tokens create --chatbots restricts the token to those chatbots', async () => {
    const created = json(await runs.restricted);
    expect(created.chatbotIds).toEqual([chatbotIds[0]]);
    const list = await call('GET', '/chatbots', created.token);
    expect(list.body.data.chatbots.map((c: { id: string }) => c.id)).toEqual([chatbotIds[0]]);
    expect((await call('GET', `/chatbots/${chatbotIds[0]}`, created.token)).status).toBe(200);
    await expectError(call('GET', `/chatbots/${chatbotIds[1]}`, created.token), 404, 'CHATBOT_NOT_FOUND');
  });

  test('bad arguments exit non-zero with a message on stderr and change nothing', async () => {
    const cases: [string, RegExp][] = [
      ['badAccess', /--access full, standard or custom/],
      ['badOnOff', /--webhooks takes on or off, not "maybe"/],
      ['unknownCommand', /Unknown command "frobnicate"/],
      ['unknownFlag', /Unknown option '--colour'/],
      ['noCommand', /^Usage: parley <command>/],
    ];
    for (const [name, message] of cases) {
      const run = await runs.bad[name];
      expect(run.code, name).not.toBe(0);
      expect(run.stderr, name).toMatch(message);
      expect(run.stdout, name).toBe('');
    }
    const [first] = await app.services.accounts.list();
    expect(first.plan.webhooks).toBe(true);
  });

  test('accounts create --email and accounts list; --account picks the account', async () => {
    const { id, created, listed, token } = await runs.second;
    expect(json(created)).toMatchObject({ id, ownerEmail: 'ops@example.com' });
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+PLAN\s+ACTIVE\s+CREATED$/);
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^${id}\\s+Ops@Example.com\\s+self-hosted\\s+on\\s+\\d{4}-\\S+$`)),
    );
    // Columns line up: every row starts its NAME column where the header does.
    const nameAt = lines[0].indexOf('NAME');
    for (const line of lines.slice(1)) expect(line[nameAt - 1], line).toBe(' ');
    const me = await call('GET', '/me', json(token).token);
    expect(me.body.data.account.id).toBe(id);
    expect(me.body.data.user).toMatchObject({ email: 'ops@example.com', role: 'owner' });
  });

  test('plan set reaches every plan error code', async () => {
    const { id, bearer, chatbotId, plan } = await runs.second;
    expect(chatbotId).toBeTruthy();
    expect(json(plan)).toMatchObject({
      maxChatbots: 0,
      webhooks: false,
      analytics: false,
      brandingRemoval: false,
      active: true,
    });
    await expectError(call('POST', '/chatbots', bearer, { title: 'One too many' }), 403, 'CHATBOT_LIMIT_REACHED');
    await expectError(
      call('PATCH', `/chatbots/${chatbotId}/settings/webhooks`, bearer, { webhookUrl: 'https://hooks.example.com/x' }),
      403,
      'WEBHOOKS_NOT_AVAILABLE',
    );
    await expectError(call('GET', `/chatbots/${chatbotId}/analytics`, bearer), 403, 'ANALYTICS_LOCKED');
    await expectError(
      call('PATCH', `/chatbots/${chatbotId}/settings/appearance`, bearer, { hideWatermark: true }),
      403,
      'PLAN_UPGRADE_REQUIRED',
    );
    // Only that account's plan changed.
    expect((await call('GET', `/chatbots/${chatbotIds[0]}/analytics`, admin)).status).toBe(200);

    const off = await cli('plan', 'set', '--account', id, '--active', 'off');
    expect(off.stderr).toBe('');
    expect(off.code).toBe(0);
    await expectError(call('GET', `/chatbots/${chatbotId}`, bearer), 403, 'ACCOUNT_INACTIVE');
    // The owner can still see why.
    expect((await call('GET', '/me', bearer)).status).toBe(200);
  });

  test('legacy-keys create --json prints a key that is not a v2 token', async () => {
    const key = json(await runs.legacy);
    expect(key).toMatchObject({ token: expect.any(String), id: expect.any(String), accountId: expect.any(String) });
    expect(key.token.length).toBeGreaterThanOrEqual(43); // 256 bits, base64url
    await expectError(call('GET', '/me', key.token), 401, 'TOKEN_NOT_VALID');
    const stored = await app.services.store.tokens.listAll(key.accountId);
    expect(stored.find((t) => t.id === key.id)).toMatchObject({ kind: 'legacy' });
  });

  test('an id beginning with "-" is taken as a value, after a space or after "="', async () => {
    const { token, plan } = await runs.dashed;
    const created = json(token);
    expect(created.accountId).toBe(DASHED);
    const me = await call('GET', '/me', created.token);
    expect(me.body.data.account.id).toBe(DASHED);
    expect(json(plan)).toMatchObject({
      accountId: DASHED,
      name: 'dashed',
      maxChatbots: 3,
      maxPages: 10,
      webhooks: false,
    });
  });

  test('plan show prints the plan as a table with a header', async () => {
    const run = await runs.planShow;
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^SETTING\s+VALUE\n/);
    expect(run.stdout).toMatch(/^max-chatbots\s+\d+$/m);
    expect(run.stdout).toMatch(/^webhooks\s+(on|off)$/m);
  });

  test('exit codes: 2 for a bad argument (an amount that is not a number), 78 for bad configuration, 1 for an unreachable database, each one line without a stack', async () => {
    const nan = await runs.notANumber;
    expect(nan.code).toBe(2);
    expect(nan.stderr).toMatch(/^Error: --amount takes a number such as 12\.50, not "abc"/);
    const config = await runs.badConfig;
    expect(config.code).toBe(78);
    expect(config.stderr.trim()).toMatch(/^Configuration error: LOG_LEVEL must be one of/);
    const down = await runs.unreachable;
    expect(down.code).toBe(1);
    expect(down.stderr.trim()).toMatch(/^Error: Cannot reach the database at 127\.0\.0\.1:1\/nowhere \(ECONNREFUSED\)/);
    expect(down.stderr).not.toContain('secret-password');
    for (const run of [nan, config, down]) {
      expect(run.stdout).toBe('');
      expect(run.stderr).not.toMatch(/^\s+at /m);
    }
  });

  test('invoices record adds an invoice the billing route lists', async () => {
    const invoice = json(await runs.invoice);
    expect(invoice).toMatchObject({ name: 'March', amount: 12.5, currency: 'EUR', status: 'paid' });
    const list = await call('GET', '/billing/invoices', admin);
    expect(list.status).toBe(200);
    expect(list.body.data.billings).toEqual([
      expect.objectContaining({ id: invoice.id, amount: 12.5, currency: 'EUR' }),
    ]);
  });
});
