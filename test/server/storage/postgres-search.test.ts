/**
 * PostgreSQL's search plan beyond the shared KnowledgeStore suite: remembered word counts, the
 * rarest words bringing candidates, and a too-common word bringing only its title/heading rows
 * (head_tsv, migration 0012). In CI (CI=true) an unreachable PostgreSQL fails the file.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createPgPlanner } from '../../../server/storage/dialects/postgres/search.js';
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
