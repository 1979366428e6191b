/**
 * Two server instances on one database and one Redis: a team reply posted through the REST API
 * of instance A reaches the visitor whose socket is on instance B, live; the visitor's streamed
 * answer on B reaches the team's stream on A.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { AckFrame, MessageCreatedFrame } from '../../../shared/protocol.js';
import { REDIS_URL, redisAvailable } from '../../helpers/redis.js';
import { chatbotWithKnowledge, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

const hasRedis = await redisAvailable();
let a: LiveApp;
let b: LiveApp;
let dataDir: string;
let chatbotId: string;

beforeAll(async () => {
  if (!hasRedis) return;
  dataDir = mkdtempSync(join(tmpdir(), 'parley-two-'));
  a = await startLiveApp({ dataDir, env: { REDIS_URL } });
  b = await startLiveApp({ dataDir, env: { REDIS_URL } });
  chatbotId = await chatbotWithKnowledge(a);
});
afterAll(async () => {
  if (!hasRedis) return;
  await b.close();
  await a.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test.runIf(hasRedis)('a REST reply on instance A reaches the visitor connected to instance B', async () => {
  const session = await newSession(a, chatbotId);
  const onB = await visitor(b.url, session.token);
  onB.send({ type: 'message.send', clientId: 'two-1', text: 'When are refunds paid?' });
  const ack = await onB.waitFor<AckFrame>((f) => f.type === 'ack');
  await onB.waitFor((f) => f.type === 'answer.done');
  const reply = await a.call('POST', `/api/v2/chatbots/${chatbotId}/conversations/${ack.conversationId}/replies`, a.ownerToken, { message: 'Answered from instance A.' });
  expect(reply.status).toBeLessThan(300);
  const live = await onB.waitFor<MessageCreatedFrame>((f) => f.type === 'message.created' && f.message.author === 'agent');
  expect(live.message.text).toBe('Answered from instance A.');
  expect(live.seq).toBe(5); // started, question, answer, taken over, reply
  onB.close();
});
