/**
 * The socket limits across instances for the other doors: the team's stream (v2 token socket)
 * and the Server-Sent Events fallback count against the same per-IP and per-visitor slots as the
 * visitor's WebSocket, on every instance together, whichever door each connection came through;
 * a refused one leaves nothing counted, and a closed one frees its place for any instance.
 * Each test comes from its own address (TRUST_PROXY, X-Forwarded-For, as behind a load
 * balancer), so other runs sharing this Redis do not shift its counts.
 */
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { CLOSE, WS_SUBPROTOCOL } from '../../../shared/protocol.js';
import { TEAM_TOKEN_PROTOCOL_PREFIX } from '../../../server/routes/v2/stream.js';
import { REDIS_URL, redisAvailable } from '../../helpers/redis.js';
import {
  chatbotWithKnowledge,
  Client,
  connect,
  type LiveApp,
  newSession,
  readEvents,
  startLiveApp,
} from '../../helpers/widget.js';

const hasRedis = await redisAvailable();
let a: LiveApp;
let b: LiveApp;
let redis: Redis;
let dataDir: string;
let chatbotId: string;
let teamToken: string;

beforeAll(async () => {
  if (!hasRedis) return;
  dataDir = mkdtempSync(join(tmpdir(), 'parley-stream-limits-'));
  const env = { REDIS_URL, TRUST_PROXY: '1', WS_MAX_SOCKETS_PER_IP: '3', WS_MAX_SOCKETS_PER_VISITOR: '2' };
  a = await startLiveApp({ dataDir, env });
  b = await startLiveApp({ dataDir, env });
  redis = new Redis(REDIS_URL);
  chatbotId = await chatbotWithKnowledge(a);
  teamToken = (await a.token({ access: 'custom', scopes: ['conversations:read'] })).token;
});
afterAll(async () => {
  if (!hasRedis) return;
  redis.disconnect();
  await b.close();
  await a.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** An address of this test alone. */
const newIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
/** Slots counted in Redis under a key (`ip:<ip>`, `visitor:<chatUserId>`), lapsed or not. */
const counted = (key: string) => redis.zcard(`parley:rt:slots:${key}`);

async function team(app: LiveApp, ip: string): Promise<Client> {
  const ws = new WebSocket(
    app.url.replace(/^http/, 'ws') + '/api/v2/stream',
    [WS_SUBPROTOCOL, TEAM_TOKEN_PROTOCOL_PREFIX + teamToken],
    { headers: { 'x-forwarded-for': ip } },
  );
  const c = new Client(ws);
  await new Promise((resolve) => {
    ws.once('open', resolve);
    ws.once('close', resolve);
  });
  return c;
}

/** A team stream that was admitted (its hello is answered only then). */
async function admittedTeam(app: LiveApp, ip: string) {
  const c = await team(app, ip);
  c.send({ type: 'hello', v: 1 });
  await c.waitFor((f) => (f as { type: string }).type === 'team.ready');
  return c;
}

async function visitorSocket(app: LiveApp, token: string, ip: string) {
  const c = await connect(app.url, token, { headers: { 'x-forwarded-for': ip } });
  c.send({ type: 'hello', v: 1 });
  return c;
}

/** POST /api/widget/sse from `ip`: the refusal's envelope, or the stream until `close()`. */
async function sse(app: LiveApp, token: string, ip: string) {
  const controller = new AbortController();
  const res = await fetch(`${app.url}/api/widget/sse`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify({ type: 'hello', v: 1 }),
    signal: controller.signal,
  });
  if (res.status !== 200) return { status: res.status, body: await res.json(), frames: [], close: async () => {} };
  const stream = readEvents(res.body!);
  await expect.poll(() => stream.frames.some((f) => f.type === 'ready')).toBe(true);
  return {
    status: res.status,
    body: null,
    frames: stream.frames,
    close: async () => {
      controller.abort();
      await stream.cancel();
    },
  };
}

test.runIf(hasRedis)(
  "the team stream's sockets per IP count on both instances together, with the visitor sockets of that address",
  async () => {
    const ip = newIp();
    const { token } = await newSession(a, chatbotId);
    // WS_MAX_SOCKETS_PER_IP=3: a team stream on A, one on B, a visitor socket on B.
    const onA = await admittedTeam(a, ip);
    const onB = await admittedTeam(b, ip);
    const v = await visitorSocket(b, token, ip);
    await v.waitFor((f) => f.type === 'ready');

    for (const app of [a, b]) {
      const fourth = await team(app, ip);
      fourth.send({ type: 'hello', v: 1 });
      const closed = await fourth.waitClosed();
      expect(closed.code).toBe(CLOSE.tooManySockets);
      expect(closed.reason).toBe('too many sockets from this address');
      expect(fourth.frames).toEqual([]);
    }
    // Another address is not concerned.
    const elsewhere = await admittedTeam(a, newIp());
    expect(await counted(`ip:${ip}`)).toBe(3);

    // A's stream closes: B admits a team stream of this address again.
    onA.close();
    await onA.waitClosed();
    await expect.poll(() => counted(`ip:${ip}`)).toBe(2);
    const again = await admittedTeam(b, ip);
    for (const c of [onB, v, again, elsewhere]) c.close();
    await expect.poll(() => counted(`ip:${ip}`)).toBe(0);
  },
);

test.runIf(hasRedis)(
  "a visitor's WebSocket on A and Server-Sent Events stream on B count together; a refused stream leaves nothing counted",
  async () => {
    const ip = newIp();
    const session = await newSession(a, chatbotId);
    const visitorKey = `visitor:${session.visitor.id}`;
    // WS_MAX_SOCKETS_PER_VISITOR=2: a WebSocket on A and a stream on B.
    const socket = await visitorSocket(a, session.token, ip);
    await socket.waitFor((f) => f.type === 'ready');
    const stream = await sse(b, session.token, ip);
    expect(stream.status).toBe(200);

    // A third is refused on either instance, through either door.
    const refused = await sse(a, session.token, ip);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'RATE_LIMITED', message: 'Too many streams for this visitor' });
    const third = await visitorSocket(b, session.token, ip);
    const closed = await third.waitClosed();
    expect(closed).toEqual({ code: CLOSE.tooManySockets, reason: 'too many sockets for this visitor' });
    expect(third.of('ready')).toEqual([]);
    // Neither refusal kept the IP slot it had taken first, nor a visitor slot.
    expect(await counted(visitorKey)).toBe(2);
    await expect.poll(() => counted(`ip:${ip}`)).toBe(2);

    // The stream on B ends: A admits a stream of this visitor.
    await stream.close();
    await expect.poll(() => counted(visitorKey)).toBe(1);
    const next = await sse(a, session.token, ip);
    expect(next.status).toBe(200);
    expect(await counted(visitorKey)).toBe(2);
    await next.close();
    socket.close();
    await expect.poll(() => counted(visitorKey)).toBe(0);
    await expect.poll(() => counted(`ip:${ip}`)).toBe(0);
  },
);

