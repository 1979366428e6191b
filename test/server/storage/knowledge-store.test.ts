/**
 * The KnowledgeStore suite, run unchanged on SQLite and PostgreSQL through the Store port:
 * sources, documents, chunks and their lexical index, ingest jobs and items, the vector index
 * (blobs: blob-store.test.ts). In CI (CI=true) an unreachable PostgreSQL fails the file instead of skipping it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newId } from '../../../server/domain/ids.js';
import type { IngestJobRecord, VectorIndexPort } from '../../../server/domain/knowledge/ports.js';
import type { Page, Store } from '../../../server/domain/ports.js';
import { searchTerms } from '../../../server/storage/search-terms.js';
import {
  addDocument,
  at,
  chunkInputs,
  documentRecord,
  HOSTILE_QUERIES,
  newChatbot,
  sourceRecord,
} from '../../helpers/knowledge.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { describeOnDialects } from '../../helpers/dialects.js';

async function allPages<T>(fetch: (after: Page<T>['next']) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let after: Page<T>['next'] = null;
  for (let i = 0; i < 100; i++) {
    const page = await fetch(after);
    items.push(...page.items);
    if (!page.next) return items;
    after = page.next;
  }
  throw new Error('pagination did not end');
}

test('search terms: words only, stopwords and syntax dropped, deduplicated, bounded', () => {
  expect(searchTerms('How do I register a Plugin, plugin and PLUGINS?')).toEqual(['register', 'plugin', 'plugins']);
  expect(searchTerms('NEAR(a b) "x*" -y title:z ^w')).toEqual(['near', 'title']);
  expect(searchTerms('the of and to')).toEqual([]);
  expect(searchTerms('café 日本語 Ünï')).toEqual(['café', '日本語', 'ünï']);
  expect(searchTerms(Array.from({ length: 100 }, (_, i) => `w${i}`).join(' '))).toHaveLength(32);
});

describeOnDialects('KnowledgeStore on %s', (dialect) => {
  let kdb: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    kdb = await openTestDatabase(dialect);
    store = kdb.store;
  });
  afterAll(() => kdb?.close());

  test('sources: insert, read by id and key, list, update, due, delete', async () => {
    const bot = await newChatbot(store);
    const s = store.knowledge.sources;
    const website = sourceRecord(bot.chatbotId, bot.accountId, {
      type: 'website',
      key: 'https://example.com/',
      name: 'Example',
      config: { maxPages: 10, prefix: '/docs' },
      credentials: 'enc:secret',
      syncIntervalMinutes: 60,
      nextSyncAt: at(100),
      createdAt: at(1),
    });
    const text = sourceRecord(bot.chatbotId, bot.accountId, { type: 'text', createdAt: at(2) });
    await s.insert(website);
    await s.insert(text);
    expect(await s.get(website.id)).toEqual(website);
    expect(await s.byKey(bot.chatbotId, 'website', 'https://example.com/')).toEqual(website);
    expect(await s.byKey(bot.chatbotId, 'sitemap', 'https://example.com/')).toBeNull();
    expect((await s.list(bot.chatbotId)).map((x) => x.id)).toEqual([website.id, text.id]);
    // The dedupe key is unique within (chatbot, type).
    await expect(s.insert({ ...website, id: newId() })).rejects.toThrow();

    await s.update(website.id, { status: 'error', lastError: 'boom', config: { maxPages: 5 }, updatedAt: at(3) });
    expect(await s.get(website.id)).toMatchObject({
      status: 'error',
      lastError: 'boom',
      config: { maxPages: 5 },
      name: 'Example',
      updatedAt: at(3),
    });
    expect((await s.due(at(99))).filter((x) => x.chatbotId === bot.chatbotId)).toEqual([]);
    expect((await s.due(at(100))).filter((x) => x.chatbotId === bot.chatbotId).map((x) => x.id)).toEqual([website.id]);
    await s.delete(text.id);
    expect(await s.get(text.id)).toBeNull();
  });

  test('documents: keyset pages newest first with filters, counts, many, update', async () => {
    const bot = await newChatbot(store);
    const other = await newChatbot(store);
    const src1 = sourceRecord(bot.chatbotId, bot.accountId);
    const src2 = sourceRecord(bot.chatbotId, bot.accountId, { type: 'text' });
    await store.knowledge.sources.insert(src1);
    await store.knowledge.sources.insert(src2);
    const docs = [];
    for (let i = 0; i < 7; i++) {
      const d = documentRecord(bot.chatbotId, i % 2 ? src2.id : src1.id, {
        createdAt: at(Math.floor(i / 2)), // ties on createdAt are broken by id
        status: i === 3 ? 'failed' : 'indexed',
      });
      await store.knowledge.documents.insert(d);
      docs.push(d);
    }
    const otherSrc = sourceRecord(other.chatbotId, other.accountId);
    await store.knowledge.sources.insert(otherSrc);
    await store.knowledge.documents.insert(documentRecord(other.chatbotId, otherSrc.id));

    const d = store.knowledge.documents;
    const newest = [...docs].sort((a, b) =>
      a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
    );
    const all = await allPages((after) => d.page(bot.chatbotId, { limit: 3, after }, {}));
    expect(all.map((x) => x.id)).toEqual(newest.map((x) => x.id));
    const ofSrc2 = await allPages((after) => d.page(bot.chatbotId, { limit: 2, after }, { sourceId: src2.id }));
    expect(ofSrc2.map((x) => x.id)).toEqual(newest.filter((x) => x.sourceId === src2.id).map((x) => x.id));
    const failed = await d.page(bot.chatbotId, { limit: 50, after: null }, { status: 'failed' });
    expect(failed.items.map((x) => x.id)).toEqual([docs[3].id]);

    expect(await d.countBySource(bot.chatbotId)).toEqual(
      new Map([
        [src1.id, 4],
        [src2.id, 3],
      ]),
    );
    expect(await d.countIndexed(bot.accountId)).toBe(6);
    expect((await d.many(bot.chatbotId, [docs[0].id, docs[1].id, 'nope'])).map((x) => x.id).sort()).toEqual(
      [docs[0].id, docs[1].id].sort(),
    );
    // Another chatbot's document is not reachable through this chatbot.
    expect(await d.many(other.chatbotId, [docs[0].id])).toEqual([]);
    expect(await d.many(bot.chatbotId, [])).toEqual([]);

    expect(await d.byKey(bot.chatbotId, docs[2].key)).toEqual(docs[2]);
    await d.update(docs[2].id, {
      title: 'Renamed',
      contentHash: 'abc',
      chars: 42,
      status: 'pending',
      updatedAt: at(9),
    });
    expect(await d.byKey(bot.chatbotId, docs[2].key)).toMatchObject({
      title: 'Renamed',
      contentHash: 'abc',
      chars: 42,
      status: 'pending',
      updatedAt: at(9),
    });
    await expect(d.insert({ ...docs[0], id: newId() })).rejects.toThrow(); // (chatbot, key) is unique
  });

  test('chunks: replace returns ids in order, removes the old index entries, counts, byIds', async () => {
    const bot = await newChatbot(store);
    const { doc, chunkIds } = await addDocument(store, bot, 'Zebra handbook', [
      { heading: ['Care'], text: 'Zebras need fresh water every morning.' },
      { heading: ['Care', 'Food'], text: 'Feed zebras hay and grass.' },
    ]);
    expect(chunkIds).toHaveLength(2);
    expect(chunkIds[0]).toBeLessThan(chunkIds[1]);
    expect(await store.knowledge.chunks.count(bot.chatbotId)).toBe(2);
    expect((await store.knowledge.documents.byKey(bot.chatbotId, doc.key))?.chunkCount).toBe(2);
    expect((await store.knowledge.chunks.searchLexical(bot.chatbotId, 'hay', 5)).map((h) => h.chunkId)).toEqual([
      chunkIds[1],
    ]);

    const again = await store.knowledge.chunks.replace(
      doc.id,
      bot.chatbotId,
      chunkInputs('Zebra handbook', doc.url, [{ text: 'Zebras sleep standing up.' }]),
    );
    expect(again).toHaveLength(1);
    expect(chunkIds).not.toContain(again[0]);
    expect(await store.knowledge.chunks.count(bot.chatbotId)).toBe(1);
    expect((await store.knowledge.documents.byKey(bot.chatbotId, doc.key))?.chunkCount).toBe(1);
    // The old words left the index with the old rows.
    expect(await store.knowledge.chunks.searchLexical(bot.chatbotId, 'hay grass water', 5)).toEqual([]);
    expect(
      (await store.knowledge.chunks.searchLexical(bot.chatbotId, 'sleeping zebra', 5)).map((h) => h.chunkId),
    ).toEqual(again);

    const byIds = await store.knowledge.chunks.byIds([again[0], 999_999_999, again[0]]);
    expect(byIds.map((h) => h.chunkId)).toEqual(again);
    expect(byIds[0]).toMatchObject({
      documentId: doc.id,
      title: 'Zebra handbook',
      text: 'Zebras sleep standing up.',
      url: doc.url,
    });
    expect(await store.knowledge.chunks.byIds([])).toEqual([]);
    expect(await store.knowledge.chunks.replace(doc.id, bot.chatbotId, [])).toEqual([]);
    expect(await store.knowledge.chunks.count(bot.chatbotId)).toBe(0);
  });

  test('lexical search: ranked, scores descending, title and heading weigh more, locations round-trip', async () => {
    const bot = await newChatbot(store);
    await addDocument(store, bot, 'Gardening', [
      { text: 'Tomatoes like sun. Water them at the root, not the leaves.' },
    ]);
    const hooks = await addDocument(store, bot, 'Hooks', [
      {
        heading: ['Hooks', 'onRequest'],
        text: 'The onRequest hook runs first for every request, before parsing.',
        page: 3,
      },
      { heading: ['Hooks', 'preHandler'], text: 'preHandler runs right before the route handler.' },
    ]);
    const routes = await addDocument(store, bot, 'Routes', [
      { text: 'Declare a route with a method and a URL. A hook can be set per route too.' },
    ]);

    const hits = await store.knowledge.chunks.searchLexical(bot.chatbotId, 'Which hook runs before every request?', 10);
    expect(hits.length).toBeGreaterThanOrEqual(3);
    expect(hits[0].chunkId).toBe(hooks.chunkIds[0]);
    expect(hits.map((h) => h.chunkId)).toContain(routes.chunkIds[0]);
    expect(hits.map((h) => h.documentId)).not.toContain(undefined);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
    expect(hits.every((h) => h.score > 0)).toBe(true);
    // The title/heading match (Hooks) ranks above a body-only mention (Routes).
    expect(hits.findIndex((h) => h.documentId === hooks.doc.id)).toBeLessThan(
      hits.findIndex((h) => h.documentId === routes.doc.id),
    );

    expect(hits[0]).toEqual({
      chunkId: hooks.chunkIds[0],
      documentId: hooks.doc.id,
      title: 'Hooks',
      url: hooks.doc.url,
      headingPath: ['Hooks', 'onRequest'],
      text: 'The onRequest hook runs first for every request, before parsing.',
      location: hooks.chunks[0].location,
      score: hits[0].score,
    });
    expect(hits[0].location.page).toBe(3);
    // Stemming: "gardens"/"watering" find "Gardening"/"Water".
    expect((await store.knowledge.chunks.searchLexical(bot.chatbotId, 'watering gardens', 3))[0].title).toBe(
      'Gardening',
    );
    expect(await store.knowledge.chunks.searchLexical(bot.chatbotId, 'hook', 1)).toHaveLength(1);
    expect(await store.knowledge.chunks.searchLexical(bot.chatbotId, 'hook', 0)).toEqual([]);
  });

  test("chatbot isolation: another chatbot's chunks never appear", async () => {
    const mine = await newChatbot(store);
    const theirs = await newChatbot(store);
    await addDocument(store, mine, 'Mine', [{ text: 'shared secret phrase alpha' }]);
    const t = await addDocument(store, theirs, 'Theirs', [{ text: 'shared secret phrase alpha beta' }]);
    const hits = await store.knowledge.chunks.searchLexical(mine.chatbotId, 'shared secret phrase alpha beta', 50);
    expect(hits).toHaveLength(1);
    expect(hits[0].title).toBe('Mine');
    expect((await store.knowledge.chunks.searchLexical(theirs.chatbotId, 'alpha', 50)).map((h) => h.chunkId)).toEqual(
      t.chunkIds,
    );
    expect(await store.knowledge.chunks.count(mine.chatbotId)).toBe(1);
  });

  test('hostile query strings never break the query; stopwords alone find nothing', async () => {
    const bot = await newChatbot(store);
    await addDocument(store, bot, 'Plugins', [
      { text: 'A plugin can add a hook and a route. NEAR the title we say plugin often.' },
    ]);
    await addDocument(store, bot, 'Unicode', [{ text: 'Café naïve Ünïcödé 日本語のプラグイン 🙂 text.' }]);
    for (const q of HOSTILE_QUERIES) {
      const hits = await store.knowledge.chunks.searchLexical(bot.chatbotId, q, 5);
      expect(Array.isArray(hits), q.slice(0, 40)).toBe(true);
    }
    expect(await store.knowledge.chunks.searchLexical(bot.chatbotId, '', 5)).toEqual([]);
    expect(await store.knowledge.chunks.searchLexical(bot.chatbotId, 'the of and to a in is', 5)).toEqual([]);
    expect(await store.knowledge.chunks.searchLexical(bot.chatbotId, '*', 5)).toEqual([]);
    expect((await store.knowledge.chunks.searchLexical(bot.chatbotId, '(plugin OR', 5)).length).toBe(1);
    expect((await store.knowledge.chunks.searchLexical(bot.chatbotId, '-plugin', 5)).length).toBe(1);
    expect((await store.knowledge.chunks.searchLexical(bot.chatbotId, 'title:plugin', 5)).length).toBe(1);
    expect((await store.knowledge.chunks.searchLexical(bot.chatbotId, 'cafe', 5)).length).toBe(
      dialect === 'sqlite' ? 1 : 0,
    );
    expect((await store.knowledge.chunks.searchLexical(bot.chatbotId, 'café', 5)).length).toBe(1);
  });

  test('document delete cascades its chunks out of the index', async () => {
    const bot = await newChatbot(store);
    const a = await addDocument(store, bot, 'Kept', [{ text: 'giraffes are tall' }]);
    const b = await addDocument(store, bot, 'Removed', [{ text: 'giraffes eat leaves' }, { text: 'more giraffes' }]);
    expect(await store.knowledge.chunks.searchLexical(bot.chatbotId, 'giraffes', 10)).toHaveLength(3);
    await store.knowledge.documents.delete([b.doc.id]);
    const hits = await store.knowledge.chunks.searchLexical(bot.chatbotId, 'giraffes leaves', 10);
    expect(hits.map((h) => h.chunkId)).toEqual(a.chunkIds);
    expect(await store.knowledge.chunks.byIds(b.chunkIds)).toEqual([]);
    expect(await store.knowledge.chunks.count(bot.chatbotId)).toBe(1);
    // A whole chatbot going takes its knowledge along.
    await store.chatbots.delete(bot.chatbotId);
    expect(await store.knowledge.chunks.count(bot.chatbotId)).toBe(0);
    expect(await store.knowledge.chunks.byIds(a.chunkIds)).toEqual([]);
  });

  test('a transaction holds knowledge writes too: a throw rolls back chunks and their index', async () => {
    const bot = await newChatbot(store);
    const { doc } = await addDocument(store, bot, 'Original', [{ text: 'lions roar loudly' }]);
    await expect(
      store.transaction(async (trx) => {
        await trx.knowledge.chunks.replace(
          doc.id,
          bot.chatbotId,
          chunkInputs('New', doc.url, [{ text: 'tigers purr quietly' }]),
        );
        await trx.knowledge.documents.update(doc.id, { title: 'New' });
        expect(await trx.knowledge.chunks.searchLexical(bot.chatbotId, 'tigers', 5)).toHaveLength(1);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await store.knowledge.chunks.searchLexical(bot.chatbotId, 'tigers', 5)).toEqual([]);
    expect(await store.knowledge.chunks.searchLexical(bot.chatbotId, 'lions', 5)).toHaveLength(1);
    expect((await store.knowledge.documents.byKey(bot.chatbotId, doc.key))?.title).toBe('Original');
  });

  test('ingest jobs: insert, page newest first, update, atomic counters, active job of a source', async () => {
    const bot = await newChatbot(store);
    const src = sourceRecord(bot.chatbotId, bot.accountId, { type: 'website', key: 'https://x.test/' });
    await store.knowledge.sources.insert(src);
    const job = (n: number, over: Partial<IngestJobRecord> = {}): IngestJobRecord => ({
      id: newId(),
      chatbotId: bot.chatbotId,
      sourceId: src.id,
      trigger: 'add',
      status: 'succeeded',
      found: 0,
      done: 0,
      failed: 0,
      skipped: 0,
      options: { maxPages: n },
      error: null,
      cancelRequested: false,
      createdAt: at(n),
      startedAt: null,
      finishedAt: null,
      ...over,
    });
    const i = store.knowledge.ingest;
    const jobs = [job(1), job(2), job(3, { status: 'running' }), job(3)];
    for (const j of jobs) await i.insertJob(j);
    expect(await i.getJob(jobs[0].id)).toEqual(jobs[0]);
    expect(await i.getJob('missing')).toBeNull();
    const paged = await allPages((after) => i.pageJobs(bot.chatbotId, { limit: 2, after }));
    const tie = [jobs[2], jobs[3]].sort((a, b) => (a.id < b.id ? 1 : -1));
    expect(paged.map((j) => j.id)).toEqual([...tie, jobs[1], jobs[0]].map((j) => j.id));
    expect((await i.activeForSource(src.id))?.id).toBe(jobs[2].id);

    await i.updateJob(jobs[2].id, { status: 'cancelled', cancelRequested: true, finishedAt: at(10), error: 'stopped' });
    expect(await i.getJob(jobs[2].id)).toMatchObject({
      status: 'cancelled',
      cancelRequested: true,
      finishedAt: at(10),
      error: 'stopped',
    });
    expect(await i.activeForSource(src.id)).toBeNull();

    // Many concurrent increments: none is lost.
    await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        i.addCounts(jobs[0].id, { found: 2, done: 1, ...(n % 4 === 0 ? { failed: 1 } : {}) }),
      ),
    );
    await i.addCounts(jobs[0].id, { skipped: 3, done: 0 });
    await i.addCounts(jobs[0].id, {});
    expect(await i.getJob(jobs[0].id)).toMatchObject({ found: 80, done: 40, failed: 10, skipped: 3 });
  });

  test('ingest items: duplicates ignored, increasing seq, pending order, statuses, requeue, errors', async () => {
    const bot = await newChatbot(store);
    const src = sourceRecord(bot.chatbotId, bot.accountId);
    await store.knowledge.sources.insert(src);
    const jobId = newId();
    const i = store.knowledge.ingest;
    await i.insertJob({
      id: jobId,
      chatbotId: bot.chatbotId,
      sourceId: src.id,
      trigger: 'add',
      status: 'running',
      found: 0,
      done: 0,
      failed: 0,
      skipped: 0,
      options: {},
      error: null,
      cancelRequested: false,
      createdAt: at(0),
      startedAt: at(0),
      finishedAt: null,
    });
    expect(
      await i.addItems(jobId, [
        { key: 'https://x.test/a', depth: 0 },
        { key: 'https://x.test/b', depth: 1, payload: { url: 'https://x.test/b?utm=1' } },
        { key: 'https://x.test/a', depth: 0 },
      ]),
    ).toBe(2);
    expect(
      await i.addItems(jobId, [
        { key: 'https://x.test/b', depth: 0 },
        { key: 'https://x.test/c', depth: 2, blobId: 'blob1' },
      ]),
    ).toBe(1);
    expect(await i.addItems(jobId, [])).toBe(0);
    // Concurrent adders: every key once, seq strictly increasing.
    const counts = await Promise.all(
      Array.from({ length: 5 }, (_, n) =>
        i.addItems(jobId, [
          { key: `k${n}`, depth: 0 },
          { key: 'k0', depth: 0 },
        ]),
      ),
    );
    expect(counts.reduce((a, b) => a + b, 0)).toBe(5);
    const many = Array.from({ length: 1200 }, (_, n) => ({ key: `bulk/${n}`, depth: 3 }));
    expect(await i.addItems(jobId, many)).toBe(1200);

    const pending = await i.pending(jobId, 5000);
    expect(pending).toHaveLength(1208);
    expect(pending.slice(0, 3)).toEqual([
      { jobId, key: 'https://x.test/a', seq: 1, depth: 0, status: 'pending', payload: null, blobId: null, error: null },
      {
        jobId,
        key: 'https://x.test/b',
        seq: 2,
        depth: 1,
        status: 'pending',
        payload: { url: 'https://x.test/b?utm=1' },
        blobId: null,
        error: null,
      },
      {
        jobId,
        key: 'https://x.test/c',
        seq: 3,
        depth: 2,
        status: 'pending',
        payload: null,
        blobId: 'blob1',
        error: null,
      },
    ]);
    const seqs = pending.map((p) => p.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(pending.at(-1)?.key).toBe('bulk/1199');

    await i.setItem(jobId, 'https://x.test/a', 'running');
    await i.setItem(jobId, 'https://x.test/b', 'failed', 'HTTP 404');
    await i.setItem(jobId, 'https://x.test/c', 'done');
    expect(await i.pending(jobId, 5000)).toHaveLength(1205);
    expect((await i.pending(jobId, 1))[0].key).not.toMatch(/x\.test/);
    await i.requeueRunning(jobId);
    expect((await i.pending(jobId, 1))[0].key).toBe('https://x.test/a');
    expect(await i.errors(jobId, 10)).toEqual([{ url: 'https://x.test/b?utm=1', error: 'HTTP 404' }]);
    await i.setItem(jobId, 'https://x.test/b', 'pending');
    expect(await i.errors(jobId, 10)).toEqual([]);
    // An item ends once: a second runner of the job (its lease lost) finds it ended and counts nothing.
    expect(await i.finishItem(jobId, 'https://x.test/a', 'done', null)).toBe(true);
    expect(await i.finishItem(jobId, 'https://x.test/a', 'done', null)).toBe(false);
    expect(await i.finishItem(jobId, 'https://x.test/a', 'failed', 'late')).toBe(false);
    expect(await i.errors(jobId, 10)).toEqual([]);
  });

  describe('vector index', () => {
    let vectors: VectorIndexPort;
    const dims = 4;
    beforeAll(() => {
      vectors = store.vectors({ model: 'test-model', dimensions: dims });
    });

    test('nearest by cosine within a chatbot; vectors follow replaced and deleted chunks', async () => {
      const bot = await newChatbot(store);
      const other = await newChatbot(store);
      const a = await addDocument(store, bot, 'A', [{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
      const o = await addDocument(store, other, 'O', [{ text: 'same' }]);
      await vectors.upsert(a.chunkIds, [
        [1, 0, 0, 0],
        [0.9, 0.1, 0, 0],
        [0, 0, 1, 0],
      ]);
      await vectors.upsert(o.chunkIds, [[1, 0, 0, 0]]);
      expect(await vectors.count(bot.chatbotId)).toBe(3);

      const near = await vectors.nearest(bot.chatbotId, [2, 0, 0, 0], 10);
      expect(near.map((n) => n.chunkId)).toEqual(a.chunkIds);
      expect(near[0].distance).toBeCloseTo(0, 5);
      expect(near[2].distance).toBeCloseTo(1, 5);
      expect(await vectors.nearest(bot.chatbotId, [1, 0, 0, 0], 1)).toHaveLength(1);
      // Another model's space is separate.
      const otherModel = store.vectors({ model: 'other-model', dimensions: dims });
      expect(await otherModel.nearest(bot.chatbotId, [1, 0, 0, 0], 5)).toEqual([]);

      // Upsert replaces.
      await vectors.upsert([a.chunkIds[2]], [[1, 0, 0, 0.01]]);
      expect((await vectors.nearest(bot.chatbotId, [1, 0, 0, 0], 1))[0].chunkId).not.toBe(a.chunkIds[1]);
      expect(await vectors.count(bot.chatbotId)).toBe(3);

      await vectors.delete([a.chunkIds[0]]);
      expect(await vectors.count(bot.chatbotId)).toBe(2);
      // Replacing the document's chunks drops the old vectors with the rows.
      await store.knowledge.chunks.replace(a.doc.id, bot.chatbotId, chunkInputs('A', null, [{ text: 'new' }]));
      expect(await vectors.count(bot.chatbotId)).toBe(0);
      expect(await vectors.nearest(bot.chatbotId, [1, 0, 0, 0], 5)).toEqual([]);
      // Deleting a document drops its vectors.
      await store.knowledge.documents.delete([o.doc.id]);
      expect(await vectors.count(other.chatbotId)).toBe(0);
    });

    test('refuses wrong dimensions, zero vectors and unknown chunks', async () => {
      const bot = await newChatbot(store);
      const a = await addDocument(store, bot, 'A', [{ text: 'one' }]);
      await expect(vectors.upsert(a.chunkIds, [[1, 0, 0]])).rejects.toThrow(/dimensions/);
      await expect(vectors.upsert(a.chunkIds, [[0, 0, 0, 0]])).rejects.toThrow(/zero vector/);
      await expect(vectors.upsert([987_654_321], [[1, 0, 0, 0]])).rejects.toThrow(/No chunk/);
      await expect(vectors.upsert(a.chunkIds, [])).rejects.toThrow();
      expect(await vectors.nearest(bot.chatbotId, [1, 0, 0, 0], 0)).toEqual([]);
    });
  });
});
