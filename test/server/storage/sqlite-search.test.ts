/**
 * SQLite's lexical search beyond the shared KnowledgeStore suite: the extra index tokens (word
 * pairs, title/heading words), the planner that bounds a search on a large index, parley_bm25
 * (the ranking extension) against FTS5's own bm25(), the fallback without the extension, and
 * migration 0011 filling in the tokens of chunks stored before it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WEIGHTS } from '../../../server/storage/chunks.repository.js';
import { openDatabase } from '../../../server/storage/dialects/index.js';
import { migrations, migrateToLatest } from '../../../server/storage/migrations/index.js';
import { extraTokens, headToken, pairToken, searchPairs, searchTerms } from '../../../server/storage/search-terms.js';
import { rankExtension } from '../../../server/storage/dialects/sqlite/rank/index.js';
import { createFts5Planner } from '../../../server/storage/dialects/sqlite/search.js';
import { createStore } from '../../../server/storage/store.js';
import type { Database } from '../../../server/storage/tables.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { addDocument, documentRecord, newChatbot, sourceRecord } from '../../helpers/knowledge.js';

const hex = (chatbotId: string) => Buffer.from(chatbotId).toString('hex').toUpperCase();
const WEIGHT_ARGS = `${WEIGHTS.title}, ${WEIGHTS.heading}, ${WEIGHTS.text}, 0, 1`;

test('extra tokens: stemmed pairs of adjacent content words, title and heading pairs repeated by weight, head words once', () => {
  expect(pairToken('routes', 'handlers')).toBe(pairToken('route', 'handler'));
  expect(pairToken('route', 'handler')).not.toBe(pairToken('handler', 'route'));
  expect(headToken('Plugins'.toLowerCase())).toBe(headToken('plugin'));
  const tokens = extraTokens(
    {
      title: 'Route handlers',
      headingPath: ['Reply object', 'Send data'],
      text: 'Register the route handler, then reply quickly.',
    },
    4,
    2,
  ).split(' ');
  const count = (t: string) => tokens.filter((x) => x === t).length;
  expect(count(pairToken('route', 'handlers'))).toBe(4 + 1); // title x4, text once
  expect(count(pairToken('reply', 'object'))).toBe(2);
  // Never across a heading boundary or a stopword: "object send", "register route".
  expect(count(pairToken('object', 'send'))).toBe(0);
  expect(count(pairToken('register', 'route'))).toBe(0);
  expect(count(pairToken('reply', 'quickly'))).toBe(1);
  for (const w of ['route', 'handlers', 'reply', 'object', 'send', 'data']) expect(count(headToken(w))).toBe(1);
  expect(count(headToken('register'))).toBe(0);
  // The question side makes the same tokens.
  expect(searchPairs('How do I register route handlers?').map(([a, b]) => pairToken(a, b))).toContain(
    pairToken('route', 'handler'),
  );
});

describe('SQLite search', () => {
  let kdb: TestDatabase;
  beforeAll(async () => {
    kdb = await openTestDatabase('sqlite');
  });
  afterAll(() => kdb?.close());
  const db = () => kdb.database.db as Kysely<Database>;

  test('parley_bm25 is built and loaded (npm ci builds it; a missing compiler fails here, not silently)', () => {
    expect(rankExtension.reason).toBeNull();
    expect(rankExtension.loaded).toBe(true);
  });

  test('a pair in the question finds the passage with those words side by side first', async () => {
    const bot = await newChatbot(kdb.store);
    await addDocument(kdb.store, bot, 'Apart', [
      { text: 'The handler of a route is set per route; every handler gets the request.' },
    ]);
    const adjacent = await addDocument(kdb.store, bot, 'Side by side', [
      { text: 'Each route handlers receives request and reply.' },
    ]);
    const hits = await kdb.store.knowledge.chunks.searchLexical(bot.chatbotId, 'route handler', 2);
    expect(hits.map((h) => h.chunkId)[0]).toBe(adjacent.chunkIds[0]);
  });

  test('on a large index common words only score: candidates come from the rarest words and the pairs', async () => {
    const bot = await newChatbot(kdb.store);
    const token = hex(bot.chatbotId);
    const target = await addDocument(kdb.store, bot, 'Target', [{ text: 'the zebra request handler' }]);
    await addDocument(
      kdb.store,
      bot,
      'Fillers',
      Array.from({ length: 12 }, (_, i) => ({ text: `widget request handler number ${i}` })),
    );
    // Another chatbot's rows: the index is shared, so "request" stays under half of it.
    await addDocument(
      kdb.store,
      await newChatbot(kdb.store),
      'Elsewhere',
      Array.from({ length: 30 }, (_, i) => ({ text: `unrelated passage ${i}` })),
    );
    // A budget of 3 rows makes "widgets" (12 rows) and "request" (13+) too common to bring
    // candidates; they score, rarest first. Sources are taken cheapest first: the pair nobody
    // holds (0 rows), "zebra" and its pair (1 row each).
    const planner = createFts5Planner(db(), 3);
    const q = 'zebra request widgets';
    const plan = await planner.plan(bot.chatbotId, searchTerms(q), searchPairs(q));
    expect(plan.scoringOnly).toEqual(['widgets', 'request']);
    const pair = (a: string, b: string) => `"${pairToken(a, b)}"`;
    expect(plan.match).toBe(
      `chatbot : "${token}" AND (${pair('request', 'widgets')} OR "zebra" OR ${pair('zebra', 'request')}) AND ("widgets" OR "request" OR chatbot : "${token}")`,
    );
    // One frequency per phrase, in order: the chatbot's 13 rows, 0, 1, 1, then 12, "request"
    // (13 here, more with other tests' rows: the statistics are the whole index's), 13.
    expect(plan.frequencies).toEqual([13, 0, 1, 1, 12, expect.any(Number), 13]);
    expect(plan.frequencies[5]).toBeGreaterThanOrEqual(13);
    const rows = (
      await sql<{ rowid: number }>`select rowid from chunks_fts where chunks_fts match ${plan.match}`.execute(db())
    ).rows;
    expect(rows.map((r) => Number(r.rowid))).toEqual(target.chunkIds);
    // Below the budget: the plain OR of every word and pair.
    expect((await createFts5Planner(db()).plan(bot.chatbotId, ['zebra', 'request'], [])).scoringOnly).toEqual([]);
    // Stems come from FTS5's tokenizer, also for concurrent searches on the one connection.
    const stemmed = await Promise.all(
      ['handlers', 'requests', 'zebras', 'widgets'].map((w) => planner.plan(bot.chatbotId, [w, 'filler'], [])),
    );
    expect(stemmed.every((p) => typeof p.match === 'string' && p.frequencies.length > 0)).toBe(true);
    const hits = await kdb.store.knowledge.chunks.searchLexical(bot.chatbotId, q, 3);
    expect(hits[0].chunkId).toBe(target.chunkIds[0]);
  });

  test('a word too common to bring all its rows brings those with it in a title or heading', async () => {
    const bot = await newChatbot(kdb.store);
    const token = hex(bot.chatbotId);
    const titled = await addDocument(kdb.store, bot, 'Gadget setup', [
      { text: 'first steps' },
      { heading: ['Gadget colours'], text: 'pick one' },
    ]);
    const headed = await addDocument(kdb.store, bot, 'Misc', [{ heading: ['Gadget care'], text: 'wipe it' }]);
    await addDocument(
      kdb.store,
      bot,
      'Mentions',
      Array.from({ length: 10 }, (_, i) => ({ text: `a gadget is mentioned here ${i}` })),
    );
    const planner = createFts5Planner(db(), 4);
    const plan = await planner.plan(bot.chatbotId, ['gadget'], []);
    expect(plan.match).toBe(
      `chatbot : "${token}" AND ("${headToken('gadget')}") AND ("gadget" OR chatbot : "${token}")`,
    );
    const rows = (
      await sql<{
        rowid: number;
      }>`select rowid from chunks_fts where chunks_fts match ${plan.match} order by rowid`.execute(db())
    ).rows;
    expect(rows.map((r) => Number(r.rowid))).toEqual([...titled.chunkIds, ...headed.chunkIds]);
    // A word in no title or heading, too common for the budget: its rows come anyway, and the
    // word is not also in a scoring group (it would count twice).
    const alone = await planner.plan(bot.chatbotId, ['mentioned'], []);
    expect(alone.match).toBe(`chatbot : "${token}" AND ("mentioned")`);
    expect(alone.frequencies).toEqual([13, 10]);
  });

  test('a chatbot holding the whole index is not filtered, and words in over half the rows neither bring nor score candidates', async () => {
    // A database of its own: one chatbot, so its token matches every row.
    const own = await openTestDatabase('sqlite');
    try {
      const bot = await newChatbot(own.store);
      const target = await addDocument(own.store, bot, 'Target', [{ text: 'the zebra request handler' }]);
      await addDocument(
        own.store,
        bot,
        'Fillers',
        Array.from({ length: 12 }, (_, i) => ({ text: `widget request handler number ${i}` })),
      );
      const planner = createFts5Planner(own.database.db, 3);
      const q = 'zebra request widgets';
      const plan = await planner.plan(bot.chatbotId, searchTerms(q), searchPairs(q));
      // "request" is in all 13 rows: weightless in bm25, so left out; "widgets" (12 of 13) too.
      expect(plan.ignored?.sort()).toEqual(['request', 'widgets']);
      expect(plan.match).toBe(
        `("${pairToken('request', 'widgets')}" OR "zebra" OR "${pairToken('zebra', 'request')}")`,
      );
      const hits = await own.store.knowledge.chunks.searchLexical(bot.chatbotId, q, 3);
      expect(hits[0].chunkId).toBe(target.chunkIds[0]);
      // Another chatbot's rows arrive while the planner's counts are still cached: the filter
      // comes back at once (an unfiltered search would rank that chatbot's rows too).
      const other = await newChatbot(own.store);
      await addDocument(own.store, other, 'Zebra facts', [{ text: 'zebra zebra zebra stripes' }]);
      expect((await planner.plan(bot.chatbotId, searchTerms(q), searchPairs(q))).match).toMatch(
        new RegExp(`^chatbot : "${hex(bot.chatbotId)}" AND `),
      );
      const after = await own.store.knowledge.chunks.searchLexical(bot.chatbotId, q, 3);
      expect(after[0].chunkId).toBe(target.chunkIds[0]);
      expect(after).toHaveLength(3);
    } finally {
      await own.close();
    }
  });

  describe('parley_bm25', () => {
    let chatbotId: string;
    const words = ['route', 'handler', 'schema', 'reply', 'hook', 'plugin', 'request', 'server', 'decorator', 'stream'];
    beforeAll(async () => {
      const bot = await newChatbot(kdb.store);
      chatbotId = bot.chatbotId;
      // 300 passages of varied length and word counts, deterministic.
      let seed = 7;
      const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      for (let d = 0; d < 10; d++) {
        const parts = Array.from({ length: 30 }, () => ({
          heading: [words[Math.floor(next() * words.length)]],
          text: Array.from({ length: 5 + Math.floor(next() * 60) }, () =>
            next() < 0.3 ? words[Math.floor(next() * words.length)] : `filler${Math.floor(next() * 50)}`,
          ).join(' '),
        }));
        await addDocument(kdb.store, bot, `${words[d]} guide`, parts);
      }
    });

    const run = (rank: string, match: string, limit = 1000) =>
      sql<{
        rowid: number;
        rank: number;
      }>`select rowid, ${sql.raw(rank)} as rank from chunks_fts where chunks_fts match ${match} order by rank, rowid limit ${limit}`
        .execute(db())
        .then((r) => r.rows.map((x) => ({ rowid: Number(x.rowid), rank: Number(x.rank) })));

    test('scores exactly as bm25() when given the true frequencies and every column as length', async () => {
      const q = 'route handler schema reply hook';
      const plan = await createFts5Planner(db(), Infinity).plan(chatbotId, searchTerms(q), searchPairs(q));
      const own = await run(
        `parley_bm25(chunks_fts, 5, 0, ${WEIGHT_ARGS}, ${plan.frequencies.join(', ')})`,
        plan.match,
      );
      const fts5 = await run(`bm25(chunks_fts, ${WEIGHT_ARGS})`, plan.match);
      expect(own.length).toBeGreaterThan(100);
      expect(own.map((r) => r.rowid)).toEqual(fts5.map((r) => r.rowid));
      own.forEach((r, i) => expect(r.rank).toBeCloseTo(fts5[i].rank, 9));
    });

    test('with k, the k best rows and their scores are those of the full ranking', async () => {
      for (const q of ['route handler', 'schema', 'decorator stream plugin server', 'filler3 hook']) {
        const plan = await createFts5Planner(db(), Infinity).plan(chatbotId, searchTerms(q), searchPairs(q));
        const args = `${WEIGHT_ARGS}, ${plan.frequencies.join(', ')}`;
        for (const k of [1, 3, 10]) {
          const full = (await run(`parley_bm25(chunks_fts, 3, 0, ${args})`, plan.match)).slice(0, k);
          const pruned = await run(`parley_bm25(chunks_fts, 3, ${k}, ${args})`, plan.match, k);
          expect(pruned).toEqual(full);
        }
      }
    });

    test('wrong arguments are a clear SQL error', async () => {
      await expect(run('parley_bm25(chunks_fts, 3, 5)', '"route"')).rejects.toThrow(/wrong number of arguments/);
      await expect(run(`parley_bm25(chunks_fts, 9, 5, ${WEIGHT_ARGS}, 10)`, '"route"')).rejects.toThrow(
        /nLength out of range/,
      );
      await expect(run(`parley_bm25(chunks_fts, 3, -1, ${WEIGHT_ARGS}, 10)`, '"route"')).rejects.toThrow(
        /k out of range/,
      );
    });

    test('without the extension, search falls back to bm25(): the same best hit, nearly the same list', async () => {
      const plain = openDatabase({ sqlitePath: join(kdb.dataDir, 'test.db'), rankExtension: false });
      try {
        // Fresh stores on both sides: a store's planner remembers frequencies for a minute.
        const withExtension = createStore(db());
        const fallback = createStore(plain.db);
        for (const q of ['How do I add a route handler?', 'schema reply', 'decorator']) {
          const a = await withExtension.knowledge.chunks.searchLexical(chatbotId, q, 5);
          const b = await fallback.knowledge.chunks.searchLexical(chatbotId, q, 5);
          expect(a).toHaveLength(5);
          expect(b[0].chunkId).toBe(a[0].chunkId);
          // bm25() also counts the extra column in a row's length, so close scores may swap.
          expect(b.filter((h) => a.some((x) => x.chunkId === h.chunkId)).length).toBeGreaterThanOrEqual(4);
        }
      } finally {
        await plain.close();
      }
    });
  });
});

test('migration 0011 gives chunks stored before it their extra tokens, and the index stays consistent', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-0011-'));
  const database = openDatabase({ sqlitePath: join(dir, 'old.db') });
  try {
    const db = database.db;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations('sqlite') } });
    const before = await migrator.migrateTo('0010-conversations');
    expect(before.error).toBeUndefined();
    const store = createStore(db);
    const bot = await newChatbot(store);
    const source = sourceRecord(bot.chatbotId, bot.accountId);
    await store.knowledge.sources.insert(source);
    const doc = documentRecord(bot.chatbotId, source.id, { title: 'Routes' });
    await store.knowledge.documents.insert(doc);
    // Rows as the 0010 schema stores them (no extra column yet).
    const texts = ['the handler of every route is a function', 'declare a route handler with fastify.get'];
    for (const [idx, text] of texts.entries()) {
      await sql`insert into chunks (document_id, chatbot_id, idx, title, heading, text, location, token_count)
                values (${doc.id}, ${bot.chatbotId}, ${idx}, 'Routes', 'Declaring routes', ${text}, ${JSON.stringify({ url: null, headingPath: ['Declaring routes'] })}, 8)`.execute(
        db,
      );
    }
    await migrateToLatest(db, 'sqlite');
    const rows = (await sql<{ idx: number; extra: string }>`select idx, extra from chunks order by idx`.execute(db))
      .rows;
    expect(rows[1].extra.split(' ')).toContain(pairToken('route', 'handler'));
    expect(rows[0].extra.split(' ')).toContain(headToken('routes'));
    await sql`insert into chunks_fts(chunks_fts) values ('integrity-check')`.execute(db);
    const hits = await store.knowledge.chunks.searchLexical(bot.chatbotId, 'route handler', 2);
    expect(hits[0].text).toBe(texts[1]);
    // Deleting a migrated chunk takes its tokens out of the index too.
    await sql`delete from chunks`.execute(db);
    await sql`insert into chunks_fts(chunks_fts) values ('integrity-check')`.execute(db);
    const left = (
      await sql<{
        n: number;
      }>`select count(*) as n from chunks_fts where chunks_fts match ${`"${pairToken('route', 'handler')}"`}`.execute(
        db,
      )
    ).rows[0];
    expect(Number(left.n)).toBe(0);
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
