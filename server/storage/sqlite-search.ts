/**
 * The FTS5 MATCH expression of a search, planned so its cost stays bounded on large indexes.
 *
 * FTS5 scores every row a query matches, and the words of a natural question are often common
 * ("request", "handler", "use"): at 100k chunks an OR of them matches half the index and bm25
 * runs 50,000 times. So, when the words' document frequencies add up to more than
 * CANDIDATE_BUDGET rows, candidates come only from the rarest words and the word pairs, and
 * the common words still score those candidates:
 *
 *   chatbot : "<id>" AND (rare1 OR rare2 OR "word pair" ...) AND (common1 OR common2 OR chatbot : "<id>")
 *
 * The last group is true for every candidate (the chatbot token, weight 0 in bm25, is always
 * there), so it filters nothing and only adds the common words' bm25 share. Below the budget
 * (every chatbot of a few thousand chunks) the plan is the plain OR of all words and pairs.
 *
 * Document frequencies come from an fts5vocab table over chunks_fts for the stemmed words; stems
 * from FTS5's own tokenizer (a scratch FTS5 table), so they match the index. Both live in the
 * connection's temp schema, created on first use: nothing to migrate.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from './tables.js';

/** Most rows a search scores before it drops its most common words from candidate generation. */
export const CANDIDATE_BUDGET = 4000;
/** Document frequencies change slowly; a minute-old figure plans as well. */
const DF_TTL_MS = 60_000;
const DF_CACHE_MAX = 5000;

const quote = (t: string) => `"${t}"`;

export interface MatchPlan {
  match: string;
  /** Words left out of candidate generation (they still score), for tests and explain. */
  scoringOnly: string[];
  /** Words in more than half the index: left out entirely (their bm25 weight is ~0). */
  ignored?: string[];
}

