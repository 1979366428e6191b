/**
 * The visitor gateway over real sockets, the server in its own process (`server/main.ts`, as in
 * production) and the clients in this one:
 * 1. Round trip at BENCH_SOCKETS (200) concurrent sockets: each sends `message.send` and waits
 *    for its own `message.created` (the message validated, stored with its event in one
 *    transaction, the hub's doorbell, the event read back and sent), then sends the next, for
 *    BENCH_DURATION seconds -> p50/p99 and messages/s. The chatbot is HUMAN_ONLY so no answer is
 *    generated: this is the gateway and storage path alone. Baseline in the same run: a bare `ws`
 *    echo server (its own process) answering the same frames from the same clients.
 *    Goals: messages/s ratio >= 0.3, p99 <= 20 ms. Also the CPU per message of each server
 *    (user and system, from /proc) and of the clients (this process) in each run.
 * 2. Time from a visitor's message to the first streamed token (`answer.delta`) and to the stored
 *    answer (`answer.done`) with the built-in answerer, one question at a time, BENCH_QUESTIONS (50).
 * 3. Resident memory per idle socket: the server's RSS before and after BENCH_IDLE_SOCKETS (5,000)
 *    sockets said hello and stayed open, each read after a forced full GC in the server
 *    (bench/server-gc.mjs). Goal <= 20 KB.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { WS_SESSION_PROTOCOL_PREFIX, WS_SUBPROTOCOL, type ServerFrame } from '../shared/protocol.js';
import { buildTestApp } from '../test/helpers/app.js';

const int = (name: string, fallback: number) => {
  const n = Number(process.env[name] || fallback);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number`);
  return n;
};
const SOCKETS = int('BENCH_SOCKETS', 200);
const DURATION_S = int('BENCH_DURATION', 10);
const QUESTIONS = int('BENCH_QUESTIONS', 50);
const IDLE = int('BENCH_IDLE_SOCKETS', 5000);
const PARLEY_PORT = int('BENCH_PORT', 3131);
const ECHO_PORT = PARLEY_PORT + 1;
/** BENCH_PARTS: which of the three parts run (default all), e.g. `1` for quick A/B runs of the round trip. */
const PARTS = new Set((process.env.BENCH_PARTS ?? '1,2,3').split(','));
/**
 * BENCH_RATE: messages per second offered in all, spread over the sockets (default: as fast as
 * answered). At a rate the server keeps up with, its CPU per message compares two versions at
 * the same batch sizes, which a loaded machine shifts in the closed loop.
 */
const RATE = Number(process.env.BENCH_RATE || 0);
const SECRET_KEY = 'b'.repeat(64);

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const fmt = (n: number) => n.toFixed(2);

async function waitFor(url: string, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** CPU time a process has used, user and system, in ms (figures load on the machine hardly changes). */
function cpuOf(child: ChildProcess): { user: number; system: number } {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: (Number(fields[11]) * 1000) / 100, system: (Number(fields[12]) * 1000) / 100 };
}

/** CPU used while `work` ran, by the child and by this process (the clients), in µs per message. */
async function perMessage<R extends { count: number }>(child: ChildProcess, work: () => Promise<R>) {
  const before = cpuOf(child);
  const clientBefore = process.cpuUsage();
  const result = await work();
  const client = process.cpuUsage(clientBefore);
  const after = cpuOf(child);
  const user = ((after.user - before.user) * 1000) / result.count;
  const system = ((after.system - before.system) * 1000) / result.count;
  return {
    ...result,
    server: { user, system, total: user + system },
    client: (client.user + client.system) / result.count,
  };
}
const cpuLine = (c: { user: number; system: number; total: number }) =>
  `${c.total.toFixed(0)} µs (user ${c.user.toFixed(0)} + system ${c.system.toFixed(0)})`;

function rssKb(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]);
}

/** One client socket: frames go to whoever waits for them. */
class Socket {
  private waiting: Array<{ match: (f: ServerFrame) => boolean; resolve: (f: ServerFrame) => void }> = [];
  constructor(
    readonly ws: WebSocket,
    private readonly parse = true,
  ) {
    ws.on('message', (data) => {
      const frame = parse ? (JSON.parse(String(data)) as ServerFrame) : ({ type: 'pong' } as ServerFrame);
      const i = this.waiting.findIndex((w) => w.match(frame));
      if (i >= 0) this.waiting.splice(i, 1)[0].resolve(frame);
    });
  }
  static open(url: string, protocols: string[] = [], parse = true): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, protocols, { perMessageDeflate: false });
      const s = new Socket(ws, parse);
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

