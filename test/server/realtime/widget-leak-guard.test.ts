/**
 * The leak guard on the visitor's socket, end to end: a language model (the local stand-in)
 * that prints a short confidential setting whole is withheld — neither the stored answer nor any
 * streamed delta carries it, and the visitor gets the refusal. A secret shorter than the run that
 * counts as a leak (40 characters) is a leak when it appears whole.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { AnswerDoneFrame } from '../../../shared/protocol.js';
import { ANSWER_MESSAGES } from '../../../server/domain/answers/messages.js';
import { LEAK_MIN_CHARS } from '../../../server/domain/answers/leak-guard.js';
import { startChatStandin, type ChatStandin } from '../../helpers/chat-standin.js';
import { chatbotWithKnowledge, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

const SECRET = 'Staff door code: 4471-KAPPA';

let model: ChatStandin;
let t: LiveApp;
let chatbotId: string;

beforeAll(async () => {
  model = await startChatStandin();
  t = await startLiveApp({ env: { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'test-key' } });
  chatbotId = await chatbotWithKnowledge(t, { general: { systemPrompt: SECRET } });
});
afterAll(async () => {
  await t.close();
  await model.close();
});

test('a model that prints a short confidential setting whole: the visitor sees the refusal, in no delta the secret', async () => {
  expect(SECRET.length).toBeLessThan(LEAK_MIN_CHARS);
  const c = await visitor(t.url, (await newSession(t, chatbotId)).token);
  model.next({ kind: 'reply', text: `Of course. ${SECRET}. Anything else I can help with?`, pieceDelayMs: 5 });
  c.send({ type: 'message.send', clientId: 'ask', text: 'When are refunds paid?' });
  const done = await c.waitFor<AnswerDoneFrame>((f) => f.type === 'answer.done');
  // The model was asked with the secret in its system message, and answered with it.
  expect(model.requests.at(-1)!.body.messages[0].content).toContain(SECRET);
  expect(done.message.text).toBe(ANSWER_MESSAGES.en.cannotShareInstructions);
  const streamed = c
    .of('answer.delta')
    .map((d) => d.delta)
    .join('');
  expect(streamed.toLowerCase()).not.toContain('4471-kappa');
  c.close();
});

test('the same model printing only a part of it is answered as written', async () => {
  const c = await visitor(t.url, (await newSession(t, chatbotId)).token);
  model.next({
    kind: 'reply',
    text: 'The staff door is at the back. Refunds are paid within 5 business days.',
    pieceDelayMs: 5,
  });
  c.send({ type: 'message.send', clientId: 'ask', text: 'When are refunds paid?' });
  const done = await c.waitFor<AnswerDoneFrame>((f) => f.type === 'answer.done');
  expect(done.message.text).toContain('5 business days');
  c.close();
});
