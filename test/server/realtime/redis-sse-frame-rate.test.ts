/**
 * The SSE fallback's POSTed frames across instances (real Redis): a session's frame rate and an
 * address's share count once, whichever instances the load balancer sends the frames to. Each
 * test comes from its own address (TRUST_PROXY, X-Forwarded-For), so other runs sharing this
 * Redis do not shift its counts.
 */
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { REDIS_URL, redisAvailable } from '../../helpers/redis.js';
import { chatbotWithKnowledge, type LiveApp, newSession, startLiveApp } from '../../helpers/widget.js';

const hasRedis = await redisAvailable();
let a: LiveApp;
let b: LiveApp;
let dataDir: string;
let chatbotId: string;

beforeAll(async () => {
  if (!hasRedis) return;
  dataDir = mkdtempSync(join(tmpdir(), 'parley-sse-frames-'));
  // 3 frames per 10 s per session, 2 sockets per address: 6 frames per 10 s per address.
  const env = { REDIS_URL, TRUST_PROXY: '1', WS_MAX_FRAMES_PER_10S: '3', WS_MAX_SOCKETS_PER_IP: '2' };
  a = await startLiveApp({ dataDir, env });
  b = await startLiveApp({ dataDir, env });
  chatbotId = await chatbotWithKnowledge(a);
});
afterAll(async () => {
  if (!hasRedis) return;
  await b?.close();
  await a?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const newIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

const ping = (app: LiveApp, token: string, ip: string) =>
  fetch(`${app.url}/api/widget/frames`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: '{"type":"ping"}',
  }).then(async (res) => ({ status: res.status, body: await res.json() }));

/** Sessions made from another address than the frames' (the session route has its own limit). */
const sessions = async (n: number) => {
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) tokens.push((await newSession(a, chatbotId, {}, { 'x-forwarded-for': newIp() })).token);
  return tokens;
};

test.skipIf(!hasRedis)("one session's frames count once across two instances", async () => {
  const [token] = await sessions(1);
  const ip = newIp();
  const statuses = [];
  for (const app of [a, b, a]) statuses.push((await ping(app, token, ip)).status);
  expect(statuses).toEqual([200, 200, 200]);
  const refused = await ping(b, token, ip);
  expect(refused.status).toBe(429);
  expect(refused.body.error.code).toBe('RATE_LIMITED');
});

test.skipIf(!hasRedis)(
  "an address's share counts once across two instances; another address is not held back",
  async () => {
    const tokens = await sessions(4);
    const ip = newIp();
    // Six frames of three visitors (two each, under a session's three), alternating instances: all taken.
    let n = 0;
    for (const token of tokens.slice(0, 3)) {
      for (let i = 0; i < 2; i++) expect((await ping(n++ % 2 ? b : a, token, ip)).status, `frame ${n}`).toBe(200);
    }
    // The address's six are used up on both instances together: a fourth visitor's first frame waits, on either.
    for (const app of [a, b]) {
      const refused = await ping(app, tokens[3], ip);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('RATE_LIMITED');
    }
    expect((await ping(b, tokens[3], newIp())).status).toBe(200);
  },
);
