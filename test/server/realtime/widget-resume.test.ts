/**
 * Nothing lost, nothing repeated: a socket dropped in the middle of a streamed answer resumes
 * with exactly what it missed; a storm of reconnects resending one message stores and answers it
 * once; resume works across a server restart; and the Server-Sent Events fallback resumes alike.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type AckFrame, type AnswerDoneFrame, CLOSE, type ServerFrame } from '../../../shared/protocol.js';
import { startChatStandin, type ChatStandin } from '../../helpers/chat-standin.js';
import {
  chatbotWithKnowledge,
  type LiveApp,
  newSession,
  readEvents,
  startLiveApp,
  visitor,
} from '../../helpers/widget.js';

let model: ChatStandin;
let t: LiveApp;
let chatbotId: string;
let dataDir: string;

beforeAll(async () => {
  model = await startChatStandin();
  dataDir = mkdtempSync(join(tmpdir(), 'parley-resume-'));
  t = await startLiveApp({ dataDir, env: { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'test-key' } });
  chatbotId = await chatbotWithKnowledge(t);
});
afterAll(async () => {
  await t.close();
  await model.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Frames of stored events (the condition sent after a resume is the state, not an event). */
const stored = (f: ServerFrame) =>
  'seq' in f && f.type !== 'ack' && f.type !== 'synced' && !(f.type === 'condition' && !f.change);
const seqsOf = (frames: ServerFrame[], conversationId: string) =>
  frames
    .filter((f) => stored(f) && (f as { conversationId: string }).conversationId === conversationId)
    .map((f) => (f as { seq: number }).seq);

async function events(conversationId: string) {
  return t.app.services.conversations.reads.events(conversationId, 0);
}

test('a socket dropped in the middle of a streamed answer resumes with exactly the events it missed, then the condition', async () => {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  model.next({
    kind: 'reply',
    text: 'Refunds are paid within five business days of the return arriving.',
    pieceDelayMs: 40,
  });
  c.send({ type: 'message.send', clientId: 'drop-1', text: 'When are refunds paid?' });
  const ack = await c.waitFor<AckFrame>((f) => f.type === 'ack');
  await c.waitFor((f) => f.type === 'answer.delta');
  c.ws.terminate();
  const seen = Math.max(...seqsOf(c.frames, ack.conversationId));
  expect(seen).toBe(ack.seq);
  // The answer is finished and stored while the visitor is away.
  await expect.poll(async () => (await events(ack.conversationId)).length, { timeout: 10_000 }).toBe(3);

  const back = await visitor(t.url, session.token, { [ack.conversationId]: seen });
  const synced = await back.waitFor((f) => f.type === 'synced');
  const after = back.frames.slice(back.frames.findIndex((f) => f.type === 'ready') + 1);
  expect(after.map((f) => f.type)).toEqual(['answer.done', 'condition', 'synced']);
  const done = after[0] as AnswerDoneFrame;
  expect(done.seq).toBe(seen + 1);
  expect(done.message.text).toContain('five business days');
  expect(after[1]).toMatchObject({
    type: 'condition',
    seq: seen + 1,
    state: { mode: 'AI', status: 'OPEN', escalated: false },
  });
  expect(after[1]).not.toHaveProperty('change');
  expect(synced).toMatchObject({ seq: seen + 1 });
  back.close();
});

test('a storm of reconnects resending one message stores it once and answers it once; the visitor sees each event once', async () => {
  const session = await newSession(t, chatbotId);
  let conversationId: string | null = null;
  const seen: number[] = [];
  for (let i = 0; i < 8; i++) {
    const resume = conversationId ? { [conversationId]: seen.length ? Math.max(...seen) : 0 } : undefined;
    const c = await visitor(t.url, session.token, resume);
    c.send({
      type: 'message.send',
      clientId: 'storm-1',
      text: 'When are refunds paid?',
      ...(conversationId && { conversationId }),
    });
    const ack = await c.waitFor<AckFrame>((f) => f.type === 'ack');
    conversationId = ack.conversationId;
    // Drop at a different moment each time.
    await new Promise((r) => setTimeout(r, i * 15));
    for (const s of seqsOf(c.frames, conversationId)) seen.push(s);
    c.ws.terminate();
  }
  await expect.poll(async () => (await events(conversationId!)).length, { timeout: 10_000 }).toBe(3);
  const last = await visitor(t.url, session.token, { [conversationId!]: seen.length ? Math.max(...seen) : 0 });
  await last.waitFor((f) => f.type === 'synced');
  for (const s of seqsOf(last.frames, conversationId!)) seen.push(s);
  // Every stored event reached the visitor exactly once, across all the sockets.
  expect([...seen].sort((a, b) => a - b)).toEqual([1, 2, 3]);
  const messages = (await t.app.services.store.conversations.messages.page(conversationId!, 50, null)).items;
  expect(messages.map((m) => m.author)).toEqual(['visitor', 'ai']);
  const convs = await t.database.db
    .selectFrom('conversations')
    .select('id')
    .where('chat_user_id', '=', session.visitor.id)
    .execute();
  expect(convs).toHaveLength(1);
  last.close();
});

