/**
 * An answer owed is an answer given: a real server process (`server/main.ts` in a child) is
 * killed with SIGKILL after it stored a visitor message and while the model was still writing
 * the answer; the next app on the same database answers that message exactly once, even with
 * two instances sweeping at once, or gives the localised unavailable reply after repeated failures.
 * On SQLite and on PostgreSQL (one schema shared by the child and the apps after it); in CI an
 * unreachable PostgreSQL fails the file.
 */
import { afterEach, beforeEach, expect, test } from 'vitest';
import { messagesFor } from '../../../../server/domain/answers/messages.js';
import type { TestApp } from '../../../helpers/app.js';
import { startChatStandin, type ChatStandin } from '../../../helpers/chat-standin.js';
import { crashFixture } from '../../../helpers/crash-fixture.js';
import { waitFor } from '../../../helpers/knowledge-http.js';
import { describeOnDialects } from '../../../helpers/dialects.js';

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
    const crash = crashFixture(dialect, 'parley-crash-');
    const { withDatabase } = crash;

    const modelEnv = () => ({ OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'test-key' });
    const app = (env: Record<string, string> = {}) => crash.app({ ...modelEnv(), ...env });

    /**
     * Prepares a chatbot, then runs the real server in a child process, sends a visitor message and
     * kills the process with SIGKILL once the model has the question (the message is stored, its
     * answer is not).
     */
    async function crashMidAnswer(locale = 'en') {
      const setup = await app();
      const token = (await setup.token()).token;
      const chatbotId = (await setup.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot
        .id as string;
      await setup.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/localization`, token, {
        localization: { locale },
      });
      const threadId = (await setup.call('POST', `/api/v2/chatbots/${chatbotId}/conversations`, token, {})).body.data
        .conversation.threadId as string;
      await crash.closeApp(setup);

      const { url } = await crash.spawn({ ...modelEnv(), ANSWER_LEASE_MS: '600', ANSWER_TIMEOUT_MS: '600000' });
      model.next({ kind: 'hang' });
      const pending = fetch(`${url}/api/v2/chatbots/${chatbotId}/conversations/${threadId}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Where is my parcel?' }),
      }).catch(() => null);
      // `>= 1`: the child's own lease is short (600 ms, so the apps after it need not wait long), and
      // under load its sweep may claim the hanging answer and ask the model a second time.
      await waitFor(() => model.requests.length >= 1, 20_000, 'the question at the model');
      await crash.kill();
      expect(await pending).toBeNull(); // the client never got an answer
      return { token, chatbotId, threadId };
    }

    const messagesOf = async (a: TestApp, token: string, chatbotId: string, threadId: string) =>
      (await a.call('GET', `/api/v2/chatbots/${chatbotId}/conversations/${threadId}/messages`, token)).body.data
        .messages as { id: string; author: string; text: string }[];

    test('a message stored before a kill -9 is answered once after restart, even with two instances sweeping', async () => {
      const { token, chatbotId, threadId } = await crashMidAnswer();
      // The kill left the visitor message without its answer, and the answer owed.
      const before = await withDatabase((db) =>
        db.selectFrom('messages').select(['id', 'author']).where('conversation_id', '=', threadId).execute(),
      );
      expect(before.map((m) => m.author)).toEqual(['visitor']);
      expect(await withDatabase((db) => db.selectFrom('answers_owed').select('message_id').execute())).toEqual([
        { message_id: before[0].id },
      ]);

      // Two instances start on the same database and race for the owed answer.
      const [one, two] = await Promise.all([app({ ANSWER_LEASE_MS: '300' }), app({ ANSWER_LEASE_MS: '300' })]);
      await waitFor(
        async () => (await messagesOf(one, token, chatbotId, threadId)).length === 2,
        20_000,
        'the owed answer',
      );
      await Promise.all([
        one.app.services.conversations.answering.answerOwed(),
        two.app.services.conversations.answering.answerOwed(),
      ]);
      await new Promise((r) => setTimeout(r, 700)); // a few more sweeps of both
      const after = await messagesOf(two, token, chatbotId, threadId);
      expect(after.map((m) => m.author)).toEqual(['visitor', 'ai']);
      expect(after[1].text).toMatch(/I don't have information|Sorry|assistant/i);
      expect(after[0].id).toBe(before[0].id);
      // The stored answer is the only one: nothing is owed any more.
      expect(await one.database.db.selectFrom('answers_owed').selectAll().execute()).toEqual([]);
    });

    test('an answer that keeps failing ends in the localised unavailable reply, once', async () => {
      const { token, chatbotId, threadId } = await crashMidAnswer('de');
      // Two more processes died on this answer already.
      await withDatabase((db) => db.updateTable('answers_owed').set({ attempts: 3 }).execute());
      const asked = model.requests.length;

      const next = await app({ ANSWER_LEASE_MS: '300' });
      await waitFor(
        async () => (await messagesOf(next, token, chatbotId, threadId)).length === 2,
        20_000,
        'the unavailable reply',
      );
      const after = await messagesOf(next, token, chatbotId, threadId);
      expect(after[1]).toMatchObject({ author: 'ai', text: messagesFor('de').unavailable });
      expect(model.requests.length).toBe(asked); // the model was not asked again
      await new Promise((r) => setTimeout(r, 700));
      expect((await messagesOf(next, token, chatbotId, threadId)).length).toBe(2);
    });

    test('a question the team took over after the kill is not answered by the AI after the hand-back', async () => {
      const { token, chatbotId, threadId } = await crashMidAnswer();
      // The dead process's lease still runs while the team acts (30 s by default).
      await withDatabase((db) =>
        db
          .updateTable('answers_owed')
          .set({ lease_until: new Date(Date.now() + 600_000).toISOString() })
          .execute(),
      );
      const next = await app({ ANSWER_LEASE_MS: '300' });
      const base = `/api/v2/chatbots/${chatbotId}/conversations/${threadId}`;
      expect((await next.call('POST', `${base}/take-over`, token)).status).toBe(200);
      expect((await next.call('POST', `${base}/replies`, token, { message: 'Your parcel left today.' })).status).toBe(
        201,
      );
      expect((await next.call('POST', `${base}/switch-to-ai`, token)).status).toBe(200);
      // The lease runs out: nothing is owed any more, so nothing is answered late.
      await next.database.db
        .updateTable('answers_owed')
        .set({ lease_until: new Date(Date.now() - 1000).toISOString() })
        .execute();
      expect(await next.app.services.conversations.answering.answerOwed()).toBe(0);
      expect((await messagesOf(next, token, chatbotId, threadId)).map((m) => m.author)).toEqual(['visitor', 'agent']);
    });
  },
  { timeout: 60_000 },
); // a child process and four app starts per test: slow under load, not stuck
