/**
 * An ack is a promise: a visitor's socket sends a burst of messages to a real server process
 * (`server/main.ts` in a child), which is killed with SIGKILL after the first acks (acked
 * messages share group commits with un-acked ones on SQLite). After restart the visitor resumes
 * and resends the whole burst with the same client ids: every acked message is stored with the
 * number its ack gave, every message is stored once and answered once, and what the socket
 * replays carries the stored numbers. On SQLite and on PostgreSQL; in CI an unreachable
 * PostgreSQL fails the file.
 */
import { afterEach, beforeEach, expect, test } from 'vitest';
import type { AckFrame, ServerFrame } from '../../../shared/protocol.js';
import { startChatStandin, type ChatStandin } from '../../helpers/chat-standin.js';
import { crashFixture } from '../../helpers/crash-fixture.js';
import { waitFor } from '../../helpers/knowledge-http.js';
import { describeOnDialects } from '../../helpers/dialects.js';
import { visitor } from '../../helpers/widget.js';

const BURST = 24;

describeOnDialects(
  'on %s',
  (dialect) => {
    let model: ChatStandin;
    beforeEach(async () => {
      model = await startChatStandin();
    });
    afterEach(async () => {
      await model.close();
    });
    const crash = crashFixture(dialect, 'parley-visitor-crash-');
    const env = () => ({ OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'test-key', ANSWER_LEASE_MS: '500' });

    test('acked messages survive a kill -9 with their numbers; the resent burst is stored and answered once each', async () => {
      const setup = await crash.app(env());
      const chatbotId = (await setup.call('POST', '/api/v2/chatbots', (await setup.token()).token, { title: 'Shop' }))
        .body.data.chatbot.id as string;
      await crash.closeApp(setup);

      let { url } = await crash.spawn(env());
      const session = (
        await (
          await fetch(`${url}/api/widget/${chatbotId}/session`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          })
        ).json()
      ).data;
      let c = await visitor(url, session.token);
      c.send({ type: 'message.send', clientId: 'c0', text: 'Hello' });
      const conversationId = (await c.waitFor<AckFrame>((f) => f.type === 'ack')).conversationId;
      const send = () => {
        for (let i = 1; i <= BURST; i++)
          c.send({ type: 'message.send', clientId: `c${i}`, conversationId, text: `Question ${i}?` });
      };
      send();
      await c.waitFor(() => c.of('ack').length >= 6, 20_000);
      await crash.kill();
      const acked = new Map(c.of('ack').map((a) => [a.clientId, a]));
      const before = c.frames;

      ({ url } = await crash.spawn(env()));
      c = await visitor(url, session.token, { [conversationId]: 0 });
      send();
      await c.waitFor(() => c.of('ack').length >= BURST, 20_000);
      // Every message acked before the kill is acked again with its first id and number.
      for (const a of c.of('ack')) {
        const first = acked.get(a.clientId);
        if (first) expect([a.messageId, a.seq], a.clientId).toEqual([first.messageId, first.seq]);
      }
      await waitFor(
        async () =>
          (await crash.withDatabase((db) => db.selectFrom('answers_owed').select('message_id').execute())).length === 0,
        20_000,
        'every answer',
      );
      await waitFor(() => c.of('answer.done').length >= BURST + 1, 20_000, 'every answer on the socket');

      const rows = await crash.withDatabase((db) =>
        db
          .selectFrom('messages')
          .select(['id', 'author', 'seq', 'meta'])
          .where('conversation_id', '=', conversationId)
          .orderBy('seq')
          .execute(),
      );
      const questions = rows.filter((r) => r.author === 'visitor');
      expect(questions.length).toBe(BURST + 1);
      for (const a of acked.values()) expect(questions.find((q) => q.id === a.messageId)?.seq).toBe(a.seq);
      const answered = rows
        .filter((r) => r.author === 'ai')
        .map((r) => (typeof r.meta === 'string' ? JSON.parse(r.meta) : r.meta).questionId);
      expect(answered.sort()).toEqual(questions.map((q) => q.id).sort());
      // Both sockets saw stored events with the stored numbers, and the second saw each once.
      const stored = new Map(rows.map((r) => [r.id, r.seq]));
      const withMessage = (frames: ServerFrame[]) =>
        frames.flatMap((f) =>
          (f.type === 'message.created' || f.type === 'answer.done') && f.conversationId === conversationId ? [f] : [],
        );
      for (const f of [...withMessage(before), ...withMessage(c.frames)])
        expect(f.seq, f.message.id).toBe(stored.get(f.message.id));
      expect(withMessage(c.frames).length).toBe(new Set(withMessage(c.frames).map((f) => f.message.id)).size);
      expect(withMessage(c.frames).length).toBe(rows.length);
    });
  },
  { timeout: 60_000 },
);
