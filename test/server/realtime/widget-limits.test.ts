/**
 * The gateway's doors and limits over real sockets: allowed origins, expired and forged sessions,
 * payload and frame-rate limits, the heartbeat, and bad frames that change nothing, on the
 * socket and on the Server-Sent Events fallback's POSTed frames.
 */
import { afterAll, beforeAll, expect, onTestFinished, test } from 'vitest';
import WebSocket from 'ws';
import { CLOSE, WS_SESSION_PROTOCOL_PREFIX, WS_SUBPROTOCOL, type ErrorFrame } from '../../../shared/protocol.js';
import { SessionTokens } from '../../../server/domain/widget/sessions.js';
import {
  Client,
  chatbotWithKnowledge,
  connect,
  type LiveApp,
  newSession,
  readEvents,
  startLiveApp,
  visitor,
} from '../../helpers/widget.js';

let t: LiveApp;
let chatbotId: string;
let guarded: string;

beforeAll(async () => {
  // The heartbeat stays at its default here (its own test has an app of its own): a short one cuts a
  // socket whose pong a loaded machine delays.
  t = await startLiveApp({ env: { WS_MAX_FRAMES_PER_10S: '20' } });
  chatbotId = await chatbotWithKnowledge(t);
  guarded = await chatbotWithKnowledge(t, {
    general: { allowedDomains: ['example.com', '*.shop.test', 'localhost:5173'] },
  });
});
afterAll(async () => {
  await t.close();
});

const eventCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('conversation_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

test('pages outside the allowed domains are refused: session 403, socket closed 4003; listed ones get CORS', async () => {
  const refused = await t.call('POST', `/api/widget/${guarded}/session`, null, {}, { origin: 'https://evil.test' });
  expect(refused.status).toBe(403);
  expect(refused.body.error.code).toBe('ORIGIN_NOT_ALLOWED');
  const config = await t.call('GET', `/api/widget/${guarded}/config`, null, undefined, { origin: 'https://evil.test' });
  expect(config.status).toBe(403);

  for (const origin of ['https://example.com', 'https://a.shop.test', 'http://localhost:5173']) {
    const ok = await t.call('POST', `/api/widget/${guarded}/session`, null, {}, { origin });
    expect(ok.status, origin).toBe(201);
    expect(ok.headers['access-control-allow-origin']).toBe(origin);
  }
  for (const origin of ['https://www.example.com', 'https://shop.test', 'http://localhost:3000', 'null']) {
    expect((await t.call('GET', `/api/widget/${guarded}/config`, null, undefined, { origin })).status, origin).toBe(
      403,
    );
  }
  const preflight = await t.call('OPTIONS', `/api/widget/${guarded}/session`, null, undefined, {
    origin: 'https://example.com',
    'access-control-request-method': 'POST',
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers['access-control-allow-origin']).toBe('https://example.com');

  const session = await newSession(t, guarded, {}, { origin: 'https://example.com' });
  const evil = await connect(t.url, session.token, { origin: 'https://evil.test' });
  expect((await evil.waitClosed()).code).toBe(CLOSE.originRefused);
  const good = await visitor(t.url, session.token, undefined, 'https://example.com');
  good.close();
  // Any page may use a chatbot without allowed domains.
  expect(
    (await t.call('GET', `/api/widget/${chatbotId}/config`, null, undefined, { origin: 'https://anywhere.test' }))
      .status,
  ).toBe(200);
});

test('a page outside the allowed domains can read the refusal: the 403s and their preflights carry CORS for that page', async () => {
  const evil = { origin: 'https://evil.test' };
  const preflight = (url: string, method: string) =>
    t.call('OPTIONS', url, null, undefined, {
      ...evil,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type',
    });
  for (const [method, url] of [
    ['GET', `/api/widget/${guarded}/config`],
    ['POST', `/api/widget/${guarded}/session`],
    ['POST', '/api/widget/sse'],
    ['POST', '/api/widget/frames'],
  ]) {
    const pre = await preflight(url, method);
    expect(pre.status, url).toBe(204);
    expect(pre.headers['access-control-allow-origin'], url).toBe('https://evil.test');
    expect(String(pre.headers['access-control-allow-methods']), url).toContain(method);
    expect(String(pre.headers['access-control-allow-headers']), url).toMatch(/authorization.*content-type/);
  }

  const config = await t.call('GET', `/api/widget/${guarded}/config`, null, undefined, evil);
  // widget.js asks for the config with credentials: the refusal is readable by that request.
  expect([config.status, config.body.error.code]).toEqual([403, 'ORIGIN_NOT_ALLOWED']);
  expect(config.headers['access-control-allow-origin']).toBe('https://evil.test');
  expect(config.headers['access-control-allow-credentials']).toBe('true');
  expect(config.headers.vary).toMatch(/Origin/);
  expect(JSON.stringify(config.body)).not.toMatch(/Returns|Shop/);
  const session = await t.call('POST', `/api/widget/${guarded}/session`, null, {}, evil);
  expect([session.status, session.body.error.code]).toEqual([403, 'ORIGIN_NOT_ALLOWED']);
  expect(session.headers['access-control-allow-origin']).toBe('https://evil.test');
  expect(session.body.error.hint).toMatch(/allowedDomains/);

  // The fallback's routes, with a session of a listed page presented from another one.
  const token = (await newSession(t, guarded, {}, { origin: 'https://example.com' })).token;
  const sse = await t.call('POST', '/api/widget/sse', token, { type: 'hello', v: 1 }, evil);
  const frames = await t.call('POST', '/api/widget/frames', token, { type: 'typing', typing: true }, evil);
  for (const res of [sse, frames]) {
    expect([res.status, res.body.error.code]).toEqual([403, 'ORIGIN_NOT_ALLOWED']);
    expect(res.headers['access-control-allow-origin']).toBe('https://evil.test');
  }
});

test('an expired, forged or missing session closes the socket with 4001 before anything is read', async () => {
  const session = await newSession(t, chatbotId);
  const claims = t.app.services.widget.tokens.read(session.token)!;
  const past = new SessionTokens(t.config.secretKey, () => Math.floor(Date.now() / 1000) - 2 * 24 * 3600);
  const expired = past.issue(chatbotId, claims.chatUserId).token;
  const forged = new SessionTokens(Buffer.alloc(32, 7)).issue(chatbotId, claims.chatUserId).token;
  for (const token of [expired, forged, 'not-a-token']) {
    const c = await connect(t.url, token);
    const closed = await c.waitClosed();
    expect(closed.code, token).toBe(CLOSE.sessionInvalid);
    expect(c.frames).toEqual([]);
  }
  // Without a token at the upgrade, hello must carry one.
  const bare = await connect(t.url, null);
  bare.send({ type: 'hello', v: 1 });
  expect((await bare.waitClosed()).code).toBe(CLOSE.sessionInvalid);
  const viaHello = await connect(t.url, null);
  viaHello.send({ type: 'hello', v: 1, token: session.token });
  await viaHello.waitFor((f) => f.type === 'ready');
  viaHello.close();
  // The expired token still renews into the same visitor.
  const renewed = await t.call('POST', `/api/widget/${chatbotId}/session`, null, { renew: expired });
  expect(renewed.status).toBe(201);
  expect(renewed.body.data.visitor.id).toBe(claims.chatUserId);
});

test('bad frames get an error frame, keep the socket open and change nothing', async () => {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  const before = await eventCount();
  const bad: unknown[] = [
    'not json',
    '[1,2]',
    { type: 'unknown.kind' },
    { type: 'message.send', text: 'no client id' },
    { type: 'message.send', clientId: 'x', text: '' },
    { type: 'message.send', clientId: 'x', text: 'hi', extra: true },
    { type: 'message.send', clientId: 'x', text: 'a'.repeat(4001) },
    { type: 'message.send', clientId: 'x', conversationId: 'someone-elses', text: 'hi' },
    { type: 'feedback', conversationId: 'c', messageId: 'm', feedback: 'meh' },
  ];
  for (const frame of bad) c.send(frame);
  await expect.poll(() => c.of('error').length, { timeout: 5000 }).toBe(bad.length);
  const codes = c.of('error').map((e: ErrorFrame) => e.code);
  expect(codes.sort()).toEqual(['NOT_FOUND', ...Array(bad.length - 1).fill('VALIDATION_FAILED')]);
  expect(c.closed).toBeNull();
  expect(await eventCount()).toBe(before);
  c.send({ type: 'ping' });
  await c.waitFor((f) => f.type === 'pong');
  c.close();
});

test('a frame over 64 KiB closes the socket with 1009; too many frames close it with 1008 and a reason', async () => {
  const session = await newSession(t, chatbotId);
  const big = await visitor(t.url, session.token);
  big.send(JSON.stringify({ type: 'message.send', clientId: 'big', text: 'x'.repeat(1024 * 1024) }));
  expect((await big.waitClosed()).code).toBe(CLOSE.tooBig);

  const chatty = await visitor(t.url, session.token);
  for (let i = 0; i < 25; i++) chatty.send({ type: 'ping' });
  const closed = await chatty.waitClosed();
  expect(closed.code).toBe(CLOSE.policy);
  expect(closed.reason).toMatch(/too many frames/);
});

test('the frame limit at its edge: exactly 20 frames in a window (hello counts) keep the socket open, the 21st closes it', async () => {
  const session = await newSession(t, chatbotId);
  // Sent in one burst, far inside the 10 s window that starts with the socket.
  const c = await visitor(t.url, session.token);
  for (let i = 0; i < 19; i++) c.send({ type: 'ping' });
  await expect.poll(() => c.of('pong').length).toBe(19);
  // A round trip on another socket: had the 20th frame closed this one, its close would be here by now.
  const other = await visitor(t.url, session.token);
  other.close();
  expect(c.closed).toBeNull();
  c.send({ type: 'ping' });
  const closed = await c.waitClosed();
  expect(closed).toEqual({ code: CLOSE.policy, reason: 'too many frames: at most 20 per 10 s' });
  expect(c.of('pong')).toHaveLength(19);
});

test('the heartbeat ends a socket that stops answering pings and keeps a live one', async () => {
  const beating = await startLiveApp({ env: { WS_HEARTBEAT_MS: '1000' } });
  onTestFinished(() => beating.close());
  const session = await newSession(beating, await chatbotWithKnowledge(beating));
  const live = await visitor(beating.url, session.token);
  const protocols = [WS_SUBPROTOCOL, WS_SESSION_PROTOCOL_PREFIX + session.token];
  const ws = new WebSocket(beating.url.replace(/^http/, 'ws') + '/api/widget/ws', protocols, { autoPong: false });
  const dead = new Client(ws);
  await new Promise((resolve) => ws.once('open', resolve));
  dead.send({ type: 'hello', v: 1 });
  await dead.waitFor((f) => f.type === 'ready');
  await dead.waitClosed(5000);
  expect(dead.closed!.code).toBe(1006);
  expect(live.closed).toBeNull();
  live.close();
});

test('sockets per visitor are capped (4029)', async () => {
  const session = await newSession(t, chatbotId);
  const open: Client[] = [];
  for (let i = 0; i < 10; i++) open.push(await visitor(t.url, session.token));
  const extra = await connect(t.url, session.token);
  expect((await extra.waitClosed()).code).toBe(CLOSE.tooManySockets);
  for (const c of open) c.close();
});

test('a Server-Sent Events stream the visitor closed gives its place back: eleven opened one after another (cap 10) are all admitted', async () => {
  const session = await newSession(t, chatbotId);
  // WS_MAX_SOCKETS_PER_VISITOR defaults to 10.
  for (let i = 0; i < 11; i++) {
    const controller = new AbortController();
    const res = await fetch(`${t.url}/api/widget/sse`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'hello', v: 1 }),
      signal: controller.signal,
    });
    expect(res.status, `stream ${i + 1}`).toBe(200);
    const stream = readEvents(res.body!);
    await expect.poll(() => stream.frames.some((f) => f.type === 'ready')).toBe(true);
    controller.abort();
    await stream.cancel();
    // Its slot is given back once the server sees the connection go.
    await expect.poll(() => t.app.realtime.slots.held(`visitor:${session.visitor.id}`)).toBe(0);
  }
});

