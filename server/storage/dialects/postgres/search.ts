/**
 * PostgreSQL's search plan: each word's document frequency in the chatbot, and which words bring
 * candidates. The same rule as SQLite's planner (sqlite/search.ts): past a budget of summed
 * frequencies, candidates come from the rarest words only and every word still scores them.
 *
 * A word too common to bring all its rows brings those with it in their title or a heading
 * (`head_tsv`, migration 0012), where it weighs most, while they fit the budget.
 *
 * Frequencies are counted up to CANDIDATE_BUDGET + 1 rows (counting stays bounded); past that,
 * ANALYZE's statistics (pg_stats.most_common_elems) estimate them, and a word those statistics
 * already prove past the budget in the chatbot is not counted at all (the same figure, without
 * reading its rows). Counting costs a heap scan per word, so counts are remembered per
 * chatbot and word for a minute, like the chatbot's chunk count: a minute-old figure ranks as
 * well, and the common words, the costliest to count, are the ones questions repeat.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../tables.js';
import { ttlCache } from '../../ttl-cache.js';

/** Most rows a search ranks before it drops its most common words from candidate generation. */
export const CANDIDATE_BUDGET = 4000;

/** How far past the budget ANALYZE's lower bound of a word's rows must be to skip counting them. */
const SURE_MARGIN = 1.5;

export interface PgSearchPlan {
  /** Chunks of the chatbot (BM25's N). */
  n: number;
  /** Every word that can match (PostgreSQL's parser keeps a lexeme of it), with its frequency. */
  words: { w: string; df: number }[];
  /** The words whose rows are the candidates. */
  candidates: string[];
  /** The words whose rows with them in the title or a heading are candidates too (head_tsv). */
  headCandidates: string[];
}

export function createPgPlanner(db: Kysely<Database>, budget = CANDIDATE_BUDGET) {
  const counts = ttlCache<number | null>();
  const headCounts = ttlCache<number>();
  const sizes = ttlCache<number>();

  function chunkCount(chatbotId: string): Promise<number> {
    return sizes.one(chatbotId, async () => {
      const { rows } = await sql<{ n: number | string }>`
        select coalesce(sum(chunk_count), 0) as n from documents where chatbot_id = ${chatbotId}`.execute(db);
      return Number(rows[0]?.n ?? 0);
    });
  }

  /**
   * Each word's rows in the chatbot holding it in `column`, counted up to the budget + 1 (df), and
   * ANALYZE's share of the table's rows holding it (freq). A word is counted unless ANALYZE's
   * figures already put it past the budget in this chatbot (df null then): of the table's rows
   * (reltuples) a share `freq` hold it, and at most the other chatbots' rows (reltuples - n) are not
   * this one's. A count past the budget is worth no more than that, and it is the costly count: the
   * planner reads a common word's rows one by one until the LIMIT (130-170 ms at 100k chunks).
   * Words PostgreSQL's parser turns into no lexeme are left out.
   */
  async function countWords(column: 'tsv' | 'head_tsv', chatbotId: string, words: string[], n: number) {
    const { rows } = await sql<{ w: string; df: number | string | null; freq: number | string }>`
      with y as materialized (
        select w, to_tsquery('english', w) as q, (tsvector_to_array(to_tsvector('english', w)))[1] as lexeme
        from unnest(${words}::text[]) as u(w)),
      st as materialized (
        select e.lexeme, e.freq from pg_stats s,
               unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as e(lexeme, freq)
        where s.schemaname = current_schema() and s.tablename = 'chunks' and s.attname = ${column}),
      x as materialized (
        select y.w, y.q, coalesce((select max(st.freq) from st where st.lexeme = y.lexeme), 0) as freq
        from y where numnode(y.q) > 0),
      t as (select greatest(reltuples, 0)::float8 as r from pg_class where oid = 'chunks'::regclass)
      select x.w, x.freq,
             case when t.r >= ${n}::float8 and x.freq * t.r - (t.r - ${n}::float8) > ${budget * SURE_MARGIN}::float8
               then null
               else (select count(*) from (select 1 from chunks c
                                           where c.chatbot_id = ${chatbotId} and ${sql.ref(`c.${column}`)} @@ x.q
                                           limit ${budget + 1}) s) end as df
      from x, t`.execute(db);
    return rows.map((r) => ({ w: r.w, df: r.df === null ? budget + 1 : Number(r.df), freq: Number(r.freq) }));
  }

  /** df per word; null for a word PostgreSQL's parser turns into no lexeme (it cannot match). */
  function frequencies(chatbotId: string, terms: string[], n: number): Promise<Map<string, number | null>> {
    return counts.many(
      terms,
      async (missing) =>
        new Map(
          (await countWords('tsv', chatbotId, missing, n)).map(({ w, df, freq }) => [
            w,
            // Past the budget, ANALYZE's estimate.
            df > budget ? Math.max(df, freq * n) : df,
          ]),
        ),
      null,
      chatbotId,
    );
  }

  /** Rows of the chatbot with the word in their title or heading path, up to the budget + 1. */
  function headFrequencies(chatbotId: string, terms: string[], n: number): Promise<Map<string, number>> {
    return headCounts.many(
      terms,
      async (missing) => new Map((await countWords('head_tsv', chatbotId, missing, n)).map(({ w, df }) => [w, df])),
      0,
      chatbotId,
    );
  }

  return {
    async plan(chatbotId: string, terms: string[]): Promise<PgSearchPlan> {
      const n = await chunkCount(chatbotId);
      const dfs = await frequencies(chatbotId, terms, n);
      const words = terms.flatMap((w) => {
        const df = dfs.get(w);
        return df === null || df === undefined ? [] : [{ w, df }];
      });
      // Rarest first (ties by the word, for a stable plan), while their rows fit the budget.
      const order = [...words].sort((a, b) => a.df - b.df || (a.w < b.w ? -1 : a.w > b.w ? 1 : 0));
      const candidates: string[] = [];
      const headCandidates: string[] = [];
      let rows = 0;
      let i = 0;
      for (; i < order.length && rows + order[i].df <= budget; i++) {
        candidates.push(order[i].w);
        rows += order[i].df;
      }
      const rest = order.slice(i);
      if (rest.length) {
        const heads = await headFrequencies(
          chatbotId,
          rest.map((x) => x.w),
          n,
        );
        for (const { w } of rest) {
          const df = heads.get(w) ?? 0;
          if (df > 0 && rows + df <= budget) {
            headCandidates.push(w);
            rows += df;
          }
        }
        // Nothing fits: the cheapest of the words' rows or their head rows, anyway.
        if (!candidates.length && !headCandidates.length) {
          const cheapest = rest
            .flatMap(({ w, df }) => [
              { w, df, head: false },
              { w, df: heads.get(w) ?? 0, head: true },
            ])
            .filter((x) => x.df > 0)
            .sort((a, b) => a.df - b.df)[0];
          if (cheapest?.head) headCandidates.push(cheapest.w);
          else candidates.push(cheapest?.w ?? rest[0].w);
        }
      }
      return { n, words, candidates, headCandidates };
    },
  };
}
