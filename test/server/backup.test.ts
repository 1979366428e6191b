/**
 * `parley backup` and `parley restore` on the embedded database, run as the compiled CLI while
 * the server writes: the backup is a consistent snapshot taken without a stop, a restore brings
 * it back as a working install (read through the real app), and what cannot be a backup or a
 * target is refused with one line and exit 1.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { startLiveApp, type LiveApp } from '../helpers/widget.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist', 'server', 'cli.js');
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'parley-backup-'));
  dirs.push(d);
  return d;
};

/** The compiled CLI, spawned (the app in this process keeps serving meanwhile). */
function parley(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const full: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', ...env };
  delete full.SECRET_KEY;
  return new Promise((resolve) => {
    const child = spawn(CLI, args, { env: full, cwd: tmpdir() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let t: LiveApp;
let live: string;
beforeAll(async () => {
  t = await startLiveApp();
  live = join(t.dataDir, 'test.db');
});
afterAll(async () => {
  await t?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Every chatbot's title, read from the app's database. */
const titles = async (app: Pick<LiveApp, 'database'>) =>
  (await app.database.db.selectFrom('chatbots').select('title').execute()).map((c) => c.title);

test('a backup of the live database, taken while it is written, restores into a working install', async () => {
  expect((await t.call('POST', '/api/v2/chatbots', t.ownerToken, { title: 'Before' })).status).toBe(201);
  const out = tempDir();
  const backup = join(out, 'parley-backup.db');
  // The server keeps writing while the backup runs.
  let writing = true;
  const writes = (async () => {
    let n = 0;
    while (writing) {
      await t.call('POST', `/api/v2/chatbots`, t.ownerToken, { title: `During ${n++}` });
    }
    return n;
  })();
  const run = await parley(['backup', backup], { DATABASE_URL: `sqlite:${live}` });
  writing = false;
  const during = await writes;
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^Backed up .*test\.db to .*parley-backup\.db \(\d+ pages\)/);
  expect(during).toBeGreaterThan(0);
  expect((await t.call('POST', '/api/v2/chatbots', t.ownerToken, { title: 'After' })).status).toBe(201);

  // Restored into a new install (its secret key copied with it, as docs/deploy.md says).
  const restoredDir = tempDir();
  copyFileSync(join(t.dataDir, 'secret.key'), join(restoredDir, 'secret.key'));
  const restored = await parley(['restore', backup], { DATABASE_URL: `sqlite:${join(restoredDir, 'test.db')}` });
  expect(restored.code).toBe(0);
  expect(restored.stdout).toMatch(/^Restored .*parley-backup\.db into .*test\.db \(\d+ pages, \d+ migrations/);
  const app = await buildTestApp({ dataDir: restoredDir });
  try {
    const seen = await titles(app);
    // The owner's token of the backed-up install works on the restored one.
    expect((await app.call('GET', '/api/v2/chatbots', t.ownerToken)).status).toBe(200);
    expect(seen).toContain('Before');
    expect(seen).not.toContain('After');
    // A snapshot: a prefix of the writes made during it, none torn.
    const duringSeen = seen.filter((s) => s.startsWith('During ')).map((s) => Number(s.slice(7)));
    expect(duringSeen.sort((a, b) => a - b)).toEqual(duringSeen.map((_, i) => i));
    // The restored install works: it writes and reads.
    expect((await app.call('POST', '/api/v2/chatbots', t.ownerToken, { title: 'Restored' })).status).toBe(201);
  } finally {
    await app.close();
  }
});

test('what cannot be a backup or a target is refused with one line, and nothing is changed', async () => {
  const out = tempDir();
  const existing = join(out, 'taken.db');
  writeFileSync(existing, 'keep me');
  const over = await parley(['backup', existing], { DATABASE_URL: `sqlite:${live}` });
  expect(over.code).toBe(1);
  expect(over.stderr).toMatch(/already exists/);

  const notDb = await parley(['restore', existing], { DATABASE_URL: `sqlite:${join(out, 'target.db')}` });
  expect(notDb.code).toBe(1);
  expect(notDb.stderr).toMatch(/is not a database/);
  expect(existsSync(join(out, 'target.db'))).toBe(false);

  const pg = await parley(['backup', join(out, 'x.db')], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
  expect(pg.code).toBe(1);
  expect(pg.stderr).toMatch(/pg_dump/);

  const usage = await parley(['backup'], { DATABASE_URL: `sqlite:${live}` });
  expect(usage.code).toBe(2);
});