test('bad frames POSTed for the SSE fallback get the error envelope and change nothing; a good frame still works', async () => {
  const session = await newSession(t, chatbotId);
  const auth = { authorization: `Bearer ${session.token}` };
  const controller = new AbortController();
  const stream = await fetch(`${t.url}/api/widget/sse`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'hello', v: 1 }),
    signal: controller.signal,
  });
  expect(stream.status).toBe(200);
  try {
    await checkBadFrames(auth);
  } finally {
    controller.abort();
  }
});

test("the SSE fallback's hello has the socket's limits: at most 100 conversations resumed, ids of 64 characters, 64 KiB; a refused one opens nothing", async () => {
  const session = await newSession(t, chatbotId);
  const open = (hello: unknown) =>
    fetch(`${t.url}/api/widget/sse`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(hello),
    }).then(async (res) => ({ status: res.status, body: await res.json() }));
  const resume = (n: number, length = 10) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i).padStart(length, 'c'), 1]));
  const bad: Array<[string, unknown, number, string]> = [
    ['101 conversations', { type: 'hello', v: 1, resume: resume(101) }, 400, 'VALIDATION_FAILED'],
    ['an id of 65 characters', { type: 'hello', v: 1, resume: resume(1, 65) }, 400, 'VALIDATION_FAILED'],
    ['over 64 KiB', { type: 'hello', v: 1, resume: resume(100, (64 * 1024) / 100) }, 413, 'PAYLOAD_TOO_LARGE'],
  ];
  for (const [what, hello, status, code] of bad) {
    const res = await open(hello);
    expect(res.status, what).toBe(status);
    expect(res.body.error.code, what).toBe(code);
  }
  expect(t.app.realtime.slots.held(`visitor:${session.visitor.id}`)).toBe(0);
  // The socket refuses the same hello with an error frame, and stays open for a good one.
  const c = await connect(t.url, session.token);
  c.send({ type: 'hello', v: 1, resume: resume(1, 65) });
  const refused = await c.waitFor((f) => f.type === 'error');
  expect(refused).toMatchObject({ code: 'VALIDATION_FAILED', ref: { type: 'hello' } });
  c.send({ type: 'hello', v: 1, resume: resume(100, 64) });
  await c.waitFor((f) => f.type === 'ready');
  c.close();
});

