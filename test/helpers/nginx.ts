/**
 * Debian's nginx in front of the test's own server processes, with deploy/nginx.conf as operators
 * get it: only its upstream `server …:3000` lines and `listen 80` are rewritten to the test's ports.
 * It runs unprivileged in its own prefix (pid, logs, temp files), one worker, so round robin
 * alternates strictly between upstreams. The access log records which upstream served each request.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from './child-server.js';
import { waitFor } from './knowledge-http.js';

const CONFIG = resolve(import.meta.dirname, '../../deploy/nginx.conf');

/** Debian's nginx binary, or null when it is not installed (CI installs it: .ci/run). */
export function nginxBinary(): string | null {
  for (const bin of ['/usr/sbin/nginx', 'nginx']) {
    if (spawnSync(bin, ['-v'], { stdio: 'ignore' }).status === 0) return bin;
  }
  if (process.env.CI === 'true') throw new Error('nginx is required in CI (apt-get install -y nginx)');
  return null;
}

/** deploy/nginx.conf with its upstreams and listening port replaced. */
export function renderNginxConfig(upstreamPorts: number[], listenPort: number): string {
  const text = readFileSync(CONFIG, 'utf8');
  const upstreams = [...text.matchAll(/^(\s*)server [\w.-]+:3000( [^;]*)?;$/gm)];
  if (upstreams.length !== 2) throw new Error('deploy/nginx.conf: expected two upstream `server …:3000` lines');
  const [first] = upstreams;
  const lines = upstreamPorts.map((p) => `${first[1]}server 127.0.0.1:${p}${first[2] ?? ''};`).join('\n');
  let rendered = text.replace(/^\s*server [\w.-]+:3000( [^;]*)?;\n/gm, '');
  rendered = rendered.replace(/(upstream parley \{\n(?:\s*#.*\n)*)/, `$1${lines}\n`);
  if (!/^\s*listen 80;$/m.test(rendered)) throw new Error('deploy/nginx.conf: expected `listen 80;`');
  return rendered.replace(/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${listenPort};`);
}

export interface Nginx {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Access log lines: `<request line> <status> <upstream addresses>`, written as each request ends. */
  accessLog(): { request: string; status: number; upstream: string }[];
  errorLog(): string;
  close(): Promise<void>;
}

export async function startNginx(upstreamPorts: number[]): Promise<Nginx> {
  const bin = nginxBinary();
  if (!bin) throw new Error('nginx is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'parley-nginx-'));
  // Workers run as `nobody` when the master is root: they must reach the temp dirs.
  chmodSync(dir, 0o755);
  const port = await freePort();
  writeFileSync(join(dir, 'parley.conf'), renderNginxConfig(upstreamPorts, port));
  const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((t) => `  ${t}_temp_path ${join(dir, t)};`)
    .join('\n');
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 16384; }
http {
  log_format fleet '$request $status $upstream_addr';
  access_log ${join(dir, 'access.log')} fleet;
${temps}
  include ${join(dir, 'parley.conf')};
}
`,
  );
  const child: ChildProcess = spawn(bin, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const read = (file: string) => {
    try {
      return readFileSync(join(dir, file), 'utf8');
    } catch {
      return '';
    }
  };
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`nginx exited: ${read('error.log')}`);
      return (await fetch(url).catch(() => null)) !== null;
    },
    10_000,
    'nginx',
  );
  return {
    url,
    accessLog: () =>
      read('access.log')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const m = /^(.*) (\d{3}) (.*)$/.exec(line)!;
          return { request: m[1], status: Number(m[2]), upstream: m[3] };
        }),
    errorLog: () => read('error.log'),
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGQUIT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
