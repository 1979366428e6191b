/**
 * Two agents racing on one conversation over PostgreSQL: take-overs, replies and a hand-back
 * sent at once by both all succeed or get a clear 409, never a 500; each team stream and the
 * visitor see every stored change exactly once, numbered 1, 2, 3… with no gap.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { WS_SUBPROTOCOL, type AckFrame, type ServerFrame } from '../../../shared/protocol.js';
import { TEAM_TOKEN_PROTOCOL_PREFIX } from '../../../server/routes/v2/stream.js';
import { newId } from '../../../server/domain/ids.js';
import { tokenOf } from '../../helpers/resources.js';
import { chatbotWithKnowledge, Client, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

let t: LiveApp;
let chatbotId: string;

beforeAll(async () => {
  t = await startLiveApp({ dialect: 'postgres' });
  chatbotId = await chatbotWithKnowledge(t);
});
afterAll(async () => {
  await t.close();
});

async function team(token: string, resume?: Record<string, number>): Promise<Client> {
  const ws = new WebSocket(t.url.replace(/^http/, 'ws') + '/api/v2/stream', [
    WS_SUBPROTOCOL,
    TEAM_TOKEN_PROTOCOL_PREFIX + token,
  ]);
  const c = new Client(ws);
  await new Promise((resolve) => ws.once('open', resolve));
  c.send({ type: 'hello', v: 1, ...(resume && { resume }) });
  await c.waitFor((f) => (f as { type: string }).type === 'team.ready');
  return c;
}

test('two agents taking over, replying and handing back at once: no 500, every change once and in order on every stream', async () => {
  const email = `${newId()}@team.test`;
  expect(
    (await t.call('POST', `/api/v2/chatbots/${chatbotId}/members`, t.ownerToken, { email, role: 'member' })).status,
  ).toBe(201);
  const memberToken = await tokenOf(t, (await t.app.services.accounts.resolve()).id, email);
  const [a, b] = [await team(t.ownerToken), await team(memberToken)];
  const v = await visitor(t.url, (await newSession(t, chatbotId)).token);
  v.send({ type: 'message.send', clientId: 'race', text: 'When are refunds paid?' });
  const { conversationId } = await v.waitFor<AckFrame>((f) => f.type === 'ack');
  await v.waitFor((f) => f.type === 'answer.done');
  const path = `/api/v2/chatbots/${chatbotId}/conversations/${conversationId}`;

  const calls = [];
  for (let i = 0; i < 6; i++) {
    for (const token of [t.ownerToken, memberToken]) {
      calls.push(t.call('POST', `${path}/take-over`, token));
      calls.push(t.call('POST', `${path}/replies`, token, { message: `reply ${i}` }));
      if (i % 3 === 2) calls.push(t.call('POST', `${path}/switch-to-ai`, token));
    }
  }
  const results = await Promise.all(calls);
  expect(results.filter((r) => r.status >= 500).map((r) => JSON.stringify(r.body))).toEqual([]);
  expect(results.map((r) => r.status).filter((s) => s !== 200 && s !== 201)).toEqual([]);
  const last = (await t.call('GET', path, t.ownerToken)).body.data;
  const seq = (await t.app.services.conversations.reads.events(conversationId, 0, 1000)).at(-1)!.seq;

  const numbered = (c: Client) =>
    c.frames
      .filter(
        (f) =>
          'conversationId' in f &&
          f.conversationId === conversationId &&
          'seq' in f &&
          f.type !== 'ack' &&
          f.type !== 'synced',
      )
      .map((f) => (f as ServerFrame & { seq: number }).seq);
  for (const c of [a, b, v]) {
    await expect.poll(() => numbered(c).at(-1), { timeout: 15_000 }).toBe(seq);
    const seen = numbered(c);
    expect(seen, 'each change once, in order, no gap').toEqual(
      Array.from({ length: seen.length }, (_, i) => seen[0] + i),
    );
  }
  expect(numbered(a)).toEqual(numbered(b));
  expect(last).toBeTruthy();
  for (const c of [a, b, v]) c.close();
});

test('a team stream dropped in the middle of a burst resumes from its last number: every later change once, none lost', async () => {
  const first = await team(t.ownerToken);
  const v = await visitor(t.url, (await newSession(t, chatbotId)).token);
  v.send({ type: 'message.send', clientId: 'burst-0', text: 'When are refunds paid?' });
  const { conversationId } = await v.waitFor<AckFrame>((f) => f.type === 'ack');
  const mine = (c: Client) =>
    c.frames.filter(
      (f) => 'conversationId' in f && f.conversationId === conversationId && 'seq' in f && f.type !== 'synced',
    ) as Array<ServerFrame & { seq: number }>;
  await expect.poll(() => mine(first).length).toBeGreaterThan(0);
  // The network drops the stream while the visitor keeps writing and the team keeps replying.
  first.ws.terminate();
  const path = `/api/v2/chatbots/${chatbotId}/conversations/${conversationId}`;
  for (let i = 1; i <= 5; i++) v.send({ type: 'message.send', clientId: `burst-${i}`, text: `more ${i}` });
  await Promise.all([1, 2, 3].map((i) => t.call('POST', `${path}/replies`, t.ownerToken, { message: `agent ${i}` })));
  const had = Math.max(...mine(first).map((f) => f.seq));
  const again = await team(t.ownerToken, { [conversationId]: had });
  await again.waitFor((f) => f.type === 'synced' && f.conversationId === conversationId);
  await expect.poll(() => v.of('ack').length, { timeout: 15_000 }).toBe(6);
  const seq = (await t.app.services.conversations.reads.events(conversationId, 0, 1000)).at(-1)!.seq;
  await expect.poll(() => Math.max(...mine(again).map((f) => f.seq)), { timeout: 15_000 }).toBe(seq);
  // Every number after the one given, in order; only the current condition that ends the replay repeats one.
  const seqs = mine(again).map((f) => f.seq);
  expect([...new Set(seqs)]).toEqual(Array.from({ length: seq - had }, (_, i) => had + 1 + i));
  const others = mine(again)
    .filter((f) => f.type !== 'condition')
    .map((f) => f.seq);
  expect(new Set(others).size).toBe(others.length);
  for (const c of [again, v]) c.close();
});

test('a knowledge gap answered three times at once: one custom response, the gap pointing at it, and one answer posted to the visitor', async () => {
  const v = await visitor(t.url, (await newSession(t, chatbotId)).token);
  v.send({ type: 'message.send', clientId: 'gap', text: 'Do you ship to Mars?' });
  await v.waitFor((f) => f.type === 'answer.done');
  const gaps = (await t.call('GET', `/api/v2/chatbots/${chatbotId}/knowledge-gaps`, t.ownerToken)).body.data
    .knowledgeGaps as Array<{ id: string; question: string }>;
  const gap = gaps.find((g) => g.question === 'Do you ship to Mars?')!;
  const answers = await Promise.all(
    [1, 2, 3].map((i) =>
      t.call('POST', `/api/v2/chatbots/${chatbotId}/knowledge-gaps/${gap.id}/answer`, t.ownerToken, {
        answer: `Yes, on rocket ${i}.`,
      }),
    ),
  );
  expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
  const responses = (
    (await t.call('GET', `/api/v2/chatbots/${chatbotId}/custom-responses?limit=100`, t.ownerToken)).body.data
      .customResponses as Array<{ id: string; question: string; answer: string }>
  ).filter((r) => r.question === 'Do you ship to Mars?');
  expect(responses).toHaveLength(1);
  const answered = (await t.call('GET', `/api/v2/chatbots/${chatbotId}/knowledge-gaps/${gap.id}`, t.ownerToken)).body
    .data.knowledgeGap;
  expect(answered.customResponseId).toBe(responses[0].id);
  await v.waitFor((f) => f.type === 'message.created' && f.message.author === 'agent');
  expect(v.of('message.created').filter((f) => f.message.author === 'agent')).toHaveLength(1);
  v.close();
});
