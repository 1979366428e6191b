/**
 * PostgreSQL's search plan beyond the shared KnowledgeStore suite: remembered word counts, the
 * rarest words bringing candidates, and a too-common word bringing only its title/heading rows
 * (head_tsv, migration 0012). In CI (CI=true) an unreachable PostgreSQL fails the file.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createPgPlanner } from '../../../server/storage/dialects/postgres/search.js';
import { PG_WEIGHTS } from '../../../server/storage/search-terms.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { addDocument, newChatbot } from '../../helpers/knowledge.js';
import { describeOnDialects } from '../../helpers/dialects.js';

describeOnDialects(
  'PostgreSQL search plan',
  () => {
    let kdb: TestDatabase;
    let bot: { chatbotId: string; accountId: string };
    let titled: number[];
    let headed: number[];
    beforeAll(async () => {
      kdb = await openTestDatabase('postgres');
      bot = await newChatbot(kdb.store);
      titled = (
        await addDocument(kdb.store, bot, 'Gadget setup', [
          { text: 'first steps with the zebra' },
          { heading: ['Colours'], text: 'pick one' },
        ])
      ).chunkIds;
      headed = (await addDocument(kdb.store, bot, 'Misc', [{ heading: ['Gadget care'], text: 'wipe it' }])).chunkIds;
      await addDocument(
        kdb.store,
        bot,
        'Mentions',
        Array.from({ length: 10 }, (_, i) => ({ text: `a gadget is mentioned here ${i}` })),
      );
    });
    afterAll(() => kdb?.close());

    test('below the budget every word brings candidates; words PostgreSQL cannot index are left out', async () => {
      const plan = await createPgPlanner(kdb.database.db).plan(bot.chatbotId, ['zebra', 'gadget', 'the']);
      expect(plan.n).toBe(13);
      expect(plan.words).toEqual([
        { w: 'zebra', df: 1 },
        { w: 'gadget', df: 13 },
      ]);
      expect(plan.candidates).toEqual(['zebra', 'gadget']);
      expect(plan.headCandidates).toEqual([]);
    });

    test('past the budget: the rarest words bring their rows, a too-common word its title/heading rows', async () => {
      const planner = createPgPlanner(kdb.database.db, 4);
      const plan = await planner.plan(bot.chatbotId, ['zebra', 'gadget']);
      expect(plan.candidates).toEqual(['zebra']);
      expect(plan.headCandidates).toEqual(['gadget']);
      // Alone, the common word still brings only its 3 title/heading rows...
      expect(await planner.plan(bot.chatbotId, ['gadget'])).toMatchObject({
        candidates: [],
        headCandidates: ['gadget'],
      });
      // ...the rows the full ranking (this small index is under the store's budget) puts first.
      const hits = await kdb.store.knowledge.chunks.searchLexical(bot.chatbotId, 'gadget', 5);
      expect(
        hits
          .slice(0, 3)
          .map((h) => h.chunkId)
          .sort((a, b) => a - b),
      ).toEqual([...titled, ...headed].sort((a, b) => a - b));
    });

    test('a word in no title or heading brings all its rows when nothing fits', async () => {
      const plan = await createPgPlanner(kdb.database.db, 4).plan(bot.chatbotId, ['mentioned']);
      expect(plan).toMatchObject({ candidates: ['mentioned'], headCandidates: [] });
    });

    test('counts are remembered for a minute: a new row is not counted by the same planner at once', async () => {
      const planner = createPgPlanner(kdb.database.db);
      expect((await planner.plan(bot.chatbotId, ['zebra'])).words).toEqual([{ w: 'zebra', df: 1 }]);
      await addDocument(kdb.store, bot, 'More zebras', [{ text: 'another zebra' }]);
      expect((await planner.plan(bot.chatbotId, ['zebra'])).words).toEqual([{ w: 'zebra', df: 1 }]);
      expect((await createPgPlanner(kdb.database.db).plan(bot.chatbotId, ['zebra'])).words).toEqual([
        { w: 'zebra', df: 2 },
      ]);
    });

    test("each hit's score is its words' IDF-weighted ts_rank summed, the words it lacks adding nothing", async () => {
      // A chatbot of its own: the store's planner remembers the other's counts for a minute.
      const own = await newChatbot(kdb.store);
      await addDocument(kdb.store, own, 'Zebra care', [
        { text: 'feed the zebra hay, and a gadget keeps the water fresh' },
        { heading: ['Colours'], text: 'stripes of black and white' },
        { text: 'a gadget for the stable' },
      ]);
      await addDocument(kdb.store, own, 'Gadgets', [{ heading: ['Gadget colours'], text: 'red, blue' }]);
      const hits = await kdb.store.knowledge.chunks.searchLexical(own.chatbotId, 'zebra gadget colours', 20);
      const plan = await createPgPlanner(kdb.database.db).plan(own.chatbotId, ['zebra', 'gadget', 'colours']);
      expect(plan.words.map((x) => x.w)).toEqual(['zebra', 'gadget', 'colours']);
      // The reference, written the plain way: a sum over the words each row matches.
      const { rows } = await sql<{ id: number | string; score: number }>`
        select c.id, (select sum(ln(1 + (greatest(${plan.n}::float8, u.df) - u.df + 0.5) / (u.df + 0.5))
                                 * ts_rank(${PG_WEIGHTS}::float4[], c.tsv, to_tsquery('english', u.w), 1))
                      from unnest(${plan.words.map((x) => x.w)}::text[], ${plan.words.map((x) => x.df)}::float8[]) as u(w, df)
                      where c.tsv @@ to_tsquery('english', u.w)) as score
        from chunks c where c.id = any(${hits.map((h) => h.chunkId)}::bigint[])`.execute(kdb.database.db);
      const reference = new Map(rows.map((r) => [Number(r.id), r.score]));
      expect(hits.length).toBe(4);
      for (const h of hits) expect(h.score).toBe(reference.get(h.chunkId));
      const scores = hits.map((h) => h.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      expect(scores[0]).toBeGreaterThan(scores[scores.length - 1]);
    });

    test("ANALYZE's figures spare counting a word only when they prove it past the budget in this chatbot", async () => {
      // Another chatbot holds most rows with "widget": table-wide it is common, here it is rare.
      const other = await newChatbot(kdb.store);
      await addDocument(
        kdb.store,
        other,
        'Widgets',
        Array.from({ length: 60 }, (_, i) => ({ text: `the widget number ${i}` })),
      );
      const mine = await newChatbot(kdb.store);
      await addDocument(kdb.store, mine, 'Two widgets', [{ text: 'a widget' }, { text: 'another widget' }]);
      await sql`analyze chunks`.execute(kdb.database.db);
      const { rows } = await sql<{ freq: number | null; r: number }>`
        select (select max(e.freq) from pg_stats s,
                       unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as e(lexeme, freq)
                where s.schemaname = current_schema() and s.tablename = 'chunks' and s.attname = 'tsv'
                  and e.lexeme = 'widget') as freq,
               (select reltuples from pg_class where oid = 'chunks'::regclass) as r`.execute(kdb.database.db);
      const freq = Number(rows[0].freq);
      expect(freq * rows[0].r).toBeGreaterThan(6); // ANALYZE saw the word in more rows than the budget
      const planner = createPgPlanner(kdb.database.db, 4);
      // Here: counted, exactly (the table-wide share would say past the budget).
      expect((await planner.plan(mine.chatbotId, ['widget'])).words).toEqual([{ w: 'widget', df: 2 }]);
      // There: past the budget either way, so its frequency is ANALYZE's estimate, as a count would have given.
      const there = await planner.plan(other.chatbotId, ['widget']);
      expect(there.words).toEqual([{ w: 'widget', df: Math.max(5, freq * 60) }]);
    });

    test("search vectors are kept in the row and a long chunk's text goes out first (migration 0029); it is still found", async () => {
      // Too big for one row: PostgreSQL moves the text (storage x) to TOAST before the vectors (storage m).
      const words = Array.from({ length: 1500 }, (_, i) => `term${i.toString(36)}`).join(' ');
      const { chunkIds } = await addDocument(kdb.store, bot, 'Long', [{ heading: ['Glossary'], text: words }]);
      const { rows } = await sql<{ attname: string; attstorage: string }>`
        select attname, attstorage from pg_attribute
        where attrelid = 'chunks'::regclass and attname in ('tsv', 'head_tsv', 'text') order by attname`.execute(
        kdb.database.db,
      );
      expect(rows).toEqual([
        { attname: 'head_tsv', attstorage: 'm' },
        { attname: 'text', attstorage: 'x' },
        { attname: 'tsv', attstorage: 'm' },
      ]);
      const hits = await kdb.store.knowledge.chunks.searchLexical(bot.chatbotId, 'term1a glossary', 5);
      expect(hits[0]?.chunkId).toBe(chunkIds[0]);
    });
  },
  { dialects: ['postgres'] },
);
