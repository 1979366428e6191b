/**
 * `npm run bench -- startup`: how long an operator waits.
 *   - a CLI command (`accounts list` on a migrated SQLite database), spawn to exit: the compiled
 *     CLI run by node, the `parley` command (the same file run by its hashbang), the same through
 *     `npm run --silent cli`, and the TypeScript sources through tsx (how it ran before the
 *     build), against `node -e 0`;
 *   - what `npm start` checks before starting when nothing changed (scripts/prestart.mjs);
 *   - the server, spawn to the first 200 from /api/v2/health on an empty database (migrations
 *     included): the compiled server and the TypeScript sources through tsx.
 * Every figure is the median (and the minimum) of several runs in the same process, so the ratios
 * hold on a busy machine even when the absolute times move.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = 7;
const SERVER_RUNS = 5;

function env(dataDir: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0' };
  for (const name of ['DATABASE_URL', 'SECRET_KEY', 'OPENAI_API_KEY', 'OPENAI_BASE_URL']) delete e[name];
  return e;
}

/** Milliseconds from spawn to exit. */
function timed(command: string, args: string[], dataDir: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...env(dataDir), LOG_LEVEL: 'silent' }, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`${command} ${args.join(' ')} exited ${code}`)),
    );
  });
}

/** Milliseconds from spawn to the first 200 from /api/v2/health, on a fresh data directory. */
async function toHealth(command: string, args: string[]): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-start-'));
  const started = performance.now();
  const child = spawn(command, args, { cwd: ROOT, env: env(dataDir), stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    let out = '';
    let port: number | null = null;
    child.stdout!.on('data', (d) => {
      out += d;
      port ??= Number(/listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]) || null;
    });
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command} exited ${child.exitCode}`);
      if (port) {
        const ok = await fetch(`http://127.0.0.1:${port}/api/v2/health`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok) return performance.now() - started;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    const closed = new Promise((r) => child.on('close', r));
    child.kill('SIGTERM');
    await closed;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function sample(runs: number, one: () => Promise<number>) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await one());
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], min: times[0] };
}

const ms = (n: number) => `${Math.round(n)} ms`.padStart(8);

export async function run() {
  const build = spawnSync(process.execPath, ['scripts/build-server.mjs', '--if-stale'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('the server build failed');
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-cli-'));
  try {
    await timed(process.execPath, ['dist/server/cli.js', 'migrate'], dataDir);
    const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
    const cli = {
      'node -e 0 (baseline)': await sample(RUNS, () => timed(process.execPath, ['-e', '0'], dataDir)),
      'node dist/server/cli.js': await sample(RUNS, () =>
        timed(process.execPath, ['dist/server/cli.js', 'accounts', 'list'], dataDir),
      ),
      'parley (bin, hashbang)': await sample(RUNS, () =>
        timed(join(ROOT, 'dist', 'server', 'cli.js'), ['accounts', 'list'], dataDir),
      ),
      'npm run --silent cli --': await sample(RUNS, () =>
        timed('npm', ['run', '--silent', 'cli', '--', 'accounts', 'list'], dataDir),
      ),
      'tsx server/cli.ts (before)': await sample(RUNS, () =>
        timed(tsx, ['server/cli.ts', 'accounts', 'list'], dataDir),
      ),
    };
    console.log(`CLI \`accounts list\`, spawn to exit, median (min) of ${RUNS}:`);
    for (const [name, t] of Object.entries(cli))
      console.log(`  ${name.padEnd(30)}${ms(t.median)} (${Math.round(t.min)})`);
    const compiled = cli['node dist/server/cli.js'].median;
    console.log(
      `  compiled / tsx: ${(compiled / cli['tsx server/cli.ts (before)'].median).toFixed(2)}; npm's own share: ${ms(cli['npm run --silent cli --'].median - compiled).trim()}`,
    );
    const prestart = await sample(RUNS, () => timed(process.execPath, ['scripts/prestart.mjs'], dataDir));
    console.log(
      `npm start's check that nothing needs building (scripts/prestart.mjs), median (min) of ${RUNS}: ${ms(prestart.median).trim()} (${Math.round(prestart.min)})`,
    );

    const server = {
      'node dist/server/main.js': await sample(SERVER_RUNS, () =>
        toHealth(process.execPath, ['--enable-source-maps', 'dist/server/main.js']),
      ),
      'tsx server/main.ts (before)': await sample(SERVER_RUNS, () => toHealth(tsx, ['server/main.ts'])),
    };
    console.log(
      `Server, spawn to the first 200 from /api/v2/health on an empty database, median (min) of ${SERVER_RUNS}:`,
    );
    for (const [name, t] of Object.entries(server))
      console.log(`  ${name.padEnd(30)}${ms(t.median)} (${Math.round(t.min)})`);
    console.log(
      `  compiled / tsx: ${(server['node dist/server/main.js'].median / server['tsx server/main.ts (before)'].median).toFixed(2)}`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
