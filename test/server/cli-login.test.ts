/**
 * `npm run cli -- login / whoami / logout` as a user runs them: the real CLI in a child process
 * against the real server in another, the approval done over HTTP as a browser would (sign in,
 * CSRF token, approve). The password is set with `users set-password`, piped on stdin.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { deviceLogin } from '../../server/client/device-login.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { answerDeviceCode, FormBrowser, fetchSend } from '../helpers/browser-form.js';
import { freePort, spawnServer } from '../helpers/child-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OWNER = 'owner@login.test';
const PASSWORD = 'a long enough passphrase';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let dataDir: string;
let home: string;
let server: { child: ChildProcess; url: string };

/** The CLI with this install's DATA_DIR and a private config home; `input` is piped to stdin. */
function cli(
  args: string[],
  opts: { input?: string; onStdout?: (text: string, child: ChildProcess) => void } = {},
): Promise<Run> {
  // The same SQLite file the child server opens (test/helpers/child-server.ts).
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: `sqlite:${join(dataDir, 'test.db')}`,
    OWNER_EMAIL: OWNER,
    LOG_LEVEL: 'silent',
    XDG_CONFIG_HOME: join(home, 'config'),
    HOME: home,
  };
  delete env.SECRET_KEY;
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', 'cli', '--', ...args], {
      cwd: ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      opts.onStdout?.(stdout, child);
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end(opts.input ?? '');
    child.on('error', (err) => resolve({ code: -1, stdout, stderr: stderr + String(err) }));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `login` until it shows its code; then `answer` is run with the code while it polls. */
async function login(answer: (userCode: string) => Promise<unknown>, extra: string[] = []): Promise<Run> {
  let answered: Promise<unknown> | null = null;
  const run = await cli(['login', '--server', server.url, ...extra], {
    onStdout: (text, child) => {
      const code = /enter the code ([A-Z]{4}-[A-Z]{4})/.exec(text)?.[1];
      // A failed approval stops the CLI at once instead of leaving it polling to the code's end.
      if (code && !answered) answered = answer(code).catch((err) => (child.kill('SIGTERM'), Promise.reject(err)));
    },
  });
  await answered;
  return run;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'parley-login-'));
  home = mkdtempSync(join(tmpdir(), 'parley-home-'));
  // The install exists (migrated, its owner created) before the operator sets the password.
  expect((await cli(['migrate'])).code).toBe(0);
  const set = await cli(['users', 'set-password', '--email', OWNER], { input: `${PASSWORD}\n` });
  expect(set.stderr).toBe('');
  expect(set.code).toBe(0);
  const tooShort = await cli(['users', 'set-password', '--email', OWNER], { input: 'short\n' });
  expect(tooShort.code).toBe(1);
  expect(tooShort.stderr).toMatch(/at least 10 characters/);
  server = await spawnServer(
    dataDir,
    { OWNER_EMAIL: OWNER, DEVICE_FLOW_INTERVAL_SECONDS: '1' },
    { siteUrlIsAddress: true },
  );
}, 120_000);

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await new Promise((r) => (server?.child.exitCode !== null ? r(null) : server.child.once('exit', r)));
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const credentialsFile = () => join(home, 'config', 'parley', 'credentials.json');

describe('login, whoami, logout', () => {
  test('denied on the page: login fails and stores nothing', async () => {
    const run = await login((code) =>
      answerDeviceCode(new FormBrowser(fetchSend(server.url)), {
        email: OWNER,
        password: PASSWORD,
        userCode: code,
        approve: false,
      }),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/denied/);
    expect(existsSync(credentialsFile())).toBe(false);
  }, 60_000);

  test('approved: the token is stored 0600, whoami uses it, logout revokes and forgets it', async () => {
    const run = await login(
      (code) =>
        answerDeviceCode(new FormBrowser(fetchSend(server.url)), { email: OWNER, password: PASSWORD, userCode: code }),
      ['--scopes', 'chatbots:read,tokens:read'],
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`open ${server.url}/device`);
    expect(run.stdout).toMatch(/user_code=[A-Z]{8}/);
    expect(run.stdout).toContain('Signed in to');

    const file = credentialsFile();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'config', 'parley')).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored).toMatchObject({ server: server.url, scope: 'tokens:read chatbots:read' });

    const me = await cli(['whoami', '--json']);
    expect(me.code).toBe(0);
    const who = JSON.parse(me.stdout);
    expect(who).toMatchObject({
      server: server.url,
      user: { email: OWNER, role: 'owner' },
      token: { name: 'Parley CLI (device sign-in)' },
    });
    expect(who.scopes.sort()).toEqual(['chatbots:read', 'tokens:read']);
    // An ordinary token: it lists itself among the account's tokens.
    const tokens = await (
      await fetch(`${server.url}/api/v2/tokens`, { headers: { authorization: `Bearer ${stored.accessToken}` } })
    ).json();
    expect(tokens.data.tokens.map((t: { id: string }) => t.id)).toContain(who.token.id);

    const out = await cli(['logout']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(existsSync(file)).toBe(false);
    const after = await fetch(`${server.url}/api/v2/me`, {
      headers: { authorization: `Bearer ${stored.accessToken}` },
    });
    expect(after.status).toBe(401);
    const again = await cli(['whoami']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/Not signed in/);
  }, 60_000);

  test('login without --server is a usage error; a server that is not Parley is named', async () => {
    const bare = await cli(['login']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/login needs --server/);
    const wrong = await cli(['login', '--server', `${server.url}/nothing-here`]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/Parley server/);
  }, 60_000);
});

describe('the client polls politely', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await buildTestApp({ env: { SITE_URL: base } });
    await t.app.listen({ port, host: '127.0.0.1' });
  });
  afterAll(() => t?.close());

  test('it waits the interval before each poll and 5 s more after each slow_down, and stops when the code expires', async () => {
    // No real waiting: the client's sleeps only move its clock, so every poll reaches the server
    // sooner than asked and the server answers slow_down each time after the first.
    const clock = { t: 0 };
    const sleeps: number[] = [];
    const shown: string[] = [];
    const outcome = deviceLogin({
      server: base,
      show: (p) => shown.push(p.userCode),
      sleep: async (ms) => {
        sleeps.push(ms);
        clock.t += ms;
      },
      now: () => clock.t,
    });
    await expect(outcome).rejects.toThrow(/expired/);
    expect(shown).toHaveLength(1);
    expect(sleeps.slice(0, 5)).toEqual([5000, 5000, 10000, 15000, 20000]);
    // It gave up at the code's lifetime (600 s) instead of polling on.
    expect(sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(600_000);
    expect(sleeps.reduce((a, b) => a + b, 0) - sleeps[sleeps.length - 1]).toBeLessThan(600_000);
  });

  test('a server whose metadata names another issuer is refused', async () => {
    const other = await buildTestApp({ env: { SITE_URL: 'https://elsewhere.example' } });
    try {
      const port = await freePort();
      await other.app.listen({ port, host: '127.0.0.1' });
      await expect(deviceLogin({ server: `http://127.0.0.1:${port}`, show: () => {} })).rejects.toThrow(
        /describes issuer https:\/\/elsewhere\.example/,
      );
    } finally {
      await other.close();
    }
  });
});
