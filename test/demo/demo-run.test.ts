/**
 * `npm run demo` as a newcomer runs it (issue 22, item 14): on a fresh DATA_DIR it starts, says to
 * paste the printed token into the playground, and stops on SIGTERM sent to npm (the process a
 * supervisor or `kill` reaches); on a busy port it fails with one line naming the port and how to
 * pick another, not a stack.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { freePort } from '../helpers/child-server.js';
import { waitFor } from '../helpers/knowledge-http.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function demo(port: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-demo-'));
  dirs.push(dataDir);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  };
  for (const name of ['DATABASE_URL', 'SECRET_KEY', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'SITE_URL']) delete env[name];
  const child = spawn('npm', ['run', 'demo'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d) => (out.stdout += d));
  child.stderr!.on('data', (d) => (out.stderr += d));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, out, exit };
}

const answers = async (url: string) => (await fetch(url).catch(() => null))?.ok === true;

describe('npm run demo', { timeout: 180_000 }, () => {
  test('on a fresh install: starts, says to paste the token, and stops on SIGTERM to npm', async () => {
    const port = await freePort();
    const run = demo(port);
    await waitFor(
      () => run.out.stdout.includes('Ctrl+C to stop.') || run.child.exitCode !== null,
      150_000,
      'the demo to start',
    );
    expect(run.out.stdout, run.out.stderr).toContain(`Parley demo running at http://localhost:${port}`);
    const token = /API token \(shown once\): (\S+)\n\s+Paste it into the playground's "API token" field/.exec(
      run.out.stdout,
    )?.[1];
    expect(token, run.out.stdout).toBeTruthy();
    const me = await fetch(`http://127.0.0.1:${port}/api/v2/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);

    run.child.kill('SIGTERM');
    await run.exit;
    // The server behind npm stopped too, cleanly: the port is free and the log says so.
    await waitFor(async () => !(await answers(`http://127.0.0.1:${port}/healthz`)), 15_000, 'the port to be released');
    await waitFor(() => run.out.stdout.includes('"msg":"closed"'), 15_000, 'the closed line');
  });

  test('on a busy port: one line naming the port and how to pick another, exit 1', async () => {
    const busy = createServer();
    const port = await freePort();
    await new Promise<void>((r) => busy.listen(port, '127.0.0.1', r));
    try {
      const run = demo(port);
      expect(await run.exit).toBe(1);
      const lines = run.out.stderr.split('\n').filter((l) => l.trim() && !l.startsWith('npm '));
      expect(lines).toEqual([
        `Parley could not start: Port ${port} is already in use on 127.0.0.1 (another Parley or another program): stop it or pick another port, e.g. PORT=${port + 1} npm run demo`,
      ]);
      expect(run.out.stderr).not.toMatch(/^\s+at /m);
    } finally {
      await new Promise((r) => busy.close(r));
    }
  });
});
