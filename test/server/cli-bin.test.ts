/**
 * The `parley` command: package.json's "bin" names the compiled CLI, which runs as a program of its
 * own (hashbang, executable), so `npm link` or a path to it skips npm's start-up; run from any
 * folder, it works on the DATA_DIR it is given, and says where the database is when there is none:
 * a read command creates nothing, a command that writes creates it and says where.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist', 'server', 'cli.js');
const dataDir = mkdtempSync(join(tmpdir(), 'parley-bin-'));
const elsewhere = mkdtempSync(join(tmpdir(), 'parley-elsewhere-'));
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

function parley(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', ...options.env };
  delete env.DATABASE_URL;
  delete env.SECRET_KEY;
  if (!options.env?.DATA_DIR) delete env.DATA_DIR;
  return spawnSync(CLI, args, { cwd: options.cwd ?? tmpdir(), env, encoding: 'utf8' });
}

test('package.json names dist/server/cli.js as the parley command, built executable with a node hashbang', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
  expect(pkg.bin).toEqual({ parley: 'dist/server/cli.js' });
  const cli = join(ROOT, pkg.bin!.parley);
  expect(statSync(cli).mode & 0o111).not.toBe(0);
  expect(readFileSync(cli, 'utf8').split('\n', 1)[0]).toBe('#!/usr/bin/env -S node --enable-source-maps');
});

test('run directly from another folder, it works on the DATA_DIR given and exits 0; bad arguments exit 2', () => {
  const env = { DATA_DIR: dataDir };
  const made = parley(['migrate'], { env });
  expect(made.status, made.stderr).toBe(0);
  expect(made.stdout).toContain(`Applied to SQLite at ${join(dataDir, 'parley.db')}: 0001-foundation`);
  const shown = parley(['plan', 'show', '--json'], { env });
  expect(shown.status, shown.stderr).toBe(0);
  expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'self-hosted', webhooks: true });
  const bad = parley(['frobnicate'], { env });
  expect(bad.status).toBe(2);
  expect(bad.stderr).toMatch(/Unknown command "frobnicate"/);
  expect(parley(['migrate'], { env }).stdout).toBe(
    `The database (SQLite at ${join(dataDir, 'parley.db')}) is up to date\n`,
  );
});

test('outside the project folder, a read command says where it looked for the database, exits 1 and creates nothing', () => {
  for (const args of [['tokens', 'list'], ['accounts', 'list', '--json'], ['plan', 'show'], ['frobnicate']]) {
    const run = parley(args, { cwd: elsewhere });
    expect(run.status, args.join(' ')).toBe(args[0] === 'frobnicate' ? 2 : 1);
    if (args[0] !== 'frobnicate') {
      expect(run.stderr).toBe(
        `Error: No database at ${join(elsewhere, 'data', 'parley.db')} (DATA_DIR unset: ./data of ${elsewhere}). Run parley in the project folder where the server runs, or set DATA_DIR (or DATABASE_URL) to the server's; a command that writes (migrate, tokens create, ...) creates one.\n`,
      );
    }
    expect(run.stdout).toBe('');
    expect(readdirSync(elsewhere), args.join(' ')).toEqual([]);
  }
});

test('a command that writes creates the missing database and says where, on stderr (stdout stays the token)', () => {
  const run = parley(['tokens', 'create', '--access', 'full', '--json'], { cwd: elsewhere });
  expect(run.status, run.stderr).toBe(0);
  expect(run.stderr.split('\n')[0]).toBe(
    `Creating a new database at ${join(elsewhere, 'data', 'parley.db')} (DATA_DIR unset: ./data of ${elsewhere})`,
  );
  expect(JSON.parse(run.stdout)).toMatchObject({ token: expect.any(String) });
  expect(existsSync(join(elsewhere, 'data', 'parley.db'))).toBe(true);
  // Now there is one: reads work and say nothing more.
  const listed = parley(['tokens', 'list', '--json'], { cwd: elsewhere });
  expect([listed.status, listed.stderr]).toEqual([0, '']);
  expect(JSON.parse(listed.stdout)).toHaveLength(1);
});

test('not found is exit 1 with one line on stderr, not the usage text', () => {
  const env = { DATA_DIR: dataDir };
  for (const args of [
    ['tokens', 'revoke', 'tok_nope'],
    ['users', 'set-password', '--email', 'nobody@example.com'],
    ['plan', 'show', '--account', 'acc_nope'],
  ]) {
    const run = parley(args, { env });
    expect(run.status, args.join(' ')).toBe(1);
    expect(run.stderr, args.join(' ')).toMatch(
      /^Error: [^\n]*(no token tok_nope|no user nobody@example.com|not found)[^\n]*\n$/i,
    );
    expect(run.stdout).toBe('');
  }
});
