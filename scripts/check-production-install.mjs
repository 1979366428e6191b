// `npm run check:production`: the production install as an operator does it. Copies the project's
// files (tracked and new, not ignored) to a temporary folder, runs `npm ci --omit=dev` there (from
// npm's cache when it can), starts `npm start` and expects /healthz, /readyz and /widget.js to
// answer 200, then stops it with SIGTERM. It compiles better-sqlite3 and builds everything from
// scratch (minutes), so it is a check of its own, not part of `npm test`.
// `--keep` leaves the folder behind to look into.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from './stale.mjs';

const keep = process.argv.includes('--keep');
const began = Date.now();
const seconds = () => `${Math.round((Date.now() - began) / 1000)} s`;
const say = (line) => console.log(`check-production-install: ${line} (${seconds()})`);

const dir = mkdtempSync(join(tmpdir(), 'parley-production-'));
let server;
try {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f && existsSync(join(ROOT, f)));
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(dir, file));
  }
  say(`copied ${files.length} files to ${dir}`);

  execFileSync('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: dir,
    stdio: 'inherit',
  });
  for (const dev of ['vitest', 'typescript', 'eslint']) {
    if (existsSync(join(dir, 'node_modules', dev)))
      throw new Error(`${dev} (a dev dependency) was installed: --omit=dev did not hold`);
  }
  say('npm ci --omit=dev done');

  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
  const env = { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'warn' };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL']) delete env[name];
  server = spawn('npm', ['start'], { cwd: dir, env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
  const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve(code ?? signal)));

  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = await fetch(`${base}/healthz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    if (server.exitCode !== null || Date.now() > deadline)
      throw new Error(`npm start did not answer /healthz (last status ${status})`);
    await new Promise((r) => setTimeout(r, 500));
  }
  for (const path of ['/healthz', '/readyz', '/widget.js']) {
    const status = (await fetch(`${base}${path}`)).status;
    if (status !== 200) throw new Error(`GET ${path} answered ${status}`);
    say(`GET ${path} 200`);
  }
  process.kill(-server.pid, 'SIGTERM');
  const code = await exited;
  if (code !== 0) throw new Error(`npm start exited with ${code} after SIGTERM`);
  server = undefined;
  say('npm ci --omit=dev && npm start works');
} catch (err) {
  console.error(`check-production-install: FAILED: ${err.message}`);
  process.exitCode = 1;
} finally {
  if (server && server.exitCode === null) process.kill(-server.pid, 'SIGKILL');
  if (keep) console.log(`check-production-install: kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