test('a first message whose ack was lost with its socket, resent without a conversation, is acknowledged and its answer still arrives', async () => {
  const session = await newSession(t, chatbotId);
  const first = await visitor(t.url, session.token);
  // The widget's socket is replaced right after it sends (a session renewal): the ack goes nowhere.
  first.send({ type: 'message.send', clientId: 'lost-ack', text: 'When are refunds paid?' });
  first.close();
  const conversationOf = () =>
    t.database.db
      .selectFrom('conversations')
      .select('id')
      .where('chat_user_id', '=', session.visitor.id)
      .executeTakeFirst();
  // Stored and answered while nobody listened.
  await expect
    .poll(async () => (await conversationOf()) && (await events((await conversationOf())!.id)).length, {
      timeout: 10_000,
    })
    .toBe(3);
  const conversationId = (await conversationOf())!.id;
  // The new socket knows no conversation yet: it resends the message as it was.
  const second = await visitor(t.url, session.token);
  second.send({ type: 'message.send', clientId: 'lost-ack', text: 'When are refunds paid?' });
  const ack = await second.waitFor<AckFrame>((f) => f.type === 'ack');
  expect(ack.conversationId).toBe(conversationId);
  // Every stored event reaches it, the answer included, each once.
  await expect.poll(() => seqsOf(second.frames, conversationId)).toEqual([1, 2, 3]);
  expect((await events(conversationId)).length).toBe(3);
  second.close();
});

test('a resent message on one socket is acknowledged with the stored message, not stored again', async () => {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  c.send({ type: 'message.send', clientId: 'twice', text: 'When are refunds paid?' });
  const first = await c.waitFor<AckFrame>((f) => f.type === 'ack');
  await c.waitFor((f) => f.type === 'answer.done');
  c.send({
    type: 'message.send',
    clientId: 'twice',
    conversationId: first.conversationId,
    text: 'When are refunds paid?',
  });
  await expect.poll(() => c.of('ack').length).toBe(2);
  expect(c.of('ack')[1]).toEqual(first);
  expect((await events(first.conversationId)).map((e) => e.type)).toEqual([
    'conversation.started',
    'message.added',
    'message.added',
  ]);
  c.close();
});

test('a message resent after its conversation was resolved is acknowledged as stored, not refused as closed', async () => {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  c.send({ type: 'message.send', clientId: 'before-resolve', text: 'When are refunds paid?' });
  const first = await c.waitFor<AckFrame>((f) => f.type === 'ack');
  await c.waitFor((f) => f.type === 'answer.done');
  const resolved = await t.call(
    'PATCH',
    `/api/v2/chatbots/${chatbotId}/conversations/${first.conversationId}`,
    t.ownerToken,
    { status: 'RESOLVED' },
  );
  expect(resolved.status).toBe(200);
  // The ack was lost on the way (say): the client sends the same message again.
  c.send({
    type: 'message.send',
    clientId: 'before-resolve',
    conversationId: first.conversationId,
    text: 'When are refunds paid?',
  });
  await expect.poll(() => c.of('ack').length).toBe(2);
  expect(c.of('ack')[1]).toEqual(first);
  expect(c.of('error')).toEqual([]);
  expect((await events(first.conversationId)).map((e) => e.type)).toEqual([
    'conversation.started',
    'message.added',
    'message.added',
    'conversation.resolved',
  ]);
  c.close();
});

