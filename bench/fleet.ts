/**
 * Parley as operators scale it: the compiled server (`dist/server/main.js`) on PostgreSQL + Redis,
 * one instance and two behind Debian's nginx (deploy/nginx.conf), the clients in this process.
 * 1. Against a fair yardstick: a minimal durable chat server (bench/durable-chat.ts: ws and the
 *    same PostgreSQL, one transaction per message storing it and its event, the same durability),
 *    same clients and frames. BENCH_SOCKETS (200) sockets each send `message.send` and wait for
 *    their own `message.created`: once at an offered BENCH_OFFERED (1,500) msg/s (p50/p99), then as
 *    fast as answered (msg/s). Goal: Parley >= 0.5x the yardstick's msg/s, p99 <= 20 ms at 1,500/s.
 *    The chatbot is HUMAN_ONLY: the gateway and storage path alone, no answer generated.
 * 2. Two instances behind nginx against one behind the same nginx, as fast as answered. Goal >= 1.6x
 *    where the cores allow (this machine has two: nginx, PostgreSQL, Redis and the clients share them).
 * 3. BENCH_IDLE_SOCKETS (5,000) idle visitor sockets through nginx across the two instances: the sum
 *    of both servers' RSS growth (each read after a forced full GC) per socket. Goal <= 20 KB.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { WS_SESSION_PROTOCOL_PREFIX, WS_SUBPROTOCOL, type ServerFrame } from '../shared/protocol.js';
import { buildTestApp } from '../test/helpers/app.js';
import { freePort } from '../test/helpers/child-server.js';
import { startNginx, type Nginx } from '../test/helpers/nginx.js';
import { createPostgresSchema } from '../test/helpers/postgres.js';
import { REDIS_URL } from '../test/helpers/redis.js';

const int = (name: string, fallback: number) => {
  const n = Number(process.env[name] || fallback);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number`);
  return n;
};
const SOCKETS = int('BENCH_SOCKETS', 200);
const DURATION_S = int('BENCH_DURATION', 10);
const OFFERED = int('BENCH_OFFERED', 1500);
const IDLE = int('BENCH_IDLE_SOCKETS', 5000);
/** BENCH_PARTS: which of the three parts run (default all), e.g. `1` for A/B runs against the yardstick. */
const PARTS = new Set((process.env.BENCH_PARTS ?? '1,2,3').split(','));
const SECRET_KEY = 'c'.repeat(64);
const TEXT = 'Do you ship to Norway, and how long does it take?';

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const fmt = (n: number) => n.toFixed(2);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(check: () => Promise<boolean>, what: string, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not come up`);
    await sleep(100);
  }
}

class Socket {
  private waiting: Array<{ match: (f: ServerFrame) => boolean; resolve: (f: ServerFrame) => void }> = [];
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as ServerFrame;
      const i = this.waiting.findIndex((w) => w.match(frame));
      if (i >= 0) this.waiting.splice(i, 1)[0].resolve(frame);
    });
  }
  static open(url: string, protocols: string[] = []): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, protocols, { perMessageDeflate: false });
      const s = new Socket(ws);
      ws.once('open', () => resolve(s));
      ws.once('error', reject);
    });
  }
  next(match: (f: ServerFrame) => boolean): Promise<ServerFrame> {
    return new Promise((resolve) => this.waiting.push({ match, resolve }));
  }
  send(frame: unknown) {
    this.ws.send(JSON.stringify(frame));
  }
}

/** Each socket sends and waits for its own stored message, at `rate` msg/s in all (0: as fast as answered). */
async function roundTrips(sockets: Socket[], conversations: string[], rate: number, tag: string) {
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + DURATION_S * 1000;
  const interval = rate > 0 ? (sockets.length / rate) * 1000 : 0;
  await Promise.all(
    sockets.map(async (s, i) => {
      for (let n = 0; performance.now() < end; n++) {
        if (interval) {
          const wait = start + (n + i / sockets.length) * interval - performance.now();
          if (wait > 0) await sleep(wait);
          if (performance.now() >= end) break;
        }
        const clientId = `${tag}-${i}-${n}`;
        const t0 = performance.now();
        const created = s.next((f) => f.type === 'message.created' && f.message.clientId === clientId);
        s.send({ type: 'message.send', clientId, conversationId: conversations[i], text: TEXT });
        await created;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / DURATION_S, p50: pct(latencies, 50), p99: pct(latencies, 99) };
}

type Result = Awaited<ReturnType<typeof roundTrips>>;

/** CPU time (user + system, ms) a process has used: a per-message figure load on the machine hardly moves. */
function cpuMs(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** `work`'s result with the CPU µs per message `child` spent on it. */
async function withCpu(child: ChildProcess, work: () => Promise<Result>) {
  const before = cpuMs(child);
  const result = await work();
  return { ...result, cpuUs: ((cpuMs(child) - before) * 1000) / (result.perSecond * DURATION_S) };
}
const line = (name: string, r: Result) =>
  `   ${name.padEnd(34)} ${r.perSecond.toFixed(0).padStart(6)} msg/s   p50 ${fmt(r.p50).padStart(6)} ms   p99 ${fmt(r.p99).padStart(6)} ms`;

export async function run() {
  const pg = await createPostgresSchema();
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-fleet-'));
  const env = {
    DATA_DIR: dataDir,
    SECRET_KEY,
    DATABASE_URL: pg.url,
    REDIS_URL,
    TRUST_PROXY: '1',
    LOG_LEVEL: 'warn',
    WS_MAX_SOCKETS_PER_IP: '1000000',
    WS_MAX_SOCKETS_PER_VISITOR: '1000000',
    WS_MAX_FRAMES_PER_10S: '100000',
    WS_CONNECTS_PER_MIN: '1000000',
  };
  const t = await buildTestApp({ dialect: 'postgres', postgresSchema: pg.schema, dataDir, env });
  const { token } = await t.token();
  const human = (
    await t.call('POST', '/api/v2/chatbots', token, {
      title: 'Desk',
      settings: { 'chat-mode': { mode: 'HUMAN_ONLY' } },
    })
  ).body.data.chatbot;
  const bot = (await t.app.services.store.chatbots.get(human.id))!;
  const tokens: string[] = [];
  for (let i = 0; i < SOCKETS; i++) tokens.push((await t.app.services.widget.startSession(bot, {})).token);
  const idleToken = (await t.app.services.widget.startSession(bot, {})).token;
  await t.close();

  const children: ChildProcess[] = [];
  const nginxes: Nginx[] = [];
  const start = (args: string[], childEnv: Record<string, string>) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...childEnv },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
    return child;
  };
  const parley = async () => {
    const port = await freePort();
    const gcAck = join(dataDir, `gc-${port}`);
    // BENCH_SERVER_ARGS: extra node flags for the servers, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
    const serverArgs = (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean);
    const child = start([...serverArgs, '--expose-gc', '--import', './bench/server-gc.mjs', 'dist/server/main.js'], {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      BENCH_GC_ACK: gcAck,
    });
    await waitUntil(async () => (await fetch(`http://127.0.0.1:${port}/api/v2/health`)).ok, 'parley');
    let collections = 0;
    const rssAfterGc = async () => {
      child.kill('SIGUSR2');
      collections++;
      await waitUntil(async () => Number(readFileSync(gcAck, 'utf8')) === collections, 'a collection', 10_000);
      return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]);
    };
    return { port, child, rssAfterGc };
  };
  const visit = async (base: string, sessionToken: string) => {
    const s = await Socket.open(`${base.replace(/^http/, 'ws')}/api/widget/ws`, [
      WS_SUBPROTOCOL,
      WS_SESSION_PROTOCOL_PREFIX + sessionToken,
    ]);
    const ready = s.next((f) => f.type === 'ready');
    s.send({ type: 'hello', v: 1 });
    await ready;
    return s;
  };
  /** SOCKETS visitors on `base`, each with its conversation opened. */
  const visitors = async (base: string) => {
    const sockets = await Promise.all(tokens.map((tk) => visit(base, tk)));
    const conversations = await Promise.all(
      sockets.map(async (s, i) => {
        const ack = s.next((f) => f.type === 'ack');
        s.send({ type: 'message.send', clientId: `open-${base.length}-${i}-${Date.now()}`, text: 'Hello?' });
        return ((await ack) as { conversationId: string }).conversationId;
      }),
    );
    return { sockets, conversations };
  };
  const closeAll = async (sockets: Socket[]) => {
    for (const s of sockets) s.ws.close();
    await sleep(500);
  };

  try {
    console.log(
      `fleet: ${cpus().length} cores; PostgreSQL + Redis on this machine; ${SOCKETS} sockets, ${DURATION_S} s per run`,
    );
    const a = await parley();
    const direct = `http://127.0.0.1:${a.port}`;
    let v: Awaited<ReturnType<typeof visitors>>;
    // 1. One instance, direct, against the yardstick.
    if (PARTS.has('1')) {
      const yardPort = await freePort();
      const yardChild = start(['--import', 'tsx', 'bench/durable-chat.ts'], {
        PORT: String(yardPort),
        DATABASE_URL: pg.url,
        POOL_SIZE: '10',
      });
      await waitUntil(
        () =>
          new Promise<boolean>((resolve) => {
            const ws = new WebSocket(`ws://127.0.0.1:${yardPort}`);
            ws.once('open', () => (ws.close(), resolve(true)));
            ws.once('error', () => resolve(false));
          }),
        'the yardstick',
      );
      v = await visitors(direct);
      const parleyOffered = await roundTrips(v.sockets, v.conversations, OFFERED, 'po');
      const parleyMax = await withCpu(a.child, () => roundTrips(v.sockets, v.conversations, 0, 'pm'));
      await closeAll(v.sockets);
      const yard = await Promise.all(Array.from({ length: SOCKETS }, () => Socket.open(`ws://127.0.0.1:${yardPort}`)));
      const yardConversations = yard.map((_, i) => `yard-${i}`);
      const yardOffered = await roundTrips(yard, yardConversations, OFFERED, 'yo');
      const yardMax = await withCpu(yardChild, () => roundTrips(yard, yardConversations, 0, 'ym'));
      await closeAll(yard);
      console.log(`1. message.send -> own message.created, one instance (direct) against the durable yardstick`);
      console.log(line(`parley, ${OFFERED} msg/s offered`, parleyOffered));
      console.log(line(`yardstick, ${OFFERED} msg/s offered`, yardOffered));
      console.log(line('parley, as fast as answered', parleyMax));
      console.log(line('yardstick, as fast as answered', yardMax));
      console.log(
        `   ratio ${(parleyMax.perSecond / yardMax.perSecond).toFixed(2)} (goal >= 0.5); p99 at ${OFFERED}/s ${fmt(parleyOffered.p99)} ms (goal <= 20 ms)`,
      );
      console.log(
        `   server CPU per message (PostgreSQL's not included): parley ${parleyMax.cpuUs.toFixed(0)} µs, yardstick ${yardMax.cpuUs.toFixed(0)} µs`,
      );
    }
    if (!PARTS.has('2') && !PARTS.has('3')) return;

    // 2. One instance behind nginx, then two.
    const b = await parley();
    const one = await startNginx([a.port]);
    nginxes.push(one);
    v = await visitors(one.url);
    const oneMax = await roundTrips(v.sockets, v.conversations, 0, 'n1');
    await closeAll(v.sockets);
    const two = await startNginx([a.port, b.port]);
    nginxes.push(two);
    v = await visitors(two.url);
    const twoMax = await roundTrips(v.sockets, v.conversations, 0, 'n2');
    await closeAll(v.sockets);
    console.log('2. behind nginx, as fast as answered');
    console.log(line('one instance', oneMax));
    console.log(line('two instances (round robin)', twoMax));
    console.log(`   two / one ${(twoMax.perSecond / oneMax.perSecond).toFixed(2)} (goal >= 1.6 where the cores allow)`);

    // 3. Idle sockets across both instances.
    await sleep(2000);
    const before = (await a.rssAfterGc()) + (await b.rssAfterGc());
    const idle: Socket[] = [];
    for (let i = 0; i < IDLE; i += 250)
      idle.push(
        ...(await Promise.all(Array.from({ length: Math.min(250, IDLE - i) }, () => visit(two.url, idleToken)))),
      );
    await sleep(3000);
    const after = (await a.rssAfterGc()) + (await b.rssAfterGc());
    console.log(
      `3. ${IDLE} idle sockets through nginx on two instances: RSS of both ${(before / 1024).toFixed(0)} MB -> ${(after / 1024).toFixed(0)} MB, ${((after - before) / IDLE).toFixed(1)} KB per socket (goal <= 20 KB)`,
    );
    for (const s of idle) s.ws.terminate();
  } finally {
    for (const child of children) child.kill('SIGTERM');
    for (const n of nginxes) await n.close();
    await sleep(500);
    await pg.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