export function createFts5Planner(db: Kysely<Database>, budget = CANDIDATE_BUDGET) {
  const dfCache = new Map<string, { df: number; at: number }>();
  let probeReady = false;
  let probeCalls = 0;

  /** FTS5's stem of each word (porter unicode61 remove_diacritics 2, as chunks_fts). */
  async function stems(words: string[]): Promise<string[][]> {
    if (!probeReady) {
      await sql`create virtual table if not exists temp.parley_stem using fts5(w, tokenize = 'porter unicode61 remove_diacritics 2')`.execute(db);
      await sql`create virtual table if not exists temp.parley_stem_v using fts5vocab(temp, parley_stem, 'instance')`.execute(db);
      await sql`create virtual table if not exists temp.chunks_fts_vocab using fts5vocab(main, chunks_fts, 'row')`.execute(db);
      probeReady = true;
    }
    // Each call writes its own rowid range, so concurrent searches on the one connection never
    // read or delete each other's words.
    const base = (probeCalls = (probeCalls + 1) % 1_000_000) * 64;
    const rows = words.slice(0, 63).map((w, i) => sql`(${base + i + 1}, ${w})`);
    await sql`insert into temp.parley_stem (rowid, w) values ${sql.join(rows)}`.execute(db);
    const { rows: found } = await sql<{ doc: number; term: string }>`
      select doc, term from temp.parley_stem_v where doc > ${base} and doc <= ${base + 63} order by doc, offset`.execute(db);
    await sql`delete from temp.parley_stem where rowid > ${base} and rowid <= ${base + 63}`.execute(db);
    const out: string[][] = words.map(() => []);
    for (const r of found) out[Number(r.doc) - base - 1]?.push(r.term);
    return out;
  }

  /** Rows of chunks_fts holding the stem (every chatbot's: FTS5 keeps one set of statistics). */
  async function frequencies(terms: string[]): Promise<Map<string, number>> {
    const now = Date.now();
    const out = new Map<string, number>();
    const missing: string[] = [];
    for (const t of terms) {
      const hit = dfCache.get(t);
      if (hit && now - hit.at < DF_TTL_MS) out.set(t, hit.df);
      else missing.push(t);
    }
    if (missing.length) {
      const { rows } = await sql<{ term: string; doc: number }>`
        select term, doc from temp.chunks_fts_vocab where term in (${sql.join(missing)})`.execute(db);
      const got = new Map(rows.map((r) => [r.term, Number(r.doc)]));
      if (dfCache.size > DF_CACHE_MAX) dfCache.clear();
      for (const t of missing) {
        const df = got.get(t) ?? 0;
        dfCache.set(t, { df, at: now });
        out.set(t, df);
      }
    }
    return out;
  }

  let rows = { n: 0, at: 0 };
  /** Rows in the index (every chatbot's, as FTS5's own statistics), refreshed like the frequencies. */
  async function rowCount(): Promise<number> {
    const now = Date.now();
    if (now - rows.at > DF_TTL_MS) {
      const r = await sql<{ n: number }>`select count(*) as n from chunks`.execute(db);
      rows = { n: Number(r.rows[0]?.n ?? 0), at: now };
    }
    return rows.n;
  }

  return {
    async plan(chatbotToken: string, terms: string[], pairs: [string, string][]): Promise<MatchPlan> {
      const chatbot = `chatbot : "${chatbotToken}"`;
      const all = [...terms.map(quote), ...pairs.map(([a, b]) => quote(`${a} ${b}`))];
      const plain = { match: `${chatbot} AND (${all.join(' OR ')})`, scoringOnly: [] };
      if (terms.length < 2) return plain;

      // The chatbot token goes through the tokenizer too: the index holds its indexed form.
      const stemmed = await stems([...terms, chatbotToken]);
      const token = stemmed.pop()!;
      const df = await frequencies([...new Set(stemmed.flat().concat(token))]);
      const total = await rowCount();
      // bm25 counts every row of every phrase to weigh it; a chatbot that holds the whole index
      // (one big chatbot) filters nothing, so its token is left out, results unchanged.
      const filter = token.length === 1 && (df.get(token[0]) ?? 0) >= total ? null : chatbot;
      const and = (...parts: string[]) => [filter, ...parts].filter(Boolean).join(' AND ');
      // A word's frequency is its most frequent token's (a word may yield several tokens).
      let words = terms.map((t, i) => ({ t, df: Math.max(0, ...stemmed[i].map((x) => df.get(x) ?? 0)) }));
      if (words.reduce((n, w) => n + w.df, 0) <= budget) return plain;
      // bm25 gives a word in more than half the rows an IDF of ~0 (FTS5 clamps log((N-n+.5)/(n+.5))
      // to 1e-6): it cannot change the order, yet reading its doclist to score it costs the most.
      const informative = words.filter((w) => w.df * 2 <= total);
      const dropped = words.filter((w) => w.df * 2 > total).map((w) => w.t);
      if (informative.length) words = informative;

      words.sort((a, b) => a.df - b.df);
      const rare: string[] = [];
      const common: string[] = [];
      let rows = 0;
      for (const w of words) {
        if (rare.length && rows + w.df > budget) common.push(w.t);
        else {
          rare.push(w.t);
          rows += w.df;
        }
      }
      // Pairs always bring candidates: a passage with two of the words side by side is the
      // likeliest answer, whatever the words' frequencies (measured: leaving them out or
      // budgeting them cost hit@3 at 100k chunks).
      const candidates = [...rare.map(quote), ...pairs.map(([a, b]) => quote(`${a} ${b}`))];
      // The scoring-only group must hold for every candidate: ORed with the chatbot token, which
      // every candidate has and which weighs 0 in bm25 (so the order is unchanged).
      const scoring = common.length ? [`(${[...common.map(quote), chatbot].join(' OR ')})`] : [];
      return {
        match: and(`(${candidates.join(' OR ')})`, ...scoring),
        scoringOnly: common,
        ...(informative.length ? { ignored: dropped } : {}),
      };
    },
  };
}
