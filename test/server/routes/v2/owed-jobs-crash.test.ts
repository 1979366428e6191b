/**
 * What belongs together is written together, so no kill leaves half of it: an ingest job's rows
 * and its queue entry, a lead and its owner's notice, a gap answer posted to an away visitor and
 * its e-mail, a visitor's first message and the conversation it opens, an ingest item and its
 * count, a scheduled sync and the clearing of its due time. The state a kill between two such
 * writes would leave is made deterministically: the second write fails (its table away, or a
 * trigger refusing it) while the first would commit, then the app restarts on the same database
 * with the table back. Also: a failed request holds nothing back (an e-mail code never sent does
 * not make the retry wait). On SQLite and on PostgreSQL; in CI an unreachable PostgreSQL fails
 * the file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { recordGap } from '../../../../server/domain/resources/knowledge-gaps.js';
import { afterEach, beforeEach, expect, test } from 'vitest';
import type { TestApp } from '../../../helpers/app.js';
import { freePort } from '../../../helpers/child-server.js';
import { crashFixture } from '../../../helpers/crash-fixture.js';
import { waitFor } from '../../../helpers/knowledge-http.js';
import { describeOnDialects } from '../../../helpers/dialects.js';
import { serveSite, type TestSite } from '../../../helpers/site.js';

describeOnDialects(
  'on %s',
  (dialect) => {
    let site: TestSite;
    beforeEach(async () => {
      site = await serveSite({
        '/': '<html><head><title>Returns</title></head><body><h1>Returns</h1><p>Refunds are paid within 5 business days.</p></body></html>',
      });
    });
    afterEach(async () => {
      await site.close();
    });
    const crash = crashFixture(dialect, 'parley-owed-jobs-');
    const env = { ALLOW_PRIVATE_FETCH: '127.0.0.0/8', QUEUE_POLL_MS: '20' };

    /** Runs `fn` while the queue's table is away: the queue's insert fails, the rest works. */
    async function withoutQueue<T>(a: TestApp, fn: () => Promise<T>): Promise<T> {
      const rename = (from: string, to: string) =>
        sql`alter table ${sql.table(from)} rename to ${sql.table(to)}`.execute(a.database.db);
      await rename('jobs', 'jobs_away');
      try {
        return await fn();
      } finally {
        await rename('jobs_away', 'jobs');
      }
    }

    test('an ingest job whose queue entry was never written leaves nothing behind: after restart the site is added and crawled', async () => {
      const first = await crash.app(env);
      const token = (await first.token()).token;
      const base = `/api/v2/chatbots/${(await first.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot.id}`;
      const failed = await withoutQueue(first, () =>
        first.call('POST', `${base}/knowledge/website`, token, { url: `${site.url}/` }),
      );
      expect(failed.status).toBe(500);
      await crash.closeApp(first);

      const next = await crash.app(env);
      // The refused add left no job waiting for a queue entry that does not exist.
      expect((await next.call('GET', `${base}/ingest-jobs`, token)).body.data.jobs).toEqual([]);
      const added = await next.call('POST', `${base}/knowledge/website`, token, { url: `${site.url}/` });
      expect(added.status).toBe(202);
      await next.app.services.queue.drain(20_000);
      const job = (await next.call('GET', `${base}/ingest-jobs/${added.body.data.job.id}`, token)).body.data.job;
      expect(job).toMatchObject({ status: 'succeeded', counts: { done: 1, failed: 0 } });
      const sources = (await next.call('GET', `${base}/knowledge/sources`, token)).body.data.sources;
      expect(sources.map((s: { status: string; documentCount: number }) => [s.status, s.documentCount])).toEqual([
        ['ready', 1],
      ]);
    });

    test('an item and its count are written together: a crawl stopped between them counts every page after restart', async () => {
      const first = await crash.app(env);
      const token = (await first.token()).token;
      const base = `/api/v2/chatbots/${(await first.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot.id}`;
      // Counting a page done fails (a trigger): the state of a kill after the page's row, before its count.
      const refuse =
        dialect === 'sqlite'
          ? [
              sql`create trigger refuse_done before update of done on ingest_jobs when new.done > old.done begin select raise(abort, 'refused'); end`,
            ]
          : [
              sql`create function refuse_done() returns trigger language plpgsql as $$ begin if new.done > old.done then raise exception 'refused'; end if; return new; end $$`,
              sql`create trigger refuse_done before update on ingest_jobs for each row execute function refuse_done()`,
            ];
      for (const statement of refuse) await statement.execute(first.database.db);
      const added = await first.call('POST', `${base}/knowledge/website`, token, { url: `${site.url}/` });
      expect(added.status).toBe(202);
      const attempt = () =>
        first.database.db.selectFrom('jobs').select(['status', 'last_error']).executeTakeFirstOrThrow();
      await waitFor(async () => (await attempt()).last_error !== null, 20_000, 'the first attempt failed');
      await sql`drop trigger refuse_done ${dialect === 'postgres' ? sql`on ingest_jobs` : sql``}`.execute(
        first.database.db,
      );
      await crash.closeApp(first);

      const next = await crash.app(env);
      await next.app.services.queue.drain(20_000);
      const job = (await next.call('GET', `${base}/ingest-jobs/${added.body.data.job.id}`, token)).body.data.job;
      expect(job).toMatchObject({ status: 'succeeded', counts: { found: 1, done: 1, failed: 0 } });
    });

    test('a scheduled sync that could not start stays due: after restart the next look starts it', async () => {
      const first = await crash.app(env);
      const token = (await first.token()).token;
      const base = `/api/v2/chatbots/${(await first.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot.id}`;
      expect(
        (await first.call('POST', `${base}/knowledge/website`, token, { url: `${site.url}/`, syncIntervalMinutes: 60 }))
          .status,
      ).toBe(202);
      await first.app.services.queue.drain(20_000);
      await first.database.db
        .updateTable('sources')
        .set({ next_sync_at: new Date(Date.now() - 1000).toISOString() })
        .execute();
      await expect(withoutQueue(first, () => first.app.services.knowledge.syncDue())).rejects.toThrow(/jobs/);
      await crash.closeApp(first);

      const next = await crash.app(env);
      expect(await next.app.services.knowledge.syncDue()).toBe(1);
      await next.app.services.queue.drain(20_000);
      const jobs = (await next.call('GET', `${base}/ingest-jobs`, token)).body.data.jobs as {
        trigger: string;
        status: string;
      }[];
      expect(jobs.map((j) => [j.trigger, j.status])).toEqual([
        ['schedule', 'succeeded'],
        ['add', 'succeeded'],
      ]);
      const [source] = (await next.call('GET', `${base}/knowledge/sources`, token)).body.data.sources;
      expect(Date.parse(source.nextSyncAt)).toBeGreaterThan(Date.now());
    });

    test('a lead stored is a lead notified: a notice that cannot be queued refuses the lead; after restart each lead gets its one mail', async () => {
      const first = await crash.app(env);
      const token = (await first.token()).token;
      const chatbotId = (await first.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot
        .id as string;
      const base = `/api/v2/chatbots/${chatbotId}`;
      const threadId = (await first.call('POST', `${base}/conversations`, token, {})).body.data.conversation
        .threadId as string;
      const session = (await first.call('POST', `/api/widget/${chatbotId}/session`, null, {})).body.data
        .token as string;
      // Both ways a lead is captured: details with a message (the conversation's change) and the widget's form.
      const viaMessage = () =>
        first.call('POST', `${base}/conversations/${threadId}/messages`, token, {
          message: 'Call me',
          visitor: { email: 'ann@example.com' },
        });
      const viaForm = (a: TestApp) =>
        a.call(
          'POST',
          '/api/widget/frames',
          null,
          { type: 'lead.submit', email: 'bob@example.com' },
          { authorization: `Bearer ${session}` },
        );
      expect((await withoutQueue(first, viaMessage)).status).toBe(500);
      expect((await withoutQueue(first, () => viaForm(first))).body.data.frames).toMatchObject([
        { type: 'error', code: 'INTERNAL_SERVER_ERROR' },
      ]);
      await crash.closeApp(first);

      const next = await crash.app(env);
      expect((await next.call('GET', `${base}/leads`, token)).body.data.leads).toEqual([]);
      expect(
        (
          await next.call('POST', `${base}/conversations/${threadId}/messages`, token, {
            message: 'Call me',
            visitor: { email: 'ann@example.com' },
          })
        ).status,
      ).toBe(201);
      expect((await viaForm(next)).body.data.frames).toMatchObject([{ type: 'lead.saved' }]);
      await next.app.services.queue.drain(20_000);
      const leads = (await next.call('GET', `${base}/leads`, token)).body.data.leads as { email: string }[];
      expect(leads.map((l) => l.email).sort()).toEqual(['ann@example.com', 'bob@example.com']);
      const mailDir = join(crash.dataDir, 'mail');
      expect(existsSync(mailDir) ? readdirSync(mailDir).filter((f) => f.endsWith('.eml')).length : 0).toBe(
        leads.length,
      );
    });

    test('a gap answer posted to an away visitor is mailed: a mail that cannot be queued does not post it; answered again after restart, it is posted and mailed once', async () => {
      const first = await crash.app(env);
      const token = (await first.token()).token;
      const chatbotId = (await first.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot
        .id as string;
      const base = `/api/v2/chatbots/${chatbotId}`;
      const conversation = (await first.call('POST', `${base}/conversations`, token, { visitor: { name: 'Kim' } })).body
        .data.conversation;
      await first.app.services.visitors.accounts.bindVerified(
        chatbotId,
        'kim@example.com',
        {},
        conversation.chatUserId,
      );
      const gap = await recordGap(first.app.services.store, {
        chatbotId,
        conversationId: conversation.threadId,
        messageId: null,
        question: 'Do you ship to Norway?',
      });
      const answer = (a: TestApp) =>
        a.call('POST', `${base}/knowledge-gaps/${gap.id}/answer`, token, { answer: 'Yes, in 3 days.' });
      expect((await withoutQueue(first, () => answer(first))).status).toBe(200); // the gap's answer is kept; its post is refused whole
      await crash.closeApp(first);

      const next = await crash.app(env);
      expect((await answer(next)).status).toBe(200);
      await next.app.services.queue.drain(20_000);
      const messages = (await next.call('GET', `${base}/conversations/${conversation.threadId}/messages`, token)).body
        .data.messages as { text: string }[];
      expect(messages.filter((m) => m.text === 'Yes, in 3 days.')).toHaveLength(1);
      const mailDir = join(crash.dataDir, 'mail');
      const mails = existsSync(mailDir)
        ? readdirSync(mailDir)
            .filter((f) => f.endsWith('.eml'))
            .map((f) => readFileSync(join(mailDir, f), 'utf8'))
        : [];
      expect(mails.filter((m) => /^To: kim@example\.com/m.test(m))).toHaveLength(1);
    });

    test("a visitor's first message and the conversation it opens are stored together: one that fails leaves no empty conversation; resent after restart, one conversation", async () => {
      const first = await crash.app(env);
      const token = (await first.token()).token;
      const chatbotId = (await first.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot
        .id as string;
      const session = (await first.call('POST', `/api/widget/${chatbotId}/session`, null, {})).body.data
        .token as string;
      const frame = (a: TestApp, f: Record<string, unknown>) =>
        a.call('POST', '/api/widget/frames', null, f, { authorization: `Bearer ${session}` });
      const send = { type: 'message.send', clientId: 'first', text: 'Do you ship to Norway?' };
      // The conversation events are away: the change fails after the conversation's row was written in
      // its transaction, before its message (the state of a kill between the two).
      const rename = (from: string, to: string) =>
        sql`alter table ${sql.table(from)} rename to ${sql.table(to)}`.execute(first.database.db);
      await rename('conversation_events', 'conversation_events_away');
      try {
        expect((await frame(first, send)).body.data.frames).toMatchObject([
          { type: 'error', code: 'INTERNAL_SERVER_ERROR' },
        ]);
      } finally {
        await rename('conversation_events_away', 'conversation_events');
      }
      await crash.closeApp(first);

      const next = await crash.app(env);
      expect((await frame(next, send)).body.data.frames).toMatchObject([{ type: 'ack', clientId: 'first' }]);
      const list = (await frame(next, { type: 'conversations.list' })).body.data.frames[0];
      expect(list.items.map((c: { lastMessage: string | null }) => c.lastMessage)).toEqual([expect.any(String)]);
      expect(
        (await next.call('GET', `/api/v2/chatbots/${chatbotId}/conversations`, token)).body.data.conversations,
      ).toHaveLength(1);
    });

    test('a code the mail server did not take holds nothing back: the visitor may ask again at once', async () => {
      // Nothing listens on the mail server's port: every send fails.
      const first = await crash.app({ ...env, SMTP_URL: `smtp://127.0.0.1:${await freePort()}` });
      const chatbotId = (await first.call('POST', '/api/v2/chatbots', (await first.token()).token, { title: 'Shop' }))
        .body.data.chatbot.id as string;
      const session = (await first.call('POST', `/api/widget/${chatbotId}/session`, null, {})).body.data
        .token as string;
      const ask = () =>
        first.call(
          'POST',
          '/api/widget/frames',
          null,
          { type: 'otp.request', email: 'kim@example.com' },
          { authorization: `Bearer ${session}` },
        );
      expect((await ask()).body.data.frames).toMatchObject([{ type: 'error', code: 'UPSTREAM_UNAVAILABLE' }]);
      // Not RATE_LIMITED for the resend wait of a code that was never sent.
      expect((await ask()).body.data.frames).toMatchObject([{ type: 'error', code: 'UPSTREAM_UNAVAILABLE' }]);
    });
  },
  { timeout: 60_000 },
);
