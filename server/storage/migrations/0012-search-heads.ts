import { type Kysely, sql } from 'kysely';
import type { DialectName } from './column-types.js';

/**
 * PostgreSQL: `head_tsv`, the chunk's title (weight A) and heading path (B) alone, with its own
 * GIN index. A word too common to bring all its rows as candidates brings those where it is in
 * the title or a heading (dialects/postgres/search.ts): the rows it weighs most in, found without reading
 * every row that holds it. The same text preparation as `tsv` (migration 0004).
 *
 * SQLite does the same with head tokens in chunks_fts's extra column (migration 0011).
 */
export function searchHeads(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      await sql`alter table chunks add column head_tsv tsvector generated always as (
          setweight(to_tsvector('english', regexp_replace(title, '[./:@\\\\~]+', ' ', 'g')), 'A') ||
          setweight(to_tsvector('english', regexp_replace(heading, '[./:@\\\\~]+', ' ', 'g')), 'B')) stored`.execute(db);
      await sql`create index chunks_head_tsv on chunks using gin (head_tsv)`.execute(db);
    },
  };
}
