/**
 * What an operator reads in the log while ingest jobs run (issue 9): each job's start, its counts
 * while it runs (a page that takes longer than the progress interval), its end with counts and
 * duration, and a job refused for an internal address naming ALLOW_PRIVATE_FETCH.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { knowledgeApp, para, type KnowledgeApp } from '../../../helpers/knowledge-http.js';
import { page, serveSite, type TestSite } from '../../../helpers/site.js';

type Line = { level: number; msg: string; [k: string]: unknown };
const opened: { k: KnowledgeApp; site: TestSite }[] = [];

async function setUp(env: Record<string, string>, routes: Parameters<typeof serveSite>[0]) {
  const lines: Line[] = [];
  const site = await serveSite(routes);
  const k = await knowledgeApp({
    env: { LOG_LEVEL: 'info', ...env },
    logStream: { write: (l) => void lines.push(JSON.parse(l)) },
  });
  opened.push({ k, site });
  return { k, site, lines };
}

afterAll(async () => {
  for (const { k, site } of opened) {
    await k.t.close();
    await site.close();
  }
});

describe('ingest job log lines', { timeout: 60_000 }, () => {
  test('start, progress while a slow page is fetched, end with counts and duration', async () => {
    const { k, site, lines } = await setUp(
      { ALLOW_PRIVATE_FETCH: '1' },
      {
        '/': page('Home', para('the home page'), ['/slow']),
        // Longer than the 5 s progress interval, so the running job reports its counts once.
        '/slow': (_req, res) =>
          void setTimeout(
            () => res.writeHead(200, { 'content-type': 'text/html' }).end(page('Slow', para('a slow page'))),
            6_000,
          ),
      },
    );
    const added = await k.t.call('POST', `${k.base}/knowledge/website`, k.token, { url: `${site.url}/` });
    const jobId = added.body.data.job.id;
    await k.settle(40_000);
    const mine = lines.filter((l) => l.jobId === jobId);
    expect(mine[0]).toMatchObject({
      level: 30,
      msg: `ingest job started: website ${site.url.replace('http://', '')}`,
      source: 'website',
      trigger: 'add',
    });
    // Logged while /slow is still being fetched: the home page done, the slow one not yet.
    expect(mine).toContainEqual(
      expect.objectContaining({
        level: 30,
        msg: 'ingest job progress: 1 of 2 items (0 failed)',
        found: 2,
        done: 1,
        failed: 0,
      }),
    );
    expect(mine.at(-1)).toMatchObject({
      level: 30,
      msg: expect.stringMatching(/^ingest job succeeded: 2 indexed, 0 failed, 0 skipped of 2 in \d+\.\d s$/),
      status: 'succeeded',
      found: 2,
      done: 2,
      durationMs: expect.any(Number),
    });
  });

  test('a job refused for an internal address is a warning that names the page and ALLOW_PRIVATE_FETCH', async () => {
    const { k, site, lines } = await setUp({}, { '/': page('Home', para('the home page')) });
    const added = await k.t.call('POST', `${k.base}/knowledge/website`, k.token, { url: `${site.url}/` });
    const jobId = added.body.data.job.id;
    await k.settle();
    const end = lines.filter((l) => l.jobId === jobId).at(-1)!;
    expect(end).toMatchObject({ level: 40, status: 'failed', failed: 1 });
    expect(end.error).toContain(`${site.url}/ was not fetched`);
    expect(end.msg).toContain('ALLOW_PRIVATE_FETCH');
    expect(site.hits.size).toBe(0);
  });
});