test('resume works across a server restart: the same token, the events missed while it was down', async () => {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  c.send({ type: 'message.send', clientId: 'r-1', text: 'When are refunds paid?' });
  const ack = await c.waitFor<AckFrame>((f) => f.type === 'ack');
  await c.waitFor((f) => f.type === 'answer.done');
  const seen = Math.max(...seqsOf(c.frames, ack.conversationId));
  c.close();
  await t.close();
  // A second process on the same data directory (database and secret key).
  t = await startLiveApp({ dataDir, env: { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'test-key' } });
  const reply = await t.call(
    'POST',
    `/api/v2/chatbots/${chatbotId}/conversations/${ack.conversationId}/replies`,
    t.ownerToken,
    { message: 'Back after the restart.' },
  );
  expect(reply.status).toBeLessThan(300);
  const back = await visitor(t.url, session.token, { [ack.conversationId]: seen });
  await back.waitFor((f) => f.type === 'synced');
  const replayed = back.frames.filter(stored);
  expect(replayed.map((f) => f.type)).toEqual(['condition', 'message.created']);
  expect(replayed.map((f) => (f as { seq: number }).seq)).toEqual([seen + 1, seen + 2]);
  expect(back.frames.find((f) => f.type === 'condition' && !f.change)).toMatchObject({
    seq: seen + 2,
    state: { mode: 'AGENT' },
  });
  back.close();
});

test('the Server-Sent Events fallback carries the same frames and numbers, and resumes like the socket', async () => {
  const session = await newSession(t, chatbotId);
  const auth = { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' };
  const open = (resume?: Record<string, number>) => {
    const controller = new AbortController();
    return fetch(`${t.url}/api/widget/sse`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ type: 'hello', v: 1, ...(resume && { resume }) }),
      signal: controller.signal,
    }).then((res) => ({ res, controller }));
  };
  const { res, controller } = await open();
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const stream = readEvents(res.body!);
  await expect.poll(() => stream.frames.some((f) => f.type === 'ready')).toBe(true);
  const posted = await fetch(`${t.url}/api/widget/frames`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ type: 'message.send', clientId: 'sse-1', text: 'When are refunds paid?' }),
  });
  const body = await posted.json();
  expect(body.data.frames).toMatchObject([{ type: 'ack', clientId: 'sse-1' }]);
  const conversationId = body.data.frames[0].conversationId;
  await expect.poll(() => stream.frames.some((f) => f.type === 'answer.done'), { timeout: 10_000 }).toBe(true);
  expect(seqsOf(stream.frames, conversationId)).toEqual([1, 2, 3]);
  expect(stream.frames.some((f) => f.type === 'answer.delta')).toBe(true);
  controller.abort();
  await stream.cancel();

  // Away: the team replies. Back on a new stream with the last seq seen.
  await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations/${conversationId}/replies`, t.ownerToken, {
    message: 'Hello from the team.',
  });
  const again = await open({ [conversationId]: 3 });
  const resumed = readEvents(again.res.body!);
  await expect.poll(() => resumed.frames.some((f) => f.type === 'synced')).toBe(true);
  expect(resumed.frames.filter(stored).map((f) => [f.type, (f as { seq: number }).seq])).toEqual([
    ['condition', 4],
    ['message.created', 5],
  ]);
  again.controller.abort();
  await resumed.cancel();
  // Frames without a session are refused.
  const anonymous = await fetch(`${t.url}/api/widget/frames`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"type":"ping"}',
  });
  expect(anonymous.status).toBe(401);
});

test('a server that closes ends its Server-Sent Events streams with 1001, and the stream resumes on the next one', async () => {
  const session = await newSession(t, chatbotId);
  const auth = { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' };
  const open = (resume?: Record<string, number>) =>
    fetch(`${t.url}/api/widget/sse`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ type: 'hello', v: 1, ...(resume && { resume }) }),
    }).then((res) => readEvents(res.body!));
  const stream = await open();
  await expect.poll(() => stream.frames.some((f) => f.type === 'ready')).toBe(true);
  const posted = await fetch(`${t.url}/api/widget/frames`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ type: 'message.send', clientId: 'sse-restart', text: 'When are refunds paid?' }),
  });
  const { conversationId } = (await posted.json()).data.frames[0];
  await expect.poll(() => stream.frames.some((f) => f.type === 'answer.done'), { timeout: 10_000 }).toBe(true);

  // The reader keeps reading: the server's close ends the stream rather than waiting for it.
  await t.close();
  await stream.done;
  expect(stream.closes).toEqual([{ code: CLOSE.goingAway, reason: 'server restarting: reconnect and resume' }]);
  t = await startLiveApp({ dataDir, env: { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'test-key' } });
  await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations/${conversationId}/replies`, t.ownerToken, {
    message: 'Back after the restart.',
  });
  const resumed = await open({ [conversationId]: Math.max(...seqsOf(stream.frames, conversationId)) });
  await expect.poll(() => resumed.frames.some((f) => f.type === 'synced')).toBe(true);
  expect(resumed.frames.filter(stored).map((f) => [f.type, (f as { seq: number }).seq])).toEqual([
    ['condition', 4],
    ['message.created', 5],
  ]);
  await resumed.cancel();
});
