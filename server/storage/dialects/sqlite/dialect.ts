/** SQLite's side of the dialect interface: FTS5 search ranked by parley_bm25, extra index tokens, sqlite-vec. */
import { type Kysely, sql } from 'kysely';
import { chunkExtraTokens, FTS_WEIGHTS, LENGTH_COLUMNS, searchPairs } from '../../search-terms.js';
import type { Database } from '../../tables.js';
import type { ChunkRow, Dialect } from '../dialect.js';
import { isUniqueViolation } from './errors.js';
import { GroupCommit } from './group-commit.js';
import { createFts5Planner } from './search.js';
import { sqliteIndex } from './vector-index.js';

/** One group commit per database handle: its writes share COMMITs. */
const groups = new WeakMap<Kysely<Database>, GroupCommit>();
function groupCommitOf(db: Kysely<Database>): GroupCommit {
  let group = groups.get(db);
  if (!group) groups.set(db, (group = new GroupCommit(db)));
  return group;
}

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  chunkSearch(db: Kysely<Database>) {
    const planner = createFts5Planner(db);
    let parleyRank: Promise<boolean> | null = null;
    /** Whether this connection has parley_bm25 (dialects/index.ts loads it); asked once. */
    const hasParleyRank = () =>
      (parleyRank ??= sql`select parley_bm25(chunks_fts, 1) from chunks_fts where chunks_fts match 'x' limit 0`
        .execute(db)
        .then(
          () => true,
          () => false,
        ));
    return async (chatbotId, query, terms, limit) => {
      // FTS5 filters by the chatbot's token, ranks, sorts and limits by itself; only the k
      // winners are joined (migration 0004). The words and adjacent word pairs (tokens of the
      // extra column, migration 0011) are ORed; on a large index the common words only score
      // (search.ts). The rank is parley_bm25 with the planner's document frequencies and
      // the LIMIT, or FTS5's bm25() where the extension is missing (nearly the same order: bm25()
      // counts the extra column in a row's length; slower on large indexes). Both are "lower is
      // better": negated, so every hit list reads higher = better. CROSS JOIN keeps the k ranked
      // rows as the outer loop: with a plain JOIN, SQLite's planner walked every chunk of the
      // chatbot by its index and probed the k rows.
      const plan = await planner.plan(chatbotId, terms, searchPairs(query));
      if (!plan.match) return [];
      const weights = sql.join(FTS_WEIGHTS.map((w) => sql.lit(w)));
      const search = (rank: ReturnType<typeof sql>) =>
        sql<ChunkRow>`
        select c.id, c.document_id, c.title, c.heading, c.text, c.location, -m.rank as score
        from (select rowid, ${rank} as rank
              from chunks_fts where chunks_fts match ${plan.match}
              order by rank, rowid
              limit ${limit}) m
        cross join chunks c on c.id = m.rowid
        where c.chatbot_id = ${chatbotId}
        order by m.rank, c.id`.execute(db);
      const fallback = () => search(sql`bm25(chunks_fts, ${weights})`);
      if (!(await hasParleyRank())) return (await fallback()).rows;
      let rows: ChunkRow[];
      try {
        ({ rows } = await search(
          sql`parley_bm25(chunks_fts, ${LENGTH_COLUMNS}, ${limit}, ${weights}, ${sql.join(plan.frequencies)})`,
        ));
      } catch (err) {
        // A library built from another parley_rank.c (a stale build) must not fail searches:
        // this connection ranks with bm25() from now on.
        if (!/parley_bm25/.test(String((err as Error)?.message))) throw err;
        parleyRank = Promise.resolve(false);
        ({ rows } = await fallback());
      }
      return rows;
    };
  },
  chunkColumns: (chunk) => ({ extra: chunkExtraTokens(chunk) }),
  lockJob: async () => {},
  serialiseJobClaims: (db, claim) => claim(db),
  groupedTransaction: (db, fn) => groupCommitOf(db).run(fn),
  lockAccount: async () => {},
  isUniqueViolation,
  vectorIndex: (db, model, dimensions) => sqliteIndex(db, model, dimensions),
};
