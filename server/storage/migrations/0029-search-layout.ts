import { type Kysely, sql } from 'kysely';
import type { DialectName } from './column-types.js';

/**
 * PostgreSQL: keep the search vectors (`tsv`, `head_tsv`) in the row, compressed, instead of in the
 * TOAST table. A chunk's row is past TOAST's 2 KB threshold, and PostgreSQL moved its largest
 * column out, often `tsv`; a search reads `tsv` once per candidate and per query word (the match,
 * each word's ts_rank), and each read of an out-of-line value is an index lookup in the TOAST
 * table. With storage MAIN the chunk's text, read only for the few results, goes out instead
 * (bench/README.md, knowledge). Results are unchanged: this is where bytes live, not what they are.
 *
 * Rows written before keep their layout until their document is indexed again (a re-crawl or
 * re-import rewrites its chunks): changing the setting rewrites nothing, so the upgrade is instant.
 */
export function searchLayout(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      await sql`alter table chunks alter column tsv set storage main, alter column head_tsv set storage main`.execute(
        db,
      );
    },
  };
}
