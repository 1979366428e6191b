/**
 * Two server instances on one database and one Redis: a team reply posted through the REST API
 * of instance A reaches the visitor whose socket is on instance B, live; the visitor's streamed
 * answer on B reaches the team's stream on A. Presence is shared: a knowledge-gap answer given on
 * A is e-mailed to a verified visitor only when no instance holds a connection of theirs; the
 * public routes' rate limits count an address's requests on every instance together.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { AckFrame, MessageCreatedFrame } from '../../../shared/protocol.js';
import { recordGap } from '../../../server/domain/resources/knowledge-gaps.js';
import { GAP_MAIL_JOB } from '../../../server/domain/visitors/gap-answers.js';
import { Redis } from 'ioredis';
import { REDIS_URL, redisAvailable } from '../../helpers/redis.js';
import { startSmtpInbox, type SmtpInbox } from '../../helpers/smtp.js';
import { chatbotWithKnowledge, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

const hasRedis = await redisAvailable();
let a: LiveApp;
let b: LiveApp;
let dataDir: string;
let chatbotId: string;
let inbox: SmtpInbox;
const visitorAddress = { 'x-forwarded-for': `198.51.100.${1 + Math.floor(Math.random() * 254)}` };

beforeAll(async () => {
  if (!hasRedis) return;
  dataDir = mkdtempSync(join(tmpdir(), 'parley-two-'));
  inbox = await startSmtpInbox();
  // Behind a proxy, so this file's visitors have an address of their own: the per-address limits
  // are counted in Redis, shared with every other file running at the same time from 127.0.0.1.
  a = await startLiveApp({ dataDir, env: { REDIS_URL, SMTP_URL: inbox.url, TRUST_PROXY: '1' } });
  b = await startLiveApp({ dataDir, env: { REDIS_URL, SMTP_URL: inbox.url, TRUST_PROXY: '1' } });
  chatbotId = await chatbotWithKnowledge(a);
});
afterAll(async () => {
  if (!hasRedis) return;
  await b.close();
  await a.close();
  await inbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test.runIf(hasRedis)('a REST reply on instance A reaches the visitor connected to instance B', async () => {
  const session = await newSession(a, chatbotId, {}, visitorAddress);
  const onB = await visitor(b.url, session.token);
  onB.send({ type: 'message.send', clientId: 'two-1', text: 'When are refunds paid?' });
  const ack = await onB.waitFor<AckFrame>((f) => f.type === 'ack');
  await onB.waitFor((f) => f.type === 'answer.done');
  const reply = await a.call(
    'POST',
    `/api/v2/chatbots/${chatbotId}/conversations/${ack.conversationId}/replies`,
    a.ownerToken,
    { message: 'Answered from instance A.' },
  );
  expect(reply.status).toBeLessThan(300);
  const live = await onB.waitFor<MessageCreatedFrame>(
    (f) => f.type === 'message.created' && f.message.author === 'agent',
  );
  expect(live.message.text).toBe('Answered from instance A.');
  expect(live.seq).toBe(5); // started, question, answer, taken over, reply
  onB.close();
});

test.runIf(hasRedis)(
  'a knowledge-gap answer given on A is not e-mailed while the visitor is connected to B, and is once they left',
  async () => {
    const session = await newSession(a, chatbotId, {}, visitorAddress);
    const email = `visitor-${Date.now()}@example.com`;
    const verified = await a.app.services.visitors.accounts.bindVerified(chatbotId, email, {}, session.visitor.id);
    expect(verified.id).toBe(session.visitor.id);
    const onB = await visitor(b.url, session.token);
    onB.send({ type: 'message.send', clientId: 'gap-1', text: 'Do you ship to Norway?' });
    const { conversationId } = await onB.waitFor<AckFrame>((f) => f.type === 'ack');
    await onB.waitFor((f) => f.type === 'answer.done');
    const mailJobs = async () =>
      Number(
        (
          await a.database.db
            .selectFrom('jobs')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('name', '=', GAP_MAIL_JOB)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const answerGap = async (question: string, text: string) => {
      const gap = await recordGap(a.app.services.store, { chatbotId, conversationId, messageId: null, question });
      const res = await a.call('POST', `/api/v2/chatbots/${chatbotId}/knowledge-gaps/${gap.id}/answer`, a.ownerToken, {
        answer: text,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };

    expect(await a.app.realtime.hub.presence.present(session.visitor.id)).toBe(true);
    await answerGap('Do you ship to Norway?', 'Yes, within 3 days.');
    const live = await onB.waitFor<MessageCreatedFrame>(
      (f) => f.type === 'message.created' && f.message.author === 'agent',
    );
    expect(live.message.text).toBe('Yes, within 3 days.');
    expect(await mailJobs()).toBe(0); // seen live on B: no e-mail from A

    onB.close();
    await expect.poll(() => a.app.realtime.hub.presence.present(session.visitor.id)).toBe(false);
    await answerGap('Do you ship to Iceland?', 'Yes, within 5 days.');
    const mail = await inbox.next(email);
    expect(mail.text).toContain('Yes, within 5 days.');
    expect(inbox.to(email)).toHaveLength(1);
  },
);

test.runIf(hasRedis)(
  "the public routes' rate limit counts an address's requests on both instances together",
  async () => {
    // Counts left by an earlier run of this file within the minute would shift the numbers.
    const redis = new Redis(REDIS_URL);
    try {
      const stale = await redis.keys('parley:rl:*');
      if (stale.length) await redis.del(...stale);
    } finally {
      redis.disconnect();
    }
    const config = (app: LiveApp) => app.call('GET', `/api/widget/${chatbotId}/config`, null);
    // GET /api/widget/{id}/config allows 120 a minute per address.
    for (let i = 0; i < 60; i++) expect((await config(a)).status).toBe(200);
    for (let i = 0; i < 60; i++) expect((await config(b)).status).toBe(200);
    for (const app of [a, b]) {
      const refused = await config(app);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
  },
);
