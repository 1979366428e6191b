/**
 * The production topology, run for real: Debian's nginx with deploy/nginx.conf in front of two
 * Parley processes (the compiled server) on one PostgreSQL schema and one Redis, TRUST_PROXY=1, no
 * sticky sessions. A visitor and an agent on different instances converse live (WebSocket and SSE
 * through the proxy); an ingest job and each webhook delivery run once; the per-IP and per-chatbot
 * limits hold across both; one tenant's crawl does not hold back another's import. Then one
 * instance is killed with SIGKILL under a steady load of visitors (they reconnect through nginx to
 * the other and resume, every ack and owed answer arrives once, its crawl is taken over when the
 * lease lapses), and one is stopped with SIGTERM (sockets told 1001, the request in flight answered,
 * exit within SHUTDOWN_TIMEOUT_MS). One nginx and two processes serve the whole file.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type AckFrame,
  type AnswerDoneFrame,
  CLOSE,
  type MessageCreatedFrame,
  type ServerFrame,
  WS_SUBPROTOCOL,
} from '../../shared/protocol.js';
import { busyMessage } from '../../server/domain/widget/busy.js';
import { TEAM_TOKEN_PROTOCOL_PREFIX } from '../../server/routes/v2/stream.js';
import { INGEST_JOB } from '../../server/domain/knowledge/ingest-runner.js';
import { openDatabase, type DatabaseHandle } from '../../server/storage/dialects/index.js';
import { buildTestApp } from '../helpers/app.js';
import { startChatStandin, type ChatStandin } from '../helpers/chat-standin.js';
import { freePort, spawnServer } from '../helpers/child-server.js';
import { waitFor, para } from '../helpers/knowledge-http.js';
import { nginxBinary, startNginx, type Nginx } from '../helpers/nginx.js';
import { createPostgresSchema, postgresAvailable, POSTGRES_URL } from '../helpers/postgres.js';
import { startDelayProxy, type DelayProxy } from '../helpers/delay-proxy.js';
import { REDIS_URL, redisAvailable } from '../helpers/redis.js';
import { page, serveSite, type TestSite } from '../helpers/site.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { Client, connect, visitor } from '../helpers/widget.js';

const ready = (await postgresAvailable()) && (await redisAvailable()) && nginxBinary() !== null;

interface Instance {
  port: number;
  child: ChildProcess;
}

let pg: Awaited<ReturnType<typeof createPostgresSchema>>;
let database: DatabaseHandle;
let dataDir: string;
let model: ChatStandin;
let site: TestSite;
let receiver: WebhookReceiver;
let nginx: Nginx;
let env: Record<string, string>;
const instances: Instance[] = [];
let owner: string;
/** The owner of a second account (another tenant). */
let otherOwner: string;
let chatbotId: string;
/** Both instances reach Redis through it, so a test can make Redis late for the fleet. */
let redisProxy: DelayProxy;

async function startInstance(port: number): Promise<Instance> {
  const { child } = await spawnServer(dataDir, env, {
    port,
    logFile: process.env.FLEET_LOG_DIR && join(process.env.FLEET_LOG_DIR, `${port}.log`),
  });
  return { port, child };
}

/** Kills the instance (SIGKILL) and resolves once it has exited. */
async function kill(instance: Instance) {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  const exited = new Promise((r) => instance.child.once('exit', r));
  instance.child.kill('SIGKILL');
  await exited;
}

