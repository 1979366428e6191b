/**
 * Redis slow for a moment: instance A reaches Redis through a proxy that holds its replies back
 * longer than the take timeout, so A counts a new socket's slots on its own (the fallback) while
 * Redis did take them. Once the replies arrive, the slots Redis took are given back: no slot is
 * left behind in Redis, the fallback slots count across instances from A's next renewal, and
 * B (straight to Redis) sees exactly the sockets that are open.
 */
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CLOSE } from '../../../shared/protocol.js';
import { startDelayProxy, type DelayProxy } from '../../helpers/delay-proxy.js';
import { REDIS_URL, redisAvailable } from '../../helpers/redis.js';
import { chatbotWithKnowledge, connect, type LiveApp, newSession, startLiveApp } from '../../helpers/widget.js';

const hasRedis = await redisAvailable();
// The take timeout is a third of the lease (1 s here), renewals every third of it.
const LEASE_MS = 3000;
let proxy: DelayProxy;
let a: LiveApp;
let b: LiveApp;
let redis: Redis;
let dataDir: string;
const logA: string[] = [];

beforeAll(async () => {
  if (!hasRedis) return;
  const target = new URL(REDIS_URL);
  proxy = await startDelayProxy({ host: target.hostname, port: Number(target.port || 6379) });
  dataDir = mkdtempSync(join(tmpdir(), 'parley-late-'));
  const env = { TRUST_PROXY: '1', WS_MAX_SOCKETS_PER_VISITOR: '2', REALTIME_LEASE_MS: String(LEASE_MS) };
  const throughProxy = new URL(REDIS_URL);
  throughProxy.host = proxy.address;
  a = await startLiveApp({
    dataDir,
    env: { ...env, REDIS_URL: throughProxy.href, LOG_LEVEL: 'info' },
    logStream: { write: (line) => logA.push(line) },
  });
  b = await startLiveApp({ dataDir, env: { ...env, REDIS_URL } });
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  if (!hasRedis) return;
  redis.disconnect();
  await b.close();
  await a.close();
  await proxy.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const counted = (key: string) => redis.zcard(`parley:rt:slots:${key}`);
const logged = (text: string) => logA.filter((line) => line.includes(text)).length;

async function visitorSocket(app: LiveApp, token: string, ip: string) {
  const c = await connect(app.url, token, { headers: { 'x-forwarded-for': ip } });
  c.send({ type: 'hello', v: 1 });
  return c;
}

test.runIf(hasRedis)(
  'a take answered after its timeout leaves no slot in Redis, and the count stays right on both instances',
  async () => {
    const ip = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
    const chatbotId = await chatbotWithKnowledge(b);
    const session = await newSession(b, chatbotId);
    const visitorKey = `visitor:${session.visitor.id}`;
    const onB = await visitorSocket(b, session.token, ip);
    await onB.waitFor((f) => f.type === 'ready');
    expect(await counted(visitorKey)).toBe(1);

    // Redis answers A late: the socket's IP and visitor takes time out, A counts them itself.
    proxy.delayMs = 1500;
    const onA = await visitorSocket(a, session.token, ip);
    await onA.waitFor((f) => f.type === 'ready', 20_000);
    expect(logged('realtime limits: Redis unreachable')).toBe(1);
    proxy.delayMs = 0;
    await proxy.drained();

    // Every late reply has reached A, which gave back what Redis took; after A's renewals, Redis
    // holds exactly the two open sockets of this visitor and of this address.
    await new Promise((resolve) => setTimeout(resolve, (LEASE_MS / 3) * 2));
    await expect.poll(() => counted(visitorKey)).toBe(2);
    await expect.poll(() => counted(`ip:${ip}`)).toBe(2);

    // A third socket is refused on either instance: A counts in Redis again.
    for (const app of [a, b]) {
      const third = await visitorSocket(app, session.token, ip);
      expect(await third.waitClosed()).toEqual({
        code: CLOSE.tooManySockets,
        reason: 'too many sockets for this visitor',
      });
    }
    expect(logged('realtime limits: Redis answers again')).toBe(1);
    expect(logged('realtime limits: Redis unreachable')).toBe(1);

    // The socket A counted during the moment is given back in Redis when it closes: B admits another.
    onA.close();
    await expect.poll(() => counted(visitorKey)).toBe(1);
    const again = await visitorSocket(b, session.token, ip);
    await again.waitFor((f) => f.type === 'ready');
    for (const c of [onB, again]) c.close();
    await expect.poll(() => counted(visitorKey)).toBe(0);
    await expect.poll(() => counted(`ip:${ip}`)).toBe(0);
  },
);
