/**
 * A parley_bm25 that fails (a library built from another parley_rank.c, its arguments changed)
 * must not fail searches: the connection falls back to bm25() and answers. Staged by a planner
 * that hands the rank function one frequency too few, which parley_bm25 refuses.
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { addDocument, newChatbot } from '../../helpers/knowledge.js';

vi.mock('../../../server/storage/dialects/sqlite/search.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../server/storage/dialects/sqlite/search.js')>();
  return {
    ...real,
    createFts5Planner: (...args: Parameters<typeof real.createFts5Planner>) => {
      const planner = real.createFts5Planner(...args);
      return {
        plan: async (...a: Parameters<typeof planner.plan>) => ({ ...(await planner.plan(...a)), frequencies: [1] }),
      };
    },
  };
});

let kdb: TestDatabase;
beforeAll(async () => {
  kdb = await openTestDatabase('sqlite');
});
afterAll(() => kdb?.close());

test('a failing parley_bm25 falls back to bm25(): the search still answers, and keeps answering', async () => {
  const bot = await newChatbot(kdb.store);
  const target = await addDocument(kdb.store, bot, 'Routes', [
    { text: 'declare a route handler' },
    { text: 'unrelated words' },
  ]);
  const first = await kdb.store.knowledge.chunks.searchLexical(bot.chatbotId, 'route handler', 3);
  // Both chunks carry the title "Routes"; the one saying "route handler" comes first.
  expect(first.map((h) => h.chunkId)).toEqual(target.chunkIds);
  const again = await kdb.store.knowledge.chunks.searchLexical(bot.chatbotId, 'unrelated', 3);
  expect(again.map((h) => h.chunkId)).toEqual([target.chunkIds[1]]);
});
