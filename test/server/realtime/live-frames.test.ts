/**
 * What a reader is sent live (from the commit that rang, kept in memory by the gateway) is
 * exactly what a replay reads from the database: a burst of messages and answers seen by a
 * second tab and by the team's stream arrives once each, in order, frame for frame equal to a
 * replay of the same conversation on a fresh socket. The burst itself (a dozen messages into one
 * conversation at once, as a widget sends what it queued offline) is taken whole.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { type AckFrame, type ServerFrame, WS_SUBPROTOCOL } from '../../../shared/protocol.js';
import { TEAM_TOKEN_PROTOCOL_PREFIX } from '../../../server/routes/v2/stream.js';
import { chatbotWithKnowledge, Client, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

let t: LiveApp;
let chatbotId: string;

beforeAll(async () => {
  t = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(t);
});
afterAll(async () => {
  await t.close();
});

/** Frames of stored events (the condition sent after a replay is the state, not an event). */
const storedOf = (frames: ServerFrame[], conversationId: string) =>
  frames.filter(
    (f) =>
      'seq' in f &&
      f.type !== 'ack' &&
      f.type !== 'synced' &&
      !(f.type === 'condition' && !f.change) &&
      (f as { conversationId?: string }).conversationId === conversationId,
  );

test('a burst seen live by another tab and the team equals, frame for frame, a replay from the database', async () => {
  const { token } = await t.token({ access: 'custom', scopes: ['conversations:read'] });
  const ws = new WebSocket(t.url.replace(/^http/, 'ws') + '/api/v2/stream', [
    WS_SUBPROTOCOL,
    TEAM_TOKEN_PROTOCOL_PREFIX + token,
  ]);
  const team = new Client(ws);
  await new Promise((resolve) => ws.once('open', resolve));
  team.send({ type: 'hello', v: 1 });
  await team.waitFor((f) => (f as { type: string }).type === 'team.ready');

  const session = await newSession(t, chatbotId);
  const writer = await visitor(t.url, session.token);
  const reader = await visitor(t.url, session.token);
  writer.send({ type: 'message.send', clientId: 'q0', text: 'When are refunds paid?' });
  const conversationId = (await writer.waitFor<AckFrame>((f) => f.type === 'ack')).conversationId;
  // Twelve more at once: their commits, answers and doorbells interleave.
  const questions = Array.from({ length: 12 }, (_, i) =>
    i % 2 ? `How long can items be returned? (${i})` : `Is shipping back free? (${i})`,
  );
  questions.forEach((text, i) => writer.send({ type: 'message.send', conversationId, clientId: `q${i + 1}`, text }));
  const answered = (c: Client) =>
    expect
      .poll(() => c.frames.filter((f) => f.type === 'answer.done' && f.conversationId === conversationId).length, {
        timeout: 20_000,
      })
      .toBe(13);
  await answered(reader);
  await answered(team);
  // Every message of the burst was taken (a dozen changes of one conversation at once).
  expect(writer.of('error')).toEqual([]);
  expect(
    writer
      .of('ack')
      .map((f) => f.clientId)
      .sort(),
  ).toEqual(['q0', ...questions.map((_, i) => `q${i + 1}`)].sort());

  const replay = await visitor(t.url, session.token, { [conversationId]: 0 });
  await replay.waitFor((f) => f.type === 'synced' && f.conversationId === conversationId);
  const fromDatabase = storedOf(replay.frames, conversationId);
  const seqs = fromDatabase.map((f) => (f as { seq: number }).seq);
  expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
  expect(seqs.length).toBeGreaterThanOrEqual(1 + 13 * 2);
  expect(storedOf(reader.frames, conversationId)).toEqual(fromDatabase);
  expect(storedOf(team.frames, conversationId)).toEqual(fromDatabase);
  for (const c of [team, writer, reader, replay]) c.close();
});
