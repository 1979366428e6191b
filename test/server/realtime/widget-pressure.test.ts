/**
 * The gateway under pressure, over real sockets: a reader that stops reading is closed with 4008
 * (its unsent frames stay over the buffer limit for a heartbeat), and on reconnect resumes with
 * exactly what it had not received, the long replay paced by the reader rather than closed; a chatbot at its cap of concurrent answers gives the next visitor the
 * localised "busy" reply, stored as the answer, instead of queueing the question.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CLOSE, type AnswerDoneFrame, type ServerFrame } from '../../../shared/protocol.js';
import { busyMessage } from '../../../server/domain/widget/busy.js';
import { startChatStandin, type ChatStandin } from '../../helpers/chat-standin.js';
import { chatbotWithKnowledge, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

let model: ChatStandin;
let t: LiveApp;

beforeAll(async () => {
  model = await startChatStandin();
  t = await startLiveApp({
    env: {
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'test-key',
      MAX_ANSWERS_PER_CHATBOT: '1',
      WS_BUFFER_LIMIT_BYTES: String(64 * 1024),
      WS_HEARTBEAT_MS: '4000',
    },
  });
});
afterAll(async () => {
  await t.close();
  await model.close();
});

/** The seqs of stored events a client received for a conversation, in the order received. */
const seqsOf = (frames: ServerFrame[], conversationId: string) =>
  frames
    .filter(
      (f) =>
        'seq' in f &&
        f.type !== 'synced' &&
        'conversationId' in f &&
        f.conversationId === conversationId &&
        !(f.type === 'condition' && !f.change),
    )
    .map((f) => (f as { seq: number }).seq);

/**
 * A visitor with ~11 MB of stored messages in 12 conversations: more than the kernel's socket
 * buffers hold for a reader that does not read (4,000 three-byte characters a message).
 */
async function bulkVisitor(app: LiveApp) {
  const chatbotId = await chatbotWithKnowledge(app, { 'chat-mode': { mode: 'HUMAN_ONLY' } });
  const session = await newSession(app, chatbotId);
  const chatbot = (await app.app.services.store.chatbots.get(chatbotId))!;
  const text = '€'.repeat(4000);
  const conversations = await Promise.all(
    Array.from({ length: 12 }, async (_, c) => {
      let conversation = null;
      for (let i = 0; i < 80; i++) {
        const sent = await app.app.services.conversations.visitors.sendAsVisitor(
          chatbot,
          session.visitor.id,
          conversation,
          text,
          { clientId: `bulk-${c}-${i}` },
        );
        conversation = (await app.app.services.store.conversations.get(sent.message.threadId))!;
      }
      return conversation!;
    }),
  );
  return { session, conversations };
}

/**
 * Opens every conversation from the start on a socket that reads nothing until the server gives up
 * on it (its socket is no longer open), then reads what reached it and the close.
 */
async function readNothingUntilGivenUp(app: LiveApp, token: string, conversations: { id: string }[]) {
  const reader = await visitor(app.url, token);
  reader.ws.pause();
  for (const c of conversations) reader.send({ type: 'conversation.open', conversationId: c.id, after: 0 });
  await expect
    .poll(() => [...app.app.websocketServer.clients].some((ws) => ws.readyState !== ws.OPEN), { timeout: 30_000 })
    .toBe(true);
  reader.ws.resume();
  return { reader, closed: await reader.waitClosed(30_000) };
}

test('a reader that stops reading is closed with 4008 and, reconnecting, resumes with exactly the events it had not received', async () => {
  const { session, conversations } = await bulkVisitor(t);
  const { reader, closed } = await readNothingUntilGivenUp(t, session.token, conversations);
  expect(closed.code).toBe(CLOSE.slowConsumer);

  const seen = Object.fromEntries(conversations.map((c) => [c.id, seqsOf(reader.frames, c.id)]));
  const missed = conversations.filter((c) => (seen[c.id].at(-1) ?? 0) < c.seq);
  expect(missed.length).toBeGreaterThan(0);
  const back = await visitor(
    t.url,
    session.token,
    Object.fromEntries(conversations.map((c) => [c.id, seen[c.id].at(-1) ?? 0])),
  );
  for (const c of conversations) {
    await back.waitFor((f) => f.type === 'synced' && f.conversationId === c.id, 30_000);
    // In order, nothing twice, nothing missing: what came before the close and what came after.
    expect([...seen[c.id], ...seqsOf(back.frames, c.id)], c.id).toEqual(Array.from({ length: c.seq }, (_, i) => i + 1));
  }
  back.close();
});

test("at the chatbot's cap of concurrent answers the next visitor gets the busy reply in the chatbot's language, stored as the answer", async () => {
  const chatbotId = await chatbotWithKnowledge(t, { localization: { localization: { locale: 'de' } } });
  const first = await visitor(t.url, (await newSession(t, chatbotId)).token);
  const second = await visitor(t.url, (await newSession(t, chatbotId)).token);
  // The first answer streams slowly and holds the one slot (MAX_ANSWERS_PER_CHATBOT=1).
  model.next({
    kind: 'reply',
    text: 'Refunds are paid within five business days of the return arriving at our warehouse.',
    pieceDelayMs: 60,
  });
  first.send({ type: 'message.send', clientId: 'slow', text: 'When are refunds paid?' });
  await first.waitFor((f) => f.type === 'answer.delta');

  second.send({ type: 'message.send', clientId: 'busy', text: 'Wann wird erstattet?' });
  const busy = await second.waitFor<AnswerDoneFrame>((f) => f.type === 'answer.done');
  const german = busyMessage({ localization: { locale: 'de' } });
  expect(german).toMatch(/Entschuldigung/);
  expect(busy.message.text).toBe(german);
  expect(first.of('answer.done')).toEqual([]); // the first answer was still being written
  const requests = model.requests.length;

  const done = await first.waitFor<AnswerDoneFrame>((f) => f.type === 'answer.done', 20_000);
  expect(done.message.text).toContain('five business days');
  // The busy reply is the stored answer of that question (a resume shows it); the model was not asked.
  const stored = await t.app.services.store.conversations.messages.last(busy.conversationId, 10);
  expect(stored.map((m) => [m.author, m.text])).toEqual([
    ['visitor', 'Wann wird erstattet?'],
    ['ai', german],
  ]);
  expect(model.requests.length).toBe(requests);

  // With the slot free again, the same visitor is answered by the model.
  second.send({
    type: 'message.send',
    clientId: 'again',
    conversationId: busy.conversationId,
    text: 'When are refunds paid?',
  });
  const answered = await second.waitFor<AnswerDoneFrame>(
    (f) => f.type === 'answer.done' && f.message.id !== busy.message.id,
    20_000,
  );
  expect(answered.message.text).not.toBe(german);
  for (const c of [first, second]) c.close();
});

test('a reader that stops reading misses the ping behind its unsent frames and is told to resume (4008), not cut off', async () => {
  // The buffer limit far above what is sent: only the heartbeat can end this socket.
  const app = await startLiveApp({
    env: {
      WS_BUFFER_LIMIT_BYTES: String(256 * 1_048_576),
      WS_HEARTBEAT_MS: '1000',
    },
  });
  try {
    const { session, conversations } = await bulkVisitor(app);
    const { closed } = await readNothingUntilGivenUp(app, session.token, conversations);
    expect(closed.code).toBe(CLOSE.slowConsumer);
  } finally {
    await app.close();
  }
});
