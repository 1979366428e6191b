/**
 * Chunks and their lexical index. The index follows the table by itself (SQLite: FTS5 external
 * content kept by triggers; PostgreSQL: a generated tsvector column), so replacing or deleting
 * chunks is plain SQL on `chunks`. Only the search statement differs between dialects.
 */
import { type Kysely, sql } from 'kysely';
import type { ChunkLocation, KnowledgeStore, SearchHit } from '../domain/knowledge/ports.js';
import type { DialectName } from './dialects/index.js';
import { extraTokens, searchPairs, searchTerms } from './search-terms.js';
import { createPgPlanner } from './postgres-search.js';
import { createFts5Planner } from './sqlite-search.js';
import type { Database } from './tables.js';

const BATCH = 500;
export const MAX_K = 1000;

/**
 * Field weights, title : heading path : text. A word in the title or a heading says what a
 * passage is about far more than the same word in its body. SQLite passes them to bm25().
 * PostgreSQL's ts_rank takes one weight per tsvector class {D, C, B, A} (text D, heading B,
 * title A) and saturates repeated words differently from bm25, so its figures differ.
 * Chosen with bench/retrieval.ts (`npm run bench -- retrieval`), where the figures are.
 */
export const WEIGHTS = { title: 4, heading: 2, text: 1 } as const;

/**
 * A chunk's tokens for SQLite's `extra` column (search-terms.ts `extraTokens`: word pairs and
 * title/heading words): title pairs repeated WEIGHTS.title times and heading pairs
 * WEIGHTS.heading times stand in for those columns' weights, so the column itself weighs 1.
 */
export const chunkExtraTokens = (c: { title: string; headingPath: string[]; text: string }) => extraTokens(c, WEIGHTS.title, WEIGHTS.heading);

/** chunks_fts columns: title, heading, text, chatbot token, extra; the first three make a row's length. */
const FTS_WEIGHTS = [WEIGHTS.title, WEIGHTS.heading, WEIGHTS.text, 0, 1] as const;
const LENGTH_COLUMNS = 3;
const PG_WEIGHTS = '{0.5,0,0.75,1}';

interface ChunkRow {
  id: number;
  document_id: string;
  title: string;
  heading: string;
  text: string;
  location: string;
  score?: number | string;
}

function toHit(r: ChunkRow): SearchHit {
  const location = JSON.parse(r.location) as ChunkLocation;
  return {
    chunkId: Number(r.id),
    documentId: r.document_id,
    title: r.title,
    url: location.url ?? null,
    headingPath: Array.isArray(location.headingPath) ? location.headingPath : r.heading ? r.heading.split(' > ') : [],
    text: r.text,
    location,
    score: Number(r.score ?? 0),
  };
}

const clampK = (k: number) => Math.max(0, Math.min(MAX_K, Math.floor(Number.isFinite(k) ? k : 0)));

