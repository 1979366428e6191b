/**
 * The shell blocks of the README's "Integrations", pasted as a reader would, in bash and in zsh:
 * the typed client's (build it, make a token with the CLI, run example.mjs) and the MCP curl call.
 * Against the compiled server started as the quick start does, on an ephemeral port; the only
 * changes are that address and where example.mjs is written (a folder of the test's, which finds
 * the project's packages as an application folder would).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawnServer } from '../helpers/child-server.js';
import { blockUnder, ROOT } from './blocks.js';

const clientShell = blockUnder('README.md', '### Typed client', 'sh');
const clientExample = blockUnder('README.md', '### Typed client', 'js');
const mcpCurl = blockUnder('README.md', '### MCP server for AI agents', 'bash');

const dirs: string[] = [];
let server: { child: ChildProcess; url: string };
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'parley-integrations-'));
  dirs.push(dataDir);
  server = await spawnServer(dataDir, {});
}, 60_000);
afterAll(() => {
  server?.child.kill('SIGTERM');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs `script` in `shell` from the project folder, with the server's DATA_DIR as the CLI's. */
function sh(shell: string, script: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: `sqlite:${join(dataDir, 'test.db')}`,
    LOG_LEVEL: 'silent',
    // The example's own fallback is http://localhost:3000, the quick start's server.
    PARLEY_URL: server.url,
  };
  for (const name of ['SECRET_KEY', 'ZDOTDIR', 'BASH_ENV', 'ENV', 'PARLEY_TOKEN']) delete env[name];
  const args = shell === 'zsh' ? ['-f', '-e', '-c', script] : ['--norc', '--noprofile', '-e', '-c', script];
  const child = spawn(shell, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (out.stdout += d));
  child.stderr.on('data', (d) => (out.stderr += d));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, ...out })));
}

describe("the README's Integrations shell blocks as written", () => {
  test('are there: the client build, token and run; the MCP call', () => {
    expect(clientShell).toMatch(/^npm run build:client$/m);
    expect(clientShell).toMatch(/^node example\.mjs$/m);
    expect(mcpCurl).toMatch(/^curl -s https:\/\/chat\.example\.com\/mcp \\$/m);
  });

  for (const shell of ['bash', 'zsh'] as const) {
    test(
      `${shell}: the typed client example prints its answer, chatbots and refusal; curl lists the chatbot over MCP`,
      { timeout: 360_000 },
      async () => {
        expect(spawnSync(shell, ['-c', 'exit 0']).status, `${shell} is installed (.ci/run installs it)`).toBe(0);
        const app = mkdtempSync(join(tmpdir(), `parley-client-app-${shell}-`));
        dirs.push(app);
        symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');
        writeFileSync(join(app, 'example.mjs'), clientExample);
        const script = [
          clientShell.replace(/^node example\.mjs$/m, `node ${app}/example.mjs`),
          // The next block, in the same terminal: PARLEY_TOKEN is still exported.
          mcpCurl.replaceAll('https://chat.example.com', server.url),
        ].join('\n');
        const run = await sh(shell, script);
        expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
        expect(run.stderr).toBe('');
        const lines = run.stdout.trimEnd().split('\n');
        // example.mjs: the conversation and its answer, the chatbot made, the refusal.
        expect(run.stdout).toMatch(/^conversation \S+: \S/m);
        expect(run.stdout).toMatch(/^chatbot \S+ Client example$/m);
        expect(run.stdout).toMatch(/^refused: CHATBOT_NOT_FOUND \(404, request \S+\)$/m);
        // curl: a JSON-RPC answer whose tool result lists the chatbots, the example's among them.
        const reply = JSON.parse(lines.at(-1)!);
        expect(reply).toMatchObject({ jsonrpc: '2.0', id: 1 });
        const { chatbots } = JSON.parse(reply.result.content[0].text);
        expect(chatbots.map((c: { title: string }) => c.title)).toContain('Client example');
      },
    );
  }
});
