/** PostgreSQL's side of the dialect interface: per-word BM25-weighted ts_rank, row locks, real[] vectors. */
import { type Kysely, sql } from 'kysely';
import { PG_WEIGHTS } from '../../search-terms.js';
import type { Database } from '../../tables.js';
import type { ChunkRow, Dialect } from '../dialect.js';
import { isUniqueViolation } from './errors.js';
import { createPgPlanner } from './search.js';
import { postgresIndex } from './vector-index.js';

export const postgresDialect: Dialect = {
  name: 'postgres',
  chunkSearch(db: Kysely<Database>) {
    const planner = createPgPlanner(db);
    return async (chatbotId, _query, terms, limit) => {
      // ts_rank knows no IDF: "request" would weigh as much as "xml". Each word is ranked on
      // its own and weighted by its BM25 IDF over this chatbot's chunks, then summed, like
      // bm25 on SQLite; normalisation 1 divides by 1 + log(length), so long passages do not
      // win by size alone. The plan (search.ts) gives each word's frequency and the
      // words that bring candidates; every word scores them, and PostgreSQL keeps only the top k.
      // The sum is written out, one term per word, in the words' order: a word a row lacks ranks
      // 0, so the score is the one a per-row subquery over the words gave, without running that
      // subquery for each of up to CANDIDATE_BUDGET rows (a third of the query's time).
      const plan = await planner.plan(chatbotId, terms);
      const bring = [
        ...(plan.candidates.length ? [sql`c.tsv @@ to_tsquery('english', ${plan.candidates.join(' | ')})`] : []),
        ...(plan.headCandidates.length
          ? [sql`c.head_tsv @@ to_tsquery('english', ${plan.headCandidates.join(' | ')})`]
          : []),
      ];
      if (!bring.length) return [];
      const score = plan.words.map(
        ({ w, df }) =>
          sql`ln(1 + (greatest(${plan.n}::float8, ${df}::float8) - ${df}::float8 + 0.5) / (${df}::float8 + 0.5))
              * ts_rank(${PG_WEIGHTS}::float4[], c.tsv, to_tsquery('english', ${w}), 1)`,
      );
      const { rows } = await sql<ChunkRow>`
        with scored as (
          select c.id, ${sql.join(score, sql` + `)} as score
          from chunks c
          where c.chatbot_id = ${chatbotId} and (${sql.join(bring, sql` or `)})
          order by score desc, c.id
          limit ${limit})
        select c.id, c.document_id, c.title, c.heading, c.text, c.location, s.score
        from scored s join chunks c on c.id = s.id
        order by s.score desc, c.id`.execute(db);
      return rows;
    };
  },
  chunkColumns: () => ({}),
  async lockJob(trx, jobId) {
    await sql`select id from ingest_jobs where id = ${jobId} for update`.execute(trx);
  },
  serialiseJobClaims: (db, claim) =>
    db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext('parley.jobs.claim'))`.execute(trx);
      return claim(trx);
    }),
  groupedTransaction: (db, fn) => db.transaction().execute(fn),
  async lockAccount(trx, accountId) {
    await sql`select id from accounts where id = ${accountId} for update`.execute(trx);
  },
  isUniqueViolation,
  vectorIndex: (db, model, dimensions) => postgresIndex(db, model, dimensions),
};