async function checkBadFrames(auth: Record<string, string>) {
  const before = await eventCount();
  const post = (body: string, contentType = 'application/json') =>
    fetch(`${t.url}/api/widget/frames`, {
      method: 'POST',
      headers: { ...auth, 'content-type': contentType },
      body,
    }).then(async (res) => ({ status: res.status, body: await res.json() }));
  const bad: Array<[string, string, number, string]> = [
    ['not json', 'not json', 400, 'INVALID_JSON'],
    ['not an object', '[1,2]', 400, 'VALIDATION_FAILED'],
    ['unknown type', JSON.stringify({ type: 'unknown.kind' }), 400, 'VALIDATION_FAILED'],
    ['missing field', JSON.stringify({ type: 'message.send', text: 'no client id' }), 400, 'VALIDATION_FAILED'],
    [
      'extra field',
      JSON.stringify({ type: 'message.send', clientId: 'x', text: 'hi', extra: true }),
      400,
      'VALIDATION_FAILED',
    ],
    [
      'text too long',
      JSON.stringify({ type: 'message.send', clientId: 'x', text: 'a'.repeat(4001) }),
      400,
      'VALIDATION_FAILED',
    ],
    ['hello', JSON.stringify({ type: 'hello', v: 1 }), 400, 'VALIDATION_FAILED'],
    [
      '1 MB',
      JSON.stringify({ type: 'message.send', clientId: 'big', text: 'x'.repeat(1024 * 1024) }),
      413,
      'PAYLOAD_TOO_LARGE',
    ],
  ];
  for (const [what, body, status, code] of bad) {
    const res = await post(body);
    expect(res.status, what).toBe(status);
    expect(res.body.ok, what).toBe(false);
    expect(res.body.error.code, what).toBe(code);
  }
  const textPlain = await post('{"type":"ping"}', 'text/plain');
  expect(textPlain.body.ok).toBe(false);
  expect(await eventCount()).toBe(before);
  // A well-formed frame still works, and a frame about someone else's conversation is an error frame.
  const ok = await post(JSON.stringify({ type: 'message.send', clientId: 'fine', text: 'When are refunds paid?' }));
  expect(ok.status).toBe(200);
  expect(ok.body.data.frames).toMatchObject([{ type: 'ack', clientId: 'fine' }]);
  const other = await post(
    JSON.stringify({ type: 'feedback', conversationId: 'someone-elses', messageId: 'm', feedback: 'up' }),
  );
  expect(other.body.data.frames).toMatchObject([{ type: 'error', code: 'NOT_FOUND' }]);
}
