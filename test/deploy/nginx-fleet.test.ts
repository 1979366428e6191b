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
import { type AckFrame, type MessageCreatedFrame, WS_SUBPROTOCOL } from '../../shared/protocol.js';
import { TEAM_TOKEN_PROTOCOL_PREFIX } from '../../server/routes/v2/stream.js';
import { INGEST_JOB } from '../../server/domain/knowledge/ingest-runner.js';
import { openDatabase, type DatabaseHandle } from '../../server/storage/dialects/index.js';
import { buildTestApp } from '../helpers/app.js';
import { startChatStandin, type ChatStandin } from '../helpers/chat-standin.js';
import { freePort, spawnServer } from '../helpers/child-server.js';
import { waitFor, para } from '../helpers/knowledge-http.js';
import { nginxBinary, startNginx, type Nginx } from '../helpers/nginx.js';
import { createPostgresSchema, postgresAvailable, POSTGRES_URL } from '../helpers/postgres.js';
import { REDIS_URL, redisAvailable } from '../helpers/redis.js';
import { page, serveSite, type TestSite } from '../helpers/site.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { Client, connect } from '../helpers/widget.js';

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
let chatbotId: string;

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

beforeAll(async () => {
  if (!ready) return;
  pg = await createPostgresSchema();
  database = openDatabase({ url: POSTGRES_URL, schema: pg.schema, poolSize: 2 });
  dataDir = mkdtempSync(join(tmpdir(), 'parley-fleet-'));
  model = await startChatStandin();
  site = await serveSite();
  receiver = await startReceiver();
  env = {
    DATABASE_URL: pg.url,
    REDIS_URL,
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
    REALTIME_LEASE_MS: '1500',
    MAX_ANSWERS_PER_CHATBOT: '2',
    SHUTDOWN_TIMEOUT_MS: '8000',
  };
  // The owner's token is minted by an app on the same database, closed before the fleet starts.
  const setup = await buildTestApp({ dialect: 'postgres', postgresSchema: pg.schema, dataDir, env });
  owner = (await setup.token()).token;
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
}, 90_000);

afterAll(async () => {
  if (!ready) return;
  for (const i of instances) await kill(i);
  await nginx?.close();
  await database?.close();
  await pg?.drop();
  await Promise.all([model?.close(), site?.close(), receiver?.close()]);
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
});