test.runIf(hasRedis)(
  "Server-Sent Events streams per IP count on both instances together, with the address's WebSockets",
  async () => {
    const ip = newIp();
    const sessions = await Promise.all([1, 2, 3, 4].map(() => newSession(a, chatbotId)));
    // WS_MAX_SOCKETS_PER_IP=3, three visitors of one address: streams on A and B, a socket on A.
    const first = await sse(a, sessions[0].token, ip);
    const second = await sse(b, sessions[1].token, ip);
    const socket = await visitorSocket(a, sessions[2].token, ip);
    await socket.waitFor((f) => f.type === 'ready');
    expect([first.status, second.status]).toEqual([200, 200]);

    for (const app of [a, b]) {
      const refused = await sse(app, sessions[3].token, ip);
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({ code: 'RATE_LIMITED', message: 'Too many streams from this address' });
      const extra = await visitorSocket(app, sessions[3].token, ip);
      expect(await extra.waitClosed()).toEqual({
        code: CLOSE.tooManySockets,
        reason: 'too many sockets from this address',
      });
    }
    // The fourth visitor was refused at the address: it holds nothing.
    expect(await counted(`visitor:${sessions[3].visitor.id}`)).toBe(0);
    expect(await counted(`ip:${ip}`)).toBe(3);

    // A's stream ends: B admits the fourth visitor's stream.
    await first.close();
    await expect.poll(() => counted(`ip:${ip}`)).toBe(2);
    const fourth = await sse(b, sessions[3].token, ip);
    expect(fourth.status).toBe(200);
    await Promise.all([second.close(), fourth.close()]);
    socket.close();
    await expect.poll(() => counted(`ip:${ip}`)).toBe(0);
  },
);
