/**
 * The `parley` command: package.json's "bin" names the compiled CLI, which runs as a program of its
 * own (hashbang, executable), so `npm link` or a path to it skips npm's start-up; run from any
 * folder, it works on the DATA_DIR it is given.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'parley-bin-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test('package.json names dist/server/cli.js as the parley command, built executable with a node hashbang', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
  expect(pkg.bin).toEqual({ parley: 'dist/server/cli.js' });
  const cli = join(ROOT, pkg.bin!.parley);
  expect(statSync(cli).mode & 0o111).not.toBe(0);
  expect(readFileSync(cli, 'utf8').split('\n', 1)[0]).toBe('#!/usr/bin/env -S node --enable-source-maps');
});

test('run directly from another folder, it works on the DATA_DIR given and exits 0; bad arguments exit 2', () => {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  delete env.DATABASE_URL;
  delete env.SECRET_KEY;
  const cli = join(ROOT, 'dist', 'server', 'cli.js');
  const shown = spawnSync(cli, ['plan', 'show', '--json'], { cwd: tmpdir(), env, encoding: 'utf8' });
  expect(shown.status, shown.stderr).toBe(0);
  expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'self-hosted', webhooks: true });
  const bad = spawnSync(cli, ['frobnicate'], { cwd: tmpdir(), env, encoding: 'utf8' });
  expect(bad.status).toBe(2);
  expect(bad.stderr).toMatch(/Unknown command "frobnicate"/);
});