async function roundTrips(sockets: Socket[], once: (s: Socket, i: number, n: number) => Promise<void>) {
  const latencies: number[] = [];
  const end = performance.now() + DURATION_S * 1000;
  const start = performance.now();
  const interval = RATE > 0 ? (sockets.length / RATE) * 1000 : 0;
  await Promise.all(
    sockets.map(async (s, i) => {
      for (let n = 0; performance.now() < end; n++) {
        if (interval) {
          // Socket i sends at start + (n + i / sockets) * interval: evenly spread, never catching up in a burst.
          const at = start + (n + i / sockets.length) * interval;
          const wait = at - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          if (performance.now() >= end) break;
        }
        const t0 = performance.now();
        await once(s, i, n);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / DURATION_S,
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    count: latencies.length,
  };
}

export async function run() {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-rt-'));
  const env = { DATA_DIR: dataDir, SECRET_KEY, DATABASE_URL: `sqlite:${join(dataDir, 'test.db')}` };
  // Fixtures written through the real services, then the same database served by main.ts.
  const t = await buildTestApp({ dataDir, env });
  const { token } = await t.token();
  const human = (
    await t.call('POST', '/api/v2/chatbots', token, {
      title: 'Desk',
      settings: { 'chat-mode': { mode: 'HUMAN_ONLY' } },
    })
  ).body.data.chatbot;
  const ai = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot;
  await t.call('POST', `/api/v2/chatbots/${ai.id}/knowledge/text`, token, {
    title: 'Returns',
    text: '# Returns\n\nRefunds are paid within 5 business days. Items can be returned for 30 days. Shipping back is free for members.\n\n# Delivery\n\nOrders ship within 2 days. Express delivery arrives the next day.',
  });
  await t.app.services.queue.drain(60_000);
  const widget = t.app.services.widget;
  const humanBot = (await t.app.services.store.chatbots.get(human.id))!;
  const aiBot = (await t.app.services.store.chatbots.get(ai.id))!;
  const tokens: string[] = [];
  for (let i = 0; i < SOCKETS; i++) tokens.push((await widget.startSession(humanBot, {})).token);
  const aiToken = (await widget.startSession(aiBot, {})).token;
  const idleToken = (await widget.startSession(humanBot, {})).token;
  await t.close();

  const children: ChildProcess[] = [];
  const start = (args: string[], childEnv: Record<string, string>) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...childEnv },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
    return child;
  };
  try {
    // BENCH_SERVER_ARGS: extra node flags for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
    const serverArgs = (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean);
    const gcAck = join(dataDir, 'gc-ack');
    const server = start(
      [...serverArgs, '--expose-gc', '--import', './bench/server-gc.mjs', '--import', 'tsx', 'server/main.ts'],
      {
        ...env,
        BENCH_GC_ACK: gcAck,
        PORT: String(PARLEY_PORT),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        WS_MAX_SOCKETS_PER_IP: '1000000',
        WS_MAX_SOCKETS_PER_VISITOR: '1000000',
        WS_MAX_FRAMES_PER_10S: '100000',
        WS_CONNECTS_PER_MIN: '1000000',
      },
    );
    const echo = start(
      [
        '-e',
        `
      const { WebSocketServer } = require('ws');
      const wss = new WebSocketServer({ port: ${ECHO_PORT}, host: '127.0.0.1', perMessageDeflate: false });
      wss.on('connection', (ws) => ws.on('message', (data) => ws.send(String(data))));
    `,
      ],
      {},
    );
    await waitFor(`http://127.0.0.1:${PARLEY_PORT}/api/v2/health`);
    const base = `ws://127.0.0.1:${PARLEY_PORT}/api/widget/ws`;
    const visit = async (sessionToken: string) => {
      const s = await Socket.open(base, [WS_SUBPROTOCOL, WS_SESSION_PROTOCOL_PREFIX + sessionToken]);
      const ready = s.next((f) => f.type === 'ready');
      s.send({ type: 'hello', v: 1 });
      await ready;
      return s;
    };

    // 1. Round trips at SOCKETS concurrent sockets, against the echo server.
    if (PARTS.has('1')) await roundTripPart();
    async function roundTripPart() {
      const sockets = await Promise.all(tokens.map(visit));
      const conversations = await Promise.all(
        sockets.map(async (s, i) => {
          const ack = s.next((f) => f.type === 'ack');
          s.send({ type: 'message.send', clientId: `warm-${i}`, text: 'Hello, is anyone there?' });
          return ((await ack) as { conversationId: string }).conversationId;
        }),
      );
      const parley = await perMessage(server, () =>
        roundTrips(sockets, async (s, i, n) => {
          const clientId = `m-${i}-${n}`;
          const created = s.next((f) => f.type === 'message.created' && f.message.clientId === clientId);
          s.send({
            type: 'message.send',
            clientId,
            conversationId: conversations[i],
            text: 'Do you ship to Norway, and how long does it take?',
          });
          await created;
        }),
      );
      for (const s of sockets) s.ws.close();
      await new Promise((r) => setTimeout(r, 1000));

      const echoes = await Promise.all(
        Array.from({ length: SOCKETS }, () => Socket.open(`ws://127.0.0.1:${ECHO_PORT}`, [], false)),
      );
      const bare = await perMessage(echo, () =>
        roundTrips(echoes, async (s, i, n) => {
          const back = s.next(() => true);
          s.send({
            type: 'message.send',
            clientId: `m-${i}-${n}`,
            conversationId: conversations[i],
            text: 'Do you ship to Norway, and how long does it take?',
          });
          await back;
        }),
      );
      for (const s of echoes) s.ws.close();

      console.log(
        `1. message.send -> own message.created, ${SOCKETS} sockets, ${DURATION_S} s each${RATE ? `, ${RATE} msg/s offered` : ''}`,
      );
      console.log(
        `   parley   ${parley.perSecond.toFixed(0).padStart(7)} msg/s   p50 ${fmt(parley.p50)} ms   p99 ${fmt(parley.p99)} ms   (${parley.count} messages)`,
      );
      console.log(
        `   ws echo  ${bare.perSecond.toFixed(0).padStart(7)} msg/s   p50 ${fmt(bare.p50)} ms   p99 ${fmt(bare.p99)} ms`,
      );
      console.log(
        `   ratio ${(parley.perSecond / bare.perSecond).toFixed(2)} (goal >= 0.3); p99 ${fmt(parley.p99)} ms (goal <= 20 ms)`,
      );
      // CPU per message (far less sensitive to other load than msg/s): with the clients' own, what
      // a ratio costs in cores on this machine (bench/README, "A fair ceiling").
      console.log(
        `   CPU per message: parley server ${cpuLine(parley.server)}, its clients ${parley.client.toFixed(0)} µs`,
      );
      console.log(`                    echo server ${cpuLine(bare.server)}, its clients ${bare.client.toFixed(0)} µs`);
    }

    if (!PARTS.has('2') && !PARTS.has('3')) return;
    // 2. Time to the first streamed token with the built-in answerer.
    const asker = await visit(aiToken);
    const first: number[] = [];
    const done: number[] = [];
    const questions = [
      'When are refunds paid?',
      'How long can items be returned?',
      'When do orders ship?',
      'Is shipping back free?',
      'When does express delivery arrive?',
    ];
    let conversationId: string | undefined;
    for (let n = 0; n < QUESTIONS; n++) {
      const clientId = `q-${n}`;
      const ack = asker.next((f) => f.type === 'ack' && f.clientId === clientId);
      const delta = asker.next((f) => f.type === 'answer.delta');
      const answered = asker.next((f) => f.type === 'answer.done');
      const t0 = performance.now();
      asker.send({
        type: 'message.send',
        clientId,
        text: questions[n % questions.length],
        ...(conversationId && { conversationId }),
      });
      conversationId = ((await ack) as { conversationId: string }).conversationId;
      await delta;
      first.push(performance.now() - t0);
      await answered;
      done.push(performance.now() - t0);
    }
    asker.ws.close();
    first.sort((a, b) => a - b);
    done.sort((a, b) => a - b);
    console.log(`2. visitor message -> first answer.delta (built-in answerer), ${QUESTIONS} questions one at a time`);
    console.log(
      `   first token p50 ${fmt(pct(first, 50))} ms  p99 ${fmt(pct(first, 99))} ms;  answer.done p50 ${fmt(pct(done, 50))} ms  p99 ${fmt(pct(done, 99))} ms`,
    );

    // 3. Memory per idle socket, each reading right after a full collection in the server (a
    // collection that happened to run between two readings made the step negative once).
    let collections = 0;
    const collected = async () => {
      server.kill('SIGUSR2');
      collections++;
      for (let i = 0; i < 200; i++) {
        await new Promise((r) => setTimeout(r, 50));
        try {
          if (Number(readFileSync(gcAck, 'utf8')) === collections) return rssKb(server);
        } catch {
          /* not written yet */
        }
      }
      throw new Error('the server did not report its garbage collection');
    };
    await new Promise((r) => setTimeout(r, 2000));
    const before = await collected();
    const idle: Socket[] = [];
    for (let i = 0; i < IDLE; i += 250)
      idle.push(...(await Promise.all(Array.from({ length: Math.min(250, IDLE - i) }, () => visit(idleToken)))));
    await new Promise((r) => setTimeout(r, 3000));
    const after = await collected();
    console.log(
      `3. ${IDLE} idle sockets (hello done): server RSS ${(before / 1024).toFixed(0)} MB -> ${(after / 1024).toFixed(0)} MB, ${((after - before) / IDLE).toFixed(1)} KB per socket (goal <= 20 KB)`,
    );
    for (const s of idle) s.ws.terminate();
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
