/**
 * Once the server decides to close a visitor's socket for a policy reason, it handles nothing
 * more from it: frames the client wrote after the one that broke the limit (arriving during the
 * close handshake) are neither stored nor answered. A client's oversized frame is its mistake:
 * logged at warn, never at error.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CLOSE } from '../../../shared/protocol.js';
import { chatbotWithKnowledge, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

let t: LiveApp;
let chatbotId: string;
const lines: { level: number; msg?: string; err?: { message?: string } }[] = [];

beforeAll(async () => {
  t = await startLiveApp({
    env: { WS_MAX_FRAMES_PER_10S: '4', LOG_LEVEL: 'warn' },
    logStream: { write: (line) => void lines.push(JSON.parse(line)) },
  });
  chatbotId = await chatbotWithKnowledge(t);
});
afterAll(() => t?.close());

const storedTexts = async () =>
  (await t.database.db.selectFrom('messages').select('text').execute()).map((r) => r.text);

test('frames written after the one that broke the frame limit are neither stored nor answered', async () => {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  // hello was frame 1 of 4: three messages are within the limit, the fourth breaks it, five more follow in the same burst.
  const texts = Array.from({ length: 9 }, (_, i) => `burst message ${i}`);
  for (const [i, text] of texts.entries()) c.send({ type: 'message.send', clientId: `burst-${i}`, text });
  const closed = await c.waitClosed();
  expect(closed).toMatchObject({ code: CLOSE.policy, reason: expect.stringMatching(/too many frames/) });
  await t.app.services.queue.drain(10_000);
  // The three within the limit may have been acted on before the decision (an unacknowledged one the widget sends again); none after it.
  const stored = (await storedTexts()).filter((text) => text.startsWith('burst message'));
  expect(stored.filter((text) => !texts.slice(0, 3).includes(text))).toEqual([]);
  const answeredIds = c.frames
    .filter((f) => f.type === 'ack' || f.type === 'error')
    .map((f) => ('clientId' in f ? f.clientId : JSON.stringify(f)));
  expect(answeredIds.filter((id) => !['burst-0', 'burst-1', 'burst-2'].includes(String(id)))).toEqual([]);
});

test('frames written after a binary frame (closed 1008) are neither stored nor answered', async () => {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  c.ws.send(Buffer.from('not text'), { binary: true });
  const texts = ['after binary 0', 'after binary 1'];
  for (const [i, text] of texts.entries()) c.send({ type: 'message.send', clientId: `after-${i}`, text });
  c.send({ type: 'ping' });
  expect(await c.waitClosed()).toMatchObject({ code: CLOSE.policy, reason: 'frames are JSON text' });
  await t.app.services.queue.drain(10_000);
  expect((await storedTexts()).filter((text) => text.startsWith('after binary'))).toEqual([]);
  expect(c.frames.filter((f) => f.type !== 'ready')).toEqual([]);
});

test('a frame over 64 KiB closes the socket with 1009 and is logged at warn, not error', async () => {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  const before = lines.length;
  c.send(JSON.stringify({ type: 'message.send', clientId: 'big', text: 'x'.repeat(70 * 1024) }));
  expect((await c.waitClosed()).code).toBe(CLOSE.tooBig);
  await expect
    .poll(() => lines.slice(before).some((l) => /payload|too big|max/i.test(`${l.msg} ${l.err?.message}`)))
    .toBe(true);
  const logged = lines.slice(before);
  expect(logged.filter((l) => l.level >= 50)).toEqual([]);
  expect(logged.some((l) => l.level === 40)).toBe(true);
});