export const chunksRepository = (db: Kysely<Database>, dialect: DialectName): KnowledgeStore['chunks'] => {
  const atomically = <T>(fn: (trx: Kysely<Database>) => Promise<T>) =>
    db.isTransaction ? fn(db) : db.transaction().execute(fn);

  const planner = dialect === 'sqlite' ? createFts5Planner(db) : null;
  const pgPlanner = dialect === 'postgres' ? createPgPlanner(db) : null;
  let parleyRank: Promise<boolean> | null = null;
  /** Whether this connection has parley_bm25 (dialects/index.ts loads it); asked once. */
  const hasParleyRank = () =>
    (parleyRank ??= sql`select parley_bm25(chunks_fts, 1) from chunks_fts where chunks_fts match 'x' limit 0`
      .execute(db)
      .then(() => true, () => false));

  return {
    replace(documentId, chatbotId, chunks) {
      return atomically(async (trx) => {
        // Deleting the rows deletes their index entries (trigger / generated column) and vectors.
        await trx.deleteFrom('chunks').where('document_id', '=', documentId).execute();
        const ids: number[] = [];
        for (let i = 0; i < chunks.length; i += BATCH) {
          const rows = chunks.slice(i, i + BATCH).map((c) => ({
            document_id: documentId,
            chatbot_id: chatbotId,
            idx: c.index,
            title: c.title,
            heading: c.headingPath.join(' > '),
            text: c.text,
            location: JSON.stringify(c.location),
            token_count: c.tokenCount,
            ...(dialect === 'sqlite' ? { extra: chunkExtraTokens(c) } : {}),
          }));
          const inserted = await trx.insertInto('chunks').values(rows).returning('id').execute();
          // Ids are assigned in VALUES order in both dialects; sorting makes that explicit.
          ids.push(...inserted.map((r) => Number(r.id)).sort((a, b) => a - b));
        }
        await trx.updateTable('documents').set({ chunk_count: chunks.length }).where('id', '=', documentId).execute();
        return ids;
      });
    },

    async searchLexical(chatbotId, query, k) {
      const limit = clampK(k);
      const terms = searchTerms(query);
      if (!terms.length || !limit) return [];
      if (dialect === 'postgres') {
        // ts_rank knows no IDF: "request" would weigh as much as "xml". Each word is ranked on
        // its own and weighted by its BM25 IDF over this chatbot's chunks, then summed, like
        // bm25 on SQLite; normalisation 1 divides by 1 + log(length), so long passages do not
        // win by size alone. The plan (postgres-search.ts) gives each word's frequency and the
        // words that bring candidates; every word scores them, summed per candidate in a
        // subquery, so PostgreSQL keeps only the top k (no sort of every candidate-word pair).
        const plan = await pgPlanner!.plan(chatbotId, terms);
        const bring = [
          ...(plan.candidates.length ? [sql`c.tsv @@ to_tsquery('english', ${plan.candidates.join(' | ')})`] : []),
          ...(plan.headCandidates.length ? [sql`c.head_tsv @@ to_tsquery('english', ${plan.headCandidates.join(' | ')})`] : []),
        ];
        if (!bring.length) return [];
        const { rows } = await sql<ChunkRow>`
          with words as materialized (
            select to_tsquery('english', u.w) as q, ln(1 + (greatest(${plan.n}::float8, u.df) - u.df + 0.5) / (u.df + 0.5)) as idf
            from unnest(${plan.words.map((x) => x.w)}::text[], ${plan.words.map((x) => x.df)}::float8[]) as u(w, df)),
          scored as (
            select c.id, (select sum(x.idf * ts_rank(${PG_WEIGHTS}::float4[], c.tsv, x.q, 1)) from words x where c.tsv @@ x.q) as score
            from chunks c
            where c.chatbot_id = ${chatbotId} and (${sql.join(bring, sql` or `)})
            order by score desc, c.id
            limit ${limit})
          select c.id, c.document_id, c.title, c.heading, c.text, c.location, s.score
          from scored s join chunks c on c.id = s.id
          order by s.score desc, c.id`.execute(db);
        return rows.map(toHit);
      }
      // FTS5 filters by the chatbot's token, ranks, sorts and limits by itself; only the k
      // winners are joined (migration 0004). The words and adjacent word pairs (tokens of the
      // extra column, migration 0011) are ORed; on a large index the common words only score
      // (sqlite-search.ts). The rank is parley_bm25 with the planner's document frequencies and
      // the LIMIT, or FTS5's bm25() where the extension is missing (nearly the same order: bm25()
      // counts the extra column in a row's length; slower on large indexes). Both are "lower is
      // better": negated, so every hit list reads higher = better. CROSS JOIN keeps the k ranked
      // rows as the outer loop: with a plain JOIN, SQLite's planner walked every chunk of the
      // chatbot by its index and probed the k rows (6 ms at 100k chunks).
      const plan = await planner!.plan(chatbotId, terms, searchPairs(query));
      if (!plan.match) return [];
      const weights = sql.join(FTS_WEIGHTS.map((w) => sql.lit(w)));
      const search = (rank: ReturnType<typeof sql>) => sql<ChunkRow>`
        select c.id, c.document_id, c.title, c.heading, c.text, c.location, -m.rank as score
        from (select rowid, ${rank} as rank
              from chunks_fts where chunks_fts match ${plan.match}
              order by rank, rowid
              limit ${limit}) m
        cross join chunks c on c.id = m.rowid
        where c.chatbot_id = ${chatbotId}
        order by m.rank, c.id`.execute(db);
      const fallback = () => search(sql`bm25(chunks_fts, ${weights})`);
      if (!(await hasParleyRank())) return (await fallback()).rows.map(toHit);
      let rows: ChunkRow[];
      try {
        ({ rows } = await search(sql`parley_bm25(chunks_fts, ${LENGTH_COLUMNS}, ${limit}, ${weights}, ${sql.join(plan.frequencies)})`));
      } catch (err) {
        // A library built from another parley_rank.c (a stale build) must not fail searches:
        // this connection ranks with bm25() from now on.
        if (!/parley_bm25/.test(String((err as Error)?.message))) throw err;
        parleyRank = Promise.resolve(false);
        ({ rows } = await fallback());
      }
      return rows.map(toHit);
    },

    async byIds(ids) {
      const wanted = [...new Set(ids.filter((id) => Number.isInteger(id)))];
      if (!wanted.length) return [];
      const found = new Map<number, SearchHit>();
      for (let i = 0; i < wanted.length; i += BATCH) {
        const rows = await db
          .selectFrom('chunks')
          .select(['id', 'document_id', 'title', 'heading', 'text', 'location'])
          .where('id', 'in', wanted.slice(i, i + BATCH))
          .execute();
        for (const r of rows) found.set(Number(r.id), toHit(r));
      }
      return wanted.flatMap((id) => found.get(id) ?? []);
    },

    async count(chatbotId) {
      const row = await db
        .selectFrom('chunks')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('chatbot_id', '=', chatbotId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
};
