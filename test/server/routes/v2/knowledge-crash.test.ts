/**
 * An ingest job always ends: a real server process (`server/main.ts` in a child) is killed with
 * SIGKILL while it crawls a page that never answers. With that the job's last attempt (as if
 * every earlier process had died on it too), the next app gives it up with a clear error and its
 * source shows the error, instead of running it again (a job that kills its process would loop
 * for ever) or leaving it "running". A last attempt that fails (storage away) ends the same way.
 * On SQLite and on PostgreSQL; in CI an unreachable PostgreSQL fails the file.
 */
import { sql } from 'kysely';
import { afterEach, beforeEach, expect, test } from 'vitest';
import type { TestApp } from '../../../helpers/app.js';
import { crashFixture } from '../../../helpers/crash-fixture.js';
import { waitFor } from '../../../helpers/knowledge-http.js';
import { describeOnDialects } from '../../../helpers/dialects.js';
import { serveSite, type TestSite } from '../../../helpers/site.js';

describeOnDialects(
  'on %s',
  (dialect) => {
    let site: TestSite;
    beforeEach(async () => {
      // The page never answers: the crawl is in flight when the process is killed.
      site = await serveSite({ '/': () => undefined });
    });
    afterEach(async () => {
      await site.close();
    });
    const crash = crashFixture(dialect, 'parley-knowledge-crash-');
    const env = { ALLOW_PRIVATE_FETCH: '127.0.0.0/8', QUEUE_POLL_MS: '20', QUEUE_LEASE_MS: '300' };

    /** A crawl killed mid-page, its queue row left with `attemptsLeft` attempts. */
    async function killedCrawl(attemptsLeft: number) {
      const setup = await crash.app(env);
      const token = (await setup.token()).token;
      const base = `/api/v2/chatbots/${(await setup.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot.id}`;
      await crash.closeApp(setup);
      const { url } = await crash.spawn(env);
      const added = await fetch(`${url}${base}/knowledge/website`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${site.url}/` }),
      });
      expect(added.status).toBe(202);
      const jobId = (await added.json()).data.job.id as string;
      // `>= 1`: under load the child's own short lease may lapse and a second worker ask again.
      await waitFor(() => (site.hits.get('/') ?? 0) >= 1, 20_000, 'the page asked for');
      await crash.kill();
      const asked = site.hits.get('/') ?? 0;
      await crash.withDatabase((db) =>
        db
          .updateTable('jobs')
          .set((eb) => ({ attempts: sql`${eb.ref('max_attempts')} - ${attemptsLeft}` }))
          .execute(),
      );
      return { token, base, jobId, asked };
    }

    const jobOf = async (a: TestApp, token: string, base: string, jobId: string) =>
      (await a.call('GET', `${base}/ingest-jobs/${jobId}`, token)).body.data.job;

    test('a job whose every attempt died is given up with a clear error, not run again', async () => {
      const { token, base, jobId, asked } = await killedCrawl(0);
      const next = await crash.app(env);
      await waitFor(
        async () => (await jobOf(next, token, base, jobId)).status === 'failed',
        10_000,
        'the job given up',
      );
      expect((await jobOf(next, token, base, jobId)).error).toMatch(
        /The job stopped: the process running it stopped \(killed or crashed\) during each of its 5 attempts/,
      );
      const [source] = (await next.call('GET', `${base}/knowledge/sources`, token)).body.data.sources;
      expect(source).toMatchObject({ status: 'error' });
      expect(site.hits.get('/')).toBe(asked); // not fetched again
      // The source is not held: a re-sync starts a new job.
      const again = await next.call('POST', `${base}/knowledge/sources/${source.id}/sync`, token);
      expect(again.body.data.job.id).not.toBe(jobId);
    });

    test('a last attempt that fails ends the job failed, its source in error', async () => {
      const { token, base, jobId } = await killedCrawl(1);
      // The items' table is away from before the next app starts: its run fails at once.
      const rename = (db: TestApp['database']['db'], from: string, to: string) =>
        sql`alter table ${sql.table(from)} rename to ${sql.table(to)}`.execute(db);
      await crash.withDatabase((db) => rename(db, 'ingest_items', 'ingest_items_away'));
      const next = await crash.app(env);
      try {
        const status = async () =>
          (
            await next.database.db
              .selectFrom('ingest_jobs')
              .select('status')
              .where('id', '=', jobId)
              .executeTakeFirstOrThrow()
          ).status;
        await waitFor(async () => (await status()) === 'failed', 10_000, 'the job failed');
      } finally {
        await rename(next.database.db, 'ingest_items_away', 'ingest_items');
      }
      expect((await jobOf(next, token, base, jobId)).error).toMatch(/^The job stopped: .*ingest_items/);
      const [source] = (await next.call('GET', `${base}/knowledge/sources`, token)).body.data.sources;
      expect(source).toMatchObject({ status: 'error' });
    });
  },
  { timeout: 60_000 },
);
