/**
 * The README's quick start, pasted as a newcomer would, in bash and in zsh (issue 22, item 12).
 * Its ```sh blocks are read from README.md and run as written, except the two that keep running:
 * the server (`npm start`: the compiled server on an ephemeral port, with the block's
 * ALLOW_PRIVATE_FETCH) and the static site (`python3 -m http.server`: a static server started
 * here over the folder the block wrote). Addresses and the site's folder are swapped for the
 * test's; between the two blocks of step 6 a question through the API stands in for the visitor
 * in the browser.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawnServer } from '../helpers/child-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SHELLS = ['bash', 'zsh'] as const;

/** The ```sh blocks between `## Quick start` and the next `## ` heading. */
function quickStartBlocks(): string[] {
  const start = README.indexOf('\n## Quick start');
  const end = README.indexOf('\n## ', start + 1);
  return [...README.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

const blocks = quickStartBlocks();
const serverBlock = blocks.find((b) => /\bnpm start\b/.test(b))!;
const siteBlock = blocks.find((b) => /python3 -m http\.server/.test(b))!;
const rest = blocks.filter((b) => b !== serverBlock && b !== siteBlock);

/** A static file server over `dir` (what `python3 -m http.server` does for the block). */
async function staticSite(dir: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0]));
    const file = join(dir, path.endsWith('/') ? `${path}index.html` : path);
    if (!file.startsWith(dir) || !existsSync(file)) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const dirs: string[] = [];
let server: { child: ChildProcess; url: string };
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'parley-readme-'));
  dirs.push(dataDir);
  const allow = /ALLOW_PRIVATE_FETCH=(\S+)/.exec(serverBlock)![1];
  server = await spawnServer(dataDir, { ALLOW_PRIVATE_FETCH: allow });
}, 60_000);
afterAll(() => {
  server?.child.kill('SIGTERM');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs `script` in `shell`; asynchronous, since the static site is served from this process. */
function sh(
  shell: string,
  script: string,
  cwd: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: `sqlite:${join(dataDir, 'test.db')}`,
    LOG_LEVEL: 'silent',
  };
  for (const name of ['SECRET_KEY', 'ZDOTDIR', 'BASH_ENV', 'ENV']) delete env[name];
  // -e: a command that fails (a zsh glob with no match, say) stops the block, as it would fail the reader.
  const args = shell === 'zsh' ? ['-f', '-e', '-c', script] : ['--norc', '--noprofile', '-e', '-c', script];
  const child = spawn(shell, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (out.stdout += d));
  child.stderr.on('data', (d) => (out.stderr += d));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, ...out })));
}

describe('the quick start as written', () => {
  test('has the blocks it describes: one install, the server, the site with phone-ready pages', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    expect(serverBlock.trim()).toMatch(/^ALLOW_PRIVATE_FETCH=127\.0\.0\.1 npm start\b/);
    // `npm ci` only in Set up's two commands: one in the quick start reinstalls and then finds the port taken.
    const allBlocks = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].trim());
    expect(allBlocks.filter((b) => /\bnpm ci\b/.test(b))).toEqual(['npm ci && npm start', 'npm ci && npm test']);
    expect(blocks.join('\n')).not.toMatch(/\bnpm ci\b/);
    const pages = [...siteBlock.matchAll(/cat > (\S+\.html) <<'EOF'\n([\s\S]*?)\nEOF/g)];
    expect(pages.map((p) => p[1])).toEqual(['index.html', 'delivery.html', 'returns.html']);
    for (const [, , html] of pages)
      expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  });

  for (const shell of SHELLS) {
    test(
      `${shell}: from a token to an answer, the team's take-over, and the widget on the page`,
      { timeout: 240_000 },
      async () => {
        expect(spawnSync(shell, ['-c', 'exit 0']).status, `${shell} is installed (.ci/run installs it)`).toBe(0);
        const acme = mkdtempSync(join(tmpdir(), `parley-acme-${shell}-`));
        dirs.push(acme);
        const local = (text: string) =>
          text.replaceAll('/tmp/acme', acme).replaceAll('http://localhost:3000', server.url);

        // Step 2 without its server: the pages, written by the block itself.
        const made = await sh(shell, local(siteBlock.replace(/^python3 -m http\.server.*$/m, '')), ROOT);
        expect(made.status, made.stderr).toBe(0);
        const site = await staticSite(acme);
        try {
          const visitor = `curl -s $API/chatbots/$BOT/messages -H "$AUTH" -H 'Content-Type: application/json' -d '{"message":"Where is my parcel?"}' > /dev/null`;
          const steps = rest.map((b) => local(b).replaceAll('http://127.0.0.1:8080/', `${site.url}/`));
          // The visitor's question in the browser (step 6), between the tag and the take-over.
          const script = [
            ...steps.slice(0, -1),
            visitor,
            steps.at(-1)!,
            `printf 'RESULT %s %s\\n' "$BOT" "$TOKEN"`,
          ].join('\n');
          const run = await sh(shell, script, ROOT);
          expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
          expect(run.stderr).toBe('');
          const out = run.stdout;
          // Step 3: the job succeeded with every page.
          expect(out).toMatch(/"status":"succeeded"/);
          expect(out).toMatch(/"counts":\{"found":3,"done":3/);
          // Step 4: the answer and its sources, one link a line.
          expect(out).toContain('three to five working days');
          expect(out).toMatch(new RegExp(`^${site.url}/delivery\\.html#:~:text=`, 'm'));
          // Step 5, in order.
          expect(out).toMatch(/^AGENT\nagent\nAI\nRESOLVED$/m);
          // Step 6: the tag on the page, and the newest conversation taken over with the reply.
          const [, bot, token] = /^RESULT (\S+) (\S+)$/m.exec(out)!;
          expect(readFileSync(join(acme, 'index.html'), 'utf8').trimEnd().split('\n').at(-1)).toBe(
            `<script src="${server.url}/widget.js" data-chatbot-id="${bot}" fetchpriority="high" async></script>`,
          );
          const api = `${server.url}/api/v2/chatbots/${bot}`;
          const auth = { authorization: `Bearer ${token}` };
          const newest = (await (await fetch(`${api}/conversations`, { headers: auth })).json()).data.conversations[0];
          expect(newest.mode).toBe('AGENT');
          const messages = (
            await (await fetch(`${api}/conversations/${newest.threadId}/messages`, { headers: auth })).json()
          ).data.messages;
          expect(messages.map((m: { author: string; text: string }) => [m.author, m.text]).at(-1)).toEqual([
            'agent',
            'Hi, a person here: how can I help?',
          ]);
        } finally {
          await new Promise((r) => site.server.close(r));
        }
      },
    );
  }
});