/** A JSON request through nginx, optionally from another loopback address (the client nginx sees). */
function call(
  method: string,
  path: string,
  body?: unknown,
  options: { token?: string; from?: string } = {},
): Promise<{ status: number; body: any }> {
  const url = new URL(path, nginx.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        localAddress: options.from,
        headers: {
          ...(payload && { 'content-type': 'application/json' }),
          ...(options.token && { authorization: `Bearer ${options.token}` }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function session(id = chatbotId): Promise<string> {
  const res = await call('POST', `/api/widget/${id}/session`, {});
  if (res.status !== 201) throw new Error(`no session: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.token as string;
}

/** The upstream nginx sent the last finished request of `path` to (the access log is written at its end). */
function upstreamsOf(path: string): string[] {
  return nginx
    .accessLog()
    .filter((l) => l.request.split(' ')[1]?.split('?')[0] === path)
    .map((l) => l.upstream);
}

/** Resolves once nginx sends requests to both instances again (a failed one is left out for fail_timeout). */
async function bothInRotation() {
  await waitFor(
    async () => {
      await call('GET', '/api/v2/health');
      await call('GET', '/api/v2/health');
      // A request retried on the other after a failed one logs both addresses ("a, b").
      const last = upstreamsOf('/api/v2/health').slice(-2);
      return last.every((u) => !u.includes(',')) && new Set(last).size === 2;
    },
    15_000,
    'nginx to use both instances',
  );
}

async function chatbot(title: string): Promise<string> {
  const res = await call('POST', '/api/v2/chatbots', { title }, { token: owner });
  if (res.status !== 201) throw new Error(`chatbot not created: ${JSON.stringify(res.body)}`);
  return res.body.data.chatbot.id as string;
}

/** The ingest job once it ended. */
async function finished(id: string, jobId: string, timeoutMs = 20_000) {
  let job: any;
  await waitFor(
    async () => {
      job = (await call('GET', `/api/v2/chatbots/${id}/ingest-jobs/${jobId}`, undefined, { token: owner })).body.data
        ?.job;
      return job !== undefined && job.status !== 'queued' && job.status !== 'running';
    },
    timeoutMs,
    `ingest job ${jobId}`,
  );
  return job;
}

async function messagesOf(conversationId: string) {
  const rows = await database.db
    .selectFrom('messages')
    .select(['id', 'author', 'seq', 'meta'])
    .where('conversation_id', '=', conversationId)
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({
    ...r,
    meta: ((typeof r.meta === 'string' ? JSON.parse(r.meta) : r.meta) ?? {}) as Record<string, unknown>,
  }));
}

/**
 * A visitor that keeps talking through nginx whatever happens to the instance holding its socket:
 * on a close it reconnects (the proxy picks a live instance), resumes from the highest seq it saw
 * and sends again, with the same client ids, every message not acknowledged yet.
 */
class SteadyVisitor {
  readonly sockets: Client[] = [];
  readonly acks = new Map<string, AckFrame>();
  readonly sent: { clientId: string; text: string }[] = [];
  readonly closes: number[] = [];
  /** A reconnect that never got through (the test fails on it). */
  readonly failures: unknown[] = [];
  conversationId = '';
  private seq = 0;
  private socket: Client | null = null;
  private stopped = false;

  constructor(
    private readonly token: string,
    private readonly name: string,
  ) {}

  async open(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const c = await connect(nginx.url, this.token);
        c.ws.on('message', (data) => this.track(JSON.parse(String(data)) as ServerFrame));
        c.ws.once('close', (code) => {
          if (this.socket !== c || this.stopped) return;
          this.closes.push(code);
          this.socket = null;
          this.open().catch((err: unknown) => this.failures.push(err));
        });
        c.send({ type: 'hello', v: 1, ...(this.conversationId && { resume: { [this.conversationId]: this.seq } }) });
        await c.waitFor((f) => f.type === 'ready');
        this.sockets.push(c);
        this.socket = c;
        for (const m of this.sent) if (!this.acks.has(m.clientId)) this.frame(m);
        return;
      } catch (err) {
        if (attempt >= 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  private track(f: ServerFrame) {
    if (f.type === 'ack') {
      this.acks.set(f.clientId, f);
      this.conversationId ||= f.conversationId;
    } else if ('seq' in f && 'conversationId' in f && f.conversationId === this.conversationId)
      this.seq = Math.max(this.seq, f.seq);
  }

  private frame(m: { clientId: string; text: string }) {
    this.socket?.send({
      type: 'message.send',
      clientId: m.clientId,
      text: m.text,
      ...(this.conversationId && { conversationId: this.conversationId }),
    });
  }

  say(n: number) {
    const m = { clientId: `${this.name}-${n}`, text: `Question ${n} from ${this.name}: when are refunds paid?` };
    this.sent.push(m);
    this.frame(m);
  }

  /** The stored messages' frames, over every socket this visitor had. */
  frames() {
    return this.sockets.flatMap((c) =>
      c.frames.flatMap((f) =>
        (f.type === 'message.created' || f.type === 'answer.done') && f.conversationId === this.conversationId
          ? [f]
          : [],
      ),
    );
  }

  close() {
    this.stopped = true;
    for (const c of this.sockets) c.close();
  }
}

beforeAll(async () => {
  if (!ready) return;
  pg = await createPostgresSchema();
  database = openDatabase({ url: POSTGRES_URL, schema: pg.schema, poolSize: 2 });
  dataDir = mkdtempSync(join(tmpdir(), 'parley-fleet-'));
  model = await startChatStandin();
  site = await serveSite();
  receiver = await startReceiver();
  const redisUrl = new URL(REDIS_URL);
  redisProxy = await startDelayProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
  env = {
    DATABASE_URL: pg.url,
    REDIS_URL: `redis://${redisProxy.address}`,
    TRUST_PROXY: '1',
    SECRET_KEY: 'f'.repeat(64),
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    ALLOW_PRIVATE_FETCH: '127.0.0.0/8',
    NODE_EXTRA_CA_CERTS: receiver.caFile,
    QUEUE_POLL_MS: '50',
    WEBHOOK_POLL_MS: '50',
    // A killed instance's jobs, owed answers and counted slots lapse quickly here.
    QUEUE_LEASE_MS: '1000',
    ANSWER_LEASE_MS: '1000',
    REALTIME_LEASE_MS: '3000',
    MAX_ANSWERS_PER_CHATBOT: '2',
    // Two jobs per instance; one account may take all four slots of the fleet.
    QUEUE_CONCURRENCY: '2',
    QUEUE_ACCOUNT_CONCURRENCY: '4',
    SHUTDOWN_TIMEOUT_MS: '8000',
  };
  // The owner's token is minted by an app on the same database, closed before the fleet starts.
  const setup = await buildTestApp({ dialect: 'postgres', postgresSchema: pg.schema, dataDir, env });
  owner = (await setup.token()).token;
  const other = await setup.app.services.accounts.create('other-tenant@example.com');
  otherOwner = (await setup.token({}, other.account.id)).token;
  await setup.close();
  const ports = [await freePort(), await freePort()];
  instances.push(...(await Promise.all(ports.map(startInstance))));
  nginx = await startNginx(ports);
  chatbotId = await chatbot('Shop');
  const saved = await call(
    'PATCH',
    `/api/v2/chatbots/${chatbotId}/settings/webhooks`,
    { messagesWebhookUrl: `${receiver.url}/messages` },
    { token: owner },
  );
  expect(saved.status).toBe(200);
  const text = await call(
    'POST',
    `/api/v2/chatbots/${chatbotId}/knowledge/text`,
    {
      title: 'Returns',
      text: '# Returns\n\nRefunds are paid within 5 business days. Items can be returned for 30 days. Shipping back is free for members.',
    },
    { token: owner },
  );
  expect(text.status, JSON.stringify(text.body)).toBe(202);
  await finished(chatbotId, text.body.data.job.id as string);
}, 90_000);

afterAll(async () => {
  if (!ready) return;
  for (const i of instances) await kill(i);
  await nginx?.close();
  await database?.close();
  await pg?.drop();
  await Promise.all([model?.close(), site?.close(), receiver?.close(), redisProxy?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

describe.runIf(ready)('two instances behind nginx', () => {
  test('a visitor on one instance and an agent on the other converse live; SSE passes through unbuffered', async () => {
    const token = await session();
    // One nginx worker, round robin: the next two requests go to different instances.
    const onVisitor = await connect(nginx.url, token);
    const stream = new WebSocket(nginx.url.replace(/^http/, 'ws') + '/api/v2/stream', [
      WS_SUBPROTOCOL,
      TEAM_TOKEN_PROTOCOL_PREFIX + owner,
    ]);
    const agent = new Client(stream);
    await new Promise((r) => stream.once('open', r));
    onVisitor.send({ type: 'hello', v: 1 });
    await onVisitor.waitFor((f) => f.type === 'ready');
    agent.send({ type: 'hello', v: 1 });
    await agent.waitFor((f) => (f as { type: string }).type === 'team.ready');

    onVisitor.send({ type: 'message.send', clientId: 'live-1', text: 'When are refunds paid?' });
    const { conversationId } = await onVisitor.waitFor<AckFrame>((f) => f.type === 'ack');
    const seen = await agent.waitFor(
      (f) => f.type === 'message.created' && f.conversationId === conversationId && f.message.author === 'visitor',
    );
    expect(seen.type === 'message.created' && seen.message.text).toBe('When are refunds paid?');
    await agent.waitFor((f) => f.type === 'answer.done' && f.conversationId === conversationId);

    const base = `/api/v2/chatbots/${chatbotId}/conversations/${conversationId}`;
    expect((await call('POST', `${base}/take-over`, undefined, { token: owner })).status).toBe(200);
    agent.send({ type: 'typing', conversationId, typing: true });
    await onVisitor.waitFor((f) => f.type === 'typing' && f.who === 'agent' && f.typing);
    const reply = await call('POST', `${base}/replies`, { message: 'Within 5 days, from the team.' }, { token: owner });
    expect(reply.status).toBeLessThan(300);
    const live = await onVisitor.waitFor<MessageCreatedFrame>(
      (f) => f.type === 'message.created' && f.message.author === 'agent' && f.conversationId === conversationId,
    );
    expect(live.message.text).toBe('Within 5 days, from the team.');
    onVisitor.send({ type: 'message.send', clientId: 'live-2', conversationId, text: 'Thank you!' });
    await agent.waitFor(
      (f) => f.type === 'message.created' && f.message.author === 'visitor' && f.message.text === 'Thank you!',
    );

    // SSE: `ready` arrives while the stream is still open (nginx does not buffer it), then live frames.
    const sse = await fetch(`${nginx.url}/api/widget/sse`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'hello', v: 1, resume: { [conversationId]: live.seq } }),
    });
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = sse.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('"type":"ready"')) text += decoder.decode((await reader.read()).value);
    const posted = await call('POST', `${base}/replies`, { message: 'Anything else?' }, { token: owner });
    expect(posted.status).toBeLessThan(300);
    while (!text.includes('Anything else?')) text += decoder.decode((await reader.read()).value);
    await reader.cancel();

    onVisitor.close();
    agent.close();
    await onVisitor.waitClosed();
    await agent.waitClosed();
    await waitFor(() => upstreamsOf('/api/v2/stream').length > 0, 5000, 'the access log');
    const [visitorUpstream] = upstreamsOf('/api/widget/ws');
    const [agentUpstream] = upstreamsOf('/api/v2/stream');
    expect(visitorUpstream).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(agentUpstream).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(visitorUpstream).not.toBe(agentUpstream);
  });

  test('an ingest job and each webhook delivery run exactly once with both instances polling', async () => {
    const pages = ['/once/', '/once/a', '/once/b', '/once/c'];
    site.set('/once/', page('Once', para('shipping'), pages.slice(1)));
    for (const p of pages.slice(1)) site.set(p, page(`Page ${p}`, para(`topic ${p}`)));
    const crawl = await call(
      'POST',
      `/api/v2/chatbots/${chatbotId}/knowledge/website`,
      { url: `${site.url}/once/`, pathPrefix: '/once/' },
      { token: owner },
    );
    expect(crawl.status, JSON.stringify(crawl.body)).toBe(202);
    const jobId = crawl.body.data.job.id as string;
    expect(await finished(chatbotId, jobId)).toMatchObject({ status: 'succeeded', counts: { done: 4, failed: 0 } });
    for (const p of pages) expect(site.hits.get(p), p).toBe(1);
    const queued = await database.db
      .selectFrom('jobs')
      .select(['attempts', 'status'])
      .where('name', '=', INGEST_JOB)
      .where('payload', 'like', `%${jobId}%`)
      .execute();
    expect(queued).toEqual([{ attempts: 1, status: 'done' }]);

    // Messages through the v2 API (either instance); each event's webhook is delivered by one of them, once.
    const before = receiver.received.length;
    const conv = await call('POST', `/api/v2/chatbots/${chatbotId}/conversations`, {}, { token: owner });
    const threadId = conv.body.data.conversation.threadId as string;
    for (const q of ['How long do refunds take?', 'Do you ship abroad?', 'Can I return shoes?'])
      expect(
        (
          await call(
            'POST',
            `/api/v2/chatbots/${chatbotId}/conversations/${threadId}/messages`,
            { message: q },
            { token: owner },
          )
        ).status,
      ).toBe(201);
    const outbox = () =>
      database.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'status'])
        .where('target_url', 'like', '%/messages')
        .execute();
    await waitFor(async () => (await outbox()).every((d) => d.status === 'delivered'), 20_000, 'the deliveries');
    const received = receiver.received.filter((r) => r.path === '/messages');
    const ids = received.map((r) => r.headers['webhook-id']);
    // Every stored delivery reached the receiver exactly once, whichever instance sent it.
    expect([...ids].sort()).toEqual((await outbox()).map((d) => d.id).sort());
    const ofThread = received.slice(before).filter((r) => JSON.parse(r.body).data.threadId === threadId);
    expect(ofThread).toHaveLength(6); // three questions, three answers
  });
  test("the per-IP limit counts the client's address (X-Forwarded-For) on both instances together", async () => {
    // A loopback address of its own: counts left in Redis by other runs or files never meet it.
    const octet = () => 2 + Math.floor(Math.random() * 250);
    const from = `127.${octet()}.${octet()}.${octet()}`;
    const seen = nginx.accessLog().length;
    // POST /api/widget/{id}/session: 20 a minute per address.
    for (let i = 0; i < 20; i++)
      expect((await call('POST', `/api/widget/${chatbotId}/session`, {}, { from })).status).toBe(201);
    const served = new Set(
      nginx
        .accessLog()
        .slice(seen)
        .map((l) => l.upstream),
    );
    expect(served.size).toBe(2); // each instance saw about half: alone, neither would refuse
    const refused = await call('POST', `/api/widget/${chatbotId}/session`, {}, { from });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    // Another client behind the same proxy is not affected: the address is the client's, not nginx's.
    expect((await call('POST', `/api/widget/${chatbotId}/session`, {}, { from: `127.${octet()}.1.1` })).status).toBe(
      201,
    );
  });

  test("a chatbot's answer cap holds across both instances (MAX_ANSWERS_PER_CHATBOT=2)", async () => {
    const slow =
      'Refunds are paid within five business days of the return arriving at our warehouse, by the same means.';
    // Sessions first, then the two sockets one after the other: round robin puts them on different instances.
    const tokens = [await session(), await session()];
    const holders = [await visitor(nginx.url, tokens[0]), await visitor(nginx.url, tokens[1])];
    const before = nginx.accessLog().length;
    model.next({ kind: 'reply', text: slow, pieceDelayMs: 150 }, { kind: 'reply', text: slow, pieceDelayMs: 150 });
    holders.forEach((h, i) => h.send({ type: 'message.send', clientId: `hold-${i}`, text: 'When are refunds paid?' }));
    await Promise.all(holders.map((h) => h.waitFor((f) => f.type === 'answer.delta')));
    const third = await visitor(nginx.url, await session());
    third.send({ type: 'message.send', clientId: 'third', text: 'When are refunds paid?' });
    const busy = await third.waitFor<AnswerDoneFrame>((f) => f.type === 'answer.done');
    expect(busy.message.text).toBe(busyMessage({}));
    for (const h of holders)
      expect((await h.waitFor<AnswerDoneFrame>((f) => f.type === 'answer.done', 20_000)).message.text).toBe(slow);
    for (const c of [...holders, third]) c.close();
    await Promise.all([...holders, third].map((c) => c.waitClosed()));
    // The two answers were written on different instances: each alone was under the cap.
    const sockets = nginx
      .accessLog()
      .slice(before)
      .filter((l) => l.request.includes('/api/widget/ws'));
    expect(new Set(sockets.map((l) => l.upstream)).size).toBe(2);
  });

  test("one tenant's crawls filling every slot of both instances hold back another tenant's import by one job's slot", async () => {
    // Six crawls of account A whose start pages are held: four run (two per instance), two wait.
    const held = new Map<number, () => void>();
    /** When each crawl's start page was asked for (this machine's clock, as the server's). */
    const askedAt = new Map<number, number>();
    for (let k = 1; k <= 6; k++)
      site.set(`/big${k}/`, (_req, res) => {
        let sent = false;
        askedAt.set(k, Date.now());
        held.set(k, () => {
          if (sent) return;
          sent = true;
          res.writeHead(200, { 'content-type': 'text/html' }).end(page(`Big ${k}`, para(`big ${k}`)));
        });
      });
    const releaseAll = () => {
      for (const release of held.values()) release();
    };
    const crawls: string[] = [];
    for (let k = 1; k <= 6; k++) {
      const res = await call(
        'POST',
        `/api/v2/chatbots/${chatbotId}/knowledge/website`,
        { url: `${site.url}/big${k}/`, pathPrefix: `/big${k}/` },
        { token: owner },
      );
      expect(res.status).toBe(202);
      crawls.push(res.body.data.job.id as string);
    }
    await waitFor(() => held.size === 4, 10_000, "four of A's crawls running");
    const runningOn = await database.db
      .selectFrom('jobs')
      .select(['locked_by'])
      .where('name', '=', INGEST_JOB)
      .where('status', '=', 'running')
      .execute();
    expect(new Set(runningOn.map((r) => r.locked_by!.split(':')[1])).size).toBe(2); // both instances

    // Account B's small import waits for one slot only: the first crawl to end hands it over.
    const bot = await call('POST', '/api/v2/chatbots', { title: 'Other shop' }, { token: otherOwner });
    const otherBot = bot.body.data.chatbot.id as string;
    const small = await call(
      'POST',
      `/api/v2/chatbots/${otherBot}/knowledge/text`,
      { title: 'Hours', text: 'We are open from 9 to 5 on weekdays.' },
      { token: otherOwner },
    );
    expect(small.status).toBe(202);
    const first = [...held.keys()][0];
    held.get(first)!();
    const job = await (async () => {
      let view: any;
      await waitFor(
        async () => {
          view = (
            await call('GET', `/api/v2/chatbots/${otherBot}/ingest-jobs/${small.body.data.job.id}`, undefined, {
              token: otherOwner,
            })
          ).body.data?.job;
          return view?.status === 'succeeded';
        },
        10_000,
        "B's import",
      );
      return view;
    })();
    expect(job.status).toBe('succeeded');
    // B went first: A's waiting crawls started only once B's import had ended and freed its slot
    // (a fifth may start between B's end and this poll).
    const waited = [...askedAt.values()].slice(4);
    expect(waited.length).toBeLessThanOrEqual(1);
    for (const at of waited) expect(at).toBeGreaterThanOrEqual(Date.parse(job.finishedAt));
    releaseAll();
    await waitFor(() => held.size === 6, 10_000, "A's last crawls");
    releaseAll();
    for (const id of crawls) expect((await finished(chatbotId, id)).status).toBe('succeeded');
  });

  test('Redis late for the whole fleet: the public routes and sockets fail open, limits fall back per instance, nothing is refused or lost', async () => {
    redisProxy.delayMs = 2500;
    try {
      // Held Redis replies: the proof the answers below came while Redis was still late.
      const sessionRes = await call('POST', `/api/widget/${chatbotId}/session`, {});
      expect(sessionRes.status).toBe(201);
      expect(redisProxy.held()).toBeGreaterThan(0);
      const c = await visitor(nginx.url, sessionRes.body.data.token as string);
      expect(redisProxy.held()).toBeGreaterThan(0);
      c.send({ type: 'message.send', clientId: 'stall-1', text: 'When are refunds paid?' });
      const ack = await c.waitFor<AckFrame>((f) => f.type === 'ack');
      expect(redisProxy.held()).toBeGreaterThan(0);
      // The answer is written (not "busy": the chatbot's slots are counted on this instance meanwhile).
      redisProxy.delayMs = 0;
      const done = await c.waitFor<AnswerDoneFrame>((f) => f.type === 'answer.done', 20_000);
      expect(done.message.text).not.toBe(busyMessage({}));
      const rows = await messagesOf(ack.conversationId);
      expect(rows.map((r) => r.author)).toEqual(['visitor', 'ai']);
      c.close();
    } finally {
      redisProxy.delayMs = 0;
      await redisProxy.drained();
    }
  });

  test('kill -9 of an instance under load: its visitors resume on the other, every ack and owed answer arrives once, its crawl is taken over', async () => {
    // A crawl whose second page hangs: the instance fetching it is the one killed.
    let hung = false;
    site.set('/kill/', page('Kill', para('returns'), ['/kill/a', '/kill/b']));
    site.set('/kill/a', page('A', para('warranty')));
    site.set('/kill/b', (_req, res) => {
      if (!hung) return void (hung = true); // held open until its instance dies
      res.writeHead(200, { 'content-type': 'text/html' }).end(page('B', para('exchanges')));
    });
    const crawl = await call(
      'POST',
      `/api/v2/chatbots/${chatbotId}/knowledge/website`,
      { url: `${site.url}/kill/`, pathPrefix: '/kill/' },
      { token: owner },
    );
    expect(crawl.status).toBe(202);
    const jobId = crawl.body.data.job.id as string;

    const visitors = await Promise.all(
      ['v0', 'v1', 'v2', 'v3'].map(async (name) => new SteadyVisitor(await session(), name)),
    );
    for (const v of visitors) await v.open();
    // The opener first: it names the conversation the others follow.
    for (const v of visitors) v.say(0);
    await waitFor(() => visitors.every((v) => v.acks.size === 1), 10_000, 'the openers');
    const MESSAGES = 10;
    let said = 1;
    // The second half of the load waits for the kill, however long the crawl takes to reach its
    // hanging page: the kill always comes mid-load.
    let killed = false;
    const load = setInterval(() => {
      if (said >= MESSAGES) return clearInterval(load);
      if (!killed && said >= MESSAGES / 2) return;
      for (const v of visitors) v.say(said);
      said++;
    }, 100);
    await waitFor(() => hung && visitors.every((v) => v.acks.size >= 3), 15_000, 'load and a crawl mid-page');
    try {
      const holder = await database.db
        .selectFrom('jobs')
        .select(['locked_by'])
        .where('name', '=', INGEST_JOB)
        .where('status', '=', 'running')
        .where('payload', 'like', `%${jobId}%`)
        .executeTakeFirstOrThrow();
      const victim = instances.find((i) => holder.locked_by?.includes(`:${i.child.pid}:`))!;
      expect(victim).toBeDefined();
      await kill(victim);
      killed = true;
      const killedAt = visitors.map((v) => v.acks.size);

      await waitFor(() => said >= MESSAGES, 10_000, 'the load');
      await waitFor(() => visitors.every((v) => v.acks.size === MESSAGES), 20_000, 'every message acknowledged');
      await waitFor(
        async () => (await database.db.selectFrom('answers_owed').select('message_id').execute()).length === 0,
        20_000,
        'every owed answer',
      );
      for (const v of visitors) {
        await waitFor(
          async () => v.frames().filter((f) => f.type === 'answer.done').length >= MESSAGES,
          20_000,
          `${v.conversationId} answers`,
        );
        const rows = await messagesOf(v.conversationId);
        const questions = rows.filter((r) => r.author === 'visitor');
        // Stored once each, with the number the first ack gave.
        expect(questions).toHaveLength(MESSAGES);
        for (const ack of v.acks.values()) expect(questions.find((q) => q.id === ack.messageId)?.seq).toBe(ack.seq);
        // Answered once each.
        const answered = rows.filter((r) => r.author === 'ai').map((r) => r.meta.questionId);
        expect([...answered].sort()).toEqual(questions.map((q) => q.id).sort());
        // Seen once each over all its sockets, with the stored numbers.
        const frames = v.frames();
        expect(frames.map((f) => f.message.id).sort()).toEqual(rows.map((r) => r.id).sort());
        for (const f of frames) expect(f.seq).toBe(rows.find((r) => r.id === f.message.id)!.seq);
      }
      // The killed instance's visitors lost their socket (1006) and carried on through the other.
      const moved = visitors.filter((v) => v.closes.length > 0);
      expect(moved.length).toBeGreaterThan(0);
      expect(moved.length).toBeLessThan(visitors.length);
      for (const v of moved) expect(v.sockets.length).toBeGreaterThan(1);
      for (const v of visitors) expect(v.failures).toEqual([]);
      expect(killedAt.some((n) => n < MESSAGES)).toBe(true); // the kill came mid-load

      // Its crawl is taken over once the lease lapsed; nothing is indexed twice.
      expect(await finished(chatbotId, jobId)).toMatchObject({
        status: 'succeeded',
        counts: { found: 3, done: 3, failed: 0 },
      });
      const job = await database.db
        .selectFrom('jobs')
        .select(['attempts', 'status', 'locked_by'])
        .where('payload', 'like', `%${jobId}%`)
        .executeTakeFirstOrThrow();
      expect(job).toMatchObject({ attempts: 2, status: 'done' });
      expect(job.locked_by).not.toContain(`:${victim.child.pid}:`);
    } finally {
      clearInterval(load);
      for (const v of visitors) v.close();
      // Back on its port for the next test, whatever failed here.
      for (const [i, instance] of instances.entries())
        if (instance.child.exitCode !== null || instance.child.signalCode !== null)
          instances[i] = await startInstance(instance.port);
    }
  }, 60_000);

  test('SIGTERM: sockets are told 1001 and resume on the other instance, the request in flight is answered, the process exits within its bound', async () => {
    const [stopping, staying] = instances;
    const steady = [new SteadyVisitor(await session(), 's0'), new SteadyVisitor(await session(), 's1')];
    await bothInRotation();
    for (const v of steady) await v.open(); // one on each instance (round robin)
    for (const v of steady) v.say(0);
    for (const v of steady)
      await waitFor(() => v.frames().some((f) => f.type === 'answer.done'), 10_000, 'the first answers');

    // A request in flight on the stopping instance: a question whose answer streams for a while.
    const text = 'Refunds are paid within five business days, by the same means of payment.';
    const conversation = await call('POST', `/api/v2/chatbots/${chatbotId}/conversations`, {}, { token: owner });
    const threadId = conversation.body.data.conversation.threadId as string;
    const asked = model.requests.length;
    model.next({ kind: 'reply', text, pieceDelayMs: 100 });
    const inFlight = fetch(
      `http://127.0.0.1:${stopping.port}/api/v2/chatbots/${chatbotId}/conversations/${threadId}/messages`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'When are refunds paid?' }),
      },
    );
    await waitFor(() => model.requests.length > asked, 5000, 'the question to reach the model');
    const exited = new Promise<number | null>((resolve) => stopping.child.once('exit', (code) => resolve(code)));
    let bound: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (bound = setTimeout(() => resolve('late'), 8000)));
    stopping.child.kill('SIGTERM');

    const answered = await inFlight;
    expect(answered.status).toBe(201);
    expect(((await answered.json()) as { data: { answer: { text: string } } }).data.answer.text).toBe(text);
    // Exits cleanly within SHUTDOWN_TIMEOUT_MS (8 s here).
    expect(await Promise.race([exited, late])).toBe(0);
    clearTimeout(bound);
    await expect(fetch(`http://127.0.0.1:${stopping.port}/api/v2/health`)).rejects.toThrow();

    // The visitor it held was told 1001, reconnected through nginx to the other and resumed.
    const moved = steady.filter((v) => v.closes.length);
    expect(moved).toHaveLength(1);
    expect(moved[0].closes).toEqual([CLOSE.goingAway]);
    await waitFor(() => moved[0].sockets.length === 2, 10_000, 'the reconnect');
    for (const v of steady) v.say(1);
    for (const v of steady) {
      await waitFor(() => v.frames().filter((f) => f.type === 'answer.done').length >= 2, 10_000, 'the answers after');
      const rows = await messagesOf(v.conversationId);
      expect(
        v
          .frames()
          .map((f) => f.message.id)
          .sort(),
      ).toEqual(rows.map((r) => r.id).sort());
      v.close();
    }
    expect(staying.child.exitCode).toBeNull();
    instances[0] = await startInstance(stopping.port);
  }, 45_000);
});
