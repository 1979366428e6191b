/**
 * The compiled server as an operator runs it: `npm start` (plain node on dist/server/main.js,
 * built by the test set-up), the README's path from a token to an answered question against a
 * local site, the start line and the ingest job's log lines, a clean stop on SIGTERM, and
 * start-up failures as one line with the documented exit code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../helpers/child-server.js';
import { waitFor } from '../helpers/knowledge-http.js';
import { page, serveSite, type TestSite } from '../helpers/site.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-start-'));
  dirs.push(dir);
  return dir;
};

interface Proc {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exit: Promise<number | null>;
  /** The JSON log lines printed so far. */
  logs(): { msg: string; [k: string]: unknown }[];
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Proc {
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1' };
  for (const name of [
    'DATABASE_URL',
    'SECRET_KEY',
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'EMBEDDING_MODEL',
    'ALLOW_PRIVATE_FETCH',
    'TRUST_PROXY',
    'PORT',
  ])
    delete base[name];
  const child = spawn(command, args, { cwd: ROOT, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const proc: Proc = {
    child,
    stdout: '',
    stderr: '',
    exit: new Promise((resolve) => child.on('close', (code) => resolve(code))),
    logs: () =>
      proc.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l)),
  };
  child.stdout!.on('data', (d) => (proc.stdout += d));
  child.stderr!.on('data', (d) => (proc.stderr += d));
  return proc;
}

describe('npm start: the built server from a token to an answer, then SIGTERM', { timeout: 120_000 }, () => {
  let site: TestSite;
  let server: Proc;
  let dataDir: string;
  let api: string;

  beforeAll(async () => {
    site = await serveSite({
      '/': page('Acme help centre', '<p>Answers about shipping and returns for every Acme customer in Europe.</p>', [
        '/shipping',
        '/index.html',
        '/shipping/?utm_source=nav#top',
      ]),
      '/index.html': page(
        'Acme help centre',
        '<p>Answers about shipping and returns for every Acme customer in Europe.</p>',
      ),
      '/shipping': page(
        'Shipping',
        '<p>Standard delivery takes three to five working days and costs 4.90 EUR. Orders above 50 EUR ship free of charge.</p>',
      ),
    });
    dataDir = tempDir();
    const port = await freePort();
    api = `http://localhost:${port}/api/v2`;
    server = run('npm', ['start'], {
      DATA_DIR: dataDir,
      PORT: String(port),
      ALLOW_PRIVATE_FETCH: '1',
      QUEUE_POLL_MS: '50',
    });
    await waitFor(
      () => server.logs().some((l) => l.msg.startsWith('Parley is ready')) || server.child.exitCode !== null,
      60_000,
      'the start line',
    );
  }, 90_000);

  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await site?.close();
  });

  test('the start line says which database, answerer, embeddings and private addresses, and where the API is', () => {
    const ready = server.logs().find((l) => l.msg.startsWith('Parley is ready'));
    expect(ready, server.stderr).toBeDefined();
    expect(ready).toMatchObject({
      database: `SQLite at ${join(dataDir, 'parley.db')}`,
      answerer: expect.stringContaining('built-in'),
      embeddings: expect.stringMatching(/^off/),
      privateFetch: expect.stringContaining('ALLOW_PRIVATE_FETCH=1'),
      observability: 'metrics off (no METRICS_TOKEN), traces off',
      api,
      openapi: `${api}/openapi.json`,
      console: api.replace(/\/api\/v2$/, '/console'),
      // A fresh install: nobody has a password, so the first owner gets a set-up link.
      setupLink: expect.stringMatching(/\/console\/setup#[\w-]+\.[\w-]+$/),
    });
    expect(ready!.msg).toContain(`First run: nobody can sign in yet; open ${ready!.setupLink}`);
  });

  test('the README path: token (built CLI), chatbot, website, job, question, answer with one source per page', async () => {
    const cli = run('npm', ['run', '--silent', 'cli', '--', 'tokens', 'create', '--access', 'full', '--json'], {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
    });
    expect(await cli.exit, cli.stderr).toBe(0);
    const token = JSON.parse(cli.stdout).token as string;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${api}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect((await call('GET', '/health')).status).toBe(200);
    const bot = await call('POST', '/chatbots', { title: 'Docs assistant' });
    expect(bot.status).toBe(201);
    const id = bot.body.data.chatbot.id;
    const added = await call('POST', `/chatbots/${id}/knowledge/website`, { url: `${site.url}/` });
    expect(added.status).toBe(202);
    const jobId = added.body.data.job.id;
    let job: any;
    await waitFor(
      async () => {
        job = (await call('GET', `/chatbots/${id}/ingest-jobs/${jobId}`)).body.data.job;
        return job.status === 'succeeded' || job.status === 'failed';
      },
      60_000,
      'the ingest job',
    );
    // `/`, `/index.html` and `/shipping/?utm_source=nav#top` are two pages, not four.
    expect(job).toMatchObject({ status: 'succeeded', counts: { found: 2, done: 2, failed: 0, skipped: 0 } });

    const asked = await call('POST', `/chatbots/${id}/messages`, { message: 'How long does standard delivery take?' });
    expect(asked.status).toBe(201);
    const answer = asked.body.data.answer;
    expect(answer.text).toContain('three to five working days');
    expect(answer.sources.map((s: { url: string }) => s.url)).toEqual([`${site.url}/shipping`]);

    // Take over, reply as the team, hand back, resolve: the action routes with an empty JSON body.
    const thread = `/chatbots/${id}/conversations/${asked.body.data.conversation.threadId}`;
    expect((await call('POST', `${thread}/take-over`, '')).body.data.conversation).toMatchObject({ mode: 'AGENT' });
    expect((await call('POST', `${thread}/replies`, { message: 'A colleague will check your parcel.' })).status).toBe(
      201,
    );
    expect((await call('POST', `${thread}/switch-to-ai`, '')).body.data.conversation).toMatchObject({ mode: 'AI' });
    expect((await call('PATCH', thread, { status: 'RESOLVED' })).body.data.conversation).toMatchObject({
      status: 'RESOLVED',
    });

    // The job said what it did: its start and its end with counts and duration.
    const lines = server.logs().filter((l) => l.jobId === jobId);
    expect(lines[0]).toMatchObject({
      msg: expect.stringMatching(/^ingest job started: website/),
      source: 'website',
      chatbotId: id,
    });
    expect(lines.at(-1)).toMatchObject({
      msg: expect.stringMatching(/^ingest job succeeded: 2 indexed/),
      status: 'succeeded',
      found: 2,
      done: 2,
      failed: 0,
      durationMs: expect.any(Number),
    });
    expect(JSON.stringify(server.logs())).not.toContain(token);
  });

  test('SIGTERM to npm reaches the server: it closes cleanly and exits 0', async () => {
    server.child.kill('SIGTERM');
    expect(await server.exit).toBe(0);
    const msgs = server.logs().map((l) => l.msg);
    expect(msgs).toContainEqual(expect.stringMatching(/^closing/));
    expect(msgs.at(-1)).toBe('closed');
  });
});

describe('start-up failures: one line naming what to change, never a stack', { timeout: 120_000 }, () => {
  const start = (env: NodeJS.ProcessEnv) =>
    run(process.execPath, ['dist/server/main.js'], { DATA_DIR: tempDir(), PORT: '0', ...env });
  let busy: ReturnType<typeof createServer>;
  let busyPort: number;

  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => busy.close(resolve));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test.each([
    ['a port in use', () => ({ PORT: String(busyPort) }), 1, /^Parley could not start: Port \d+ is already in use/],
    [
      'a HOST that does not resolve',
      () => ({ HOST: 'no-such-host.invalid' }),
      1,
      /^Parley could not start: HOST "no-such-host\.invalid" does not resolve/,
    ],
    [
      'a data directory that is a file',
      () => {
        const file = join(tempDir(), 'not-a-dir');
        writeFileSync(file, 'x');
        return { DATA_DIR: file };
      },
      1,
      /^Parley could not start: Cannot write \S+not-a-dir\S* \(a file is in the way, E\w+\): DATA_DIR must be a directory this user can write$/,
    ],
    [
      'an unreachable database',
      () => ({ DATABASE_URL: 'postgres://parley:secret-password@127.0.0.1:1/parley' }),
      1,
      /^Parley could not start: Cannot reach the database at 127\.0\.0\.1:1\/parley \(ECONNREFUSED\)/,
    ],
    [
      'TRUST_PROXY=yes',
      () => ({ TRUST_PROXY: 'yes' }),
      78,
      /^Configuration error: TRUST_PROXY must be 1 or 0; got "yes"/,
    ],
    [
      'OPENAI_BASE_URL=ftp://…',
      () => ({ OPENAI_BASE_URL: 'ftp://models.example/v1' }),
      78,
      /^Configuration error: OPENAI_BASE_URL must be an http:\/\/ or https:\/\/ address/,
    ],
  ] as const)('%s', async (_label, env, code, message) => {
    const proc = start(env());
    expect(await proc.exit).toBe(code);
    const lines = proc.stderr.trim().split('\n');
    expect(lines, proc.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(proc.stderr).not.toContain('secret-password');
  });
});
