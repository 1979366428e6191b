/**
 * The FTS5 MATCH expression of a search, planned so its cost stays bounded on large indexes, and
 * the document frequency of each of its phrases, so the ranking need not count them per search.
 *
 * A question becomes its words and its adjacent word pairs. Pairs are single tokens of the
 * `pairs` column (search-terms.ts `pairToken`, migration 0011): one short doclist each, not a
 * phrase intersecting two long ones.
 *
 * FTS5 scores every row a query matches, and the words of a natural question are often common
 * ("request", "handler", "use"): at 100k chunks an OR of them matches half the index. So, when
 * the words' document frequencies add up to more than CANDIDATE_BUDGET rows, candidates come
 * only from the rarest words and the pairs, and the common words still score those candidates:
 *
 *   chatbot : "<id>" AND (rare1 OR rare2 OR "pairǂtoken" ...) AND (common1 OR common2 OR chatbot : "<id>")
 *
 * The last group is true for every candidate (the chatbot token, weight 0, is always there), so
 * it filters nothing and only adds the common words' share of the score. Below the budget (every
 * chatbot of a few thousand chunks) the plan is the plain OR of all words and pairs.
 *
 * The frequencies feed parley_bm25 (rank/parley_rank.c): FTS5's own bm25() walks every row of
 * every phrase, each search, to count them. They come from an fts5vocab table over chunks_fts
 * (cached for a minute), stems from FTS5's own tokenizer (a scratch FTS5 table), so they match
 * the index. Both live in the
 * connection's temp schema, created on first use: nothing to migrate.
 */
import { type Kysely, sql } from 'kysely';
import { headToken, pairToken } from '../../search-terms.js';
import { ttlCache } from '../../ttl-cache.js';
import type { Database } from '../../tables.js';

/**
 * Most rows a search scores before it drops its most common words from candidate generation.
 * Chosen with bench/knowledge.ts against the exhaustive ranking (bench/README.md, knowledge).
 */
export const CANDIDATE_BUDGET = 8000;

export interface MatchPlan {
  match: string;
  /** Rows holding each phrase of `match`, in the order FTS5 numbers them (left to right). */
  frequencies: number[];
  /** Words left out of candidate generation (they still score), for tests and explain. */
  scoringOnly: string[];
  /** Words in more than half the index: left out entirely (their weight is ~0). */
  ignored?: string[];
}

interface Phrase {
  text: string;
  df: number;
}

const quote = (t: string) => `"${t}"`;

/** The chatbot's one-token key in chunks_fts (`hex(chatbot_id)`, as the triggers write it). */
export const chatbotTokenOf = (chatbotId: string) => Buffer.from(chatbotId, 'utf8').toString('hex').toUpperCase();

export function createFts5Planner(db: Kysely<Database>, budget = CANDIDATE_BUDGET) {
  // Document frequencies and the row count change slowly: a minute-old figure plans and ranks as well.
  const dfCache = ttlCache<number>();
  const rowsCache = ttlCache<number>();
  let probeReady = false;
  let probeCalls = 0;

  /** FTS5's tokens of each string (porter unicode61 remove_diacritics 2, as chunks_fts). */
  async function tokens(words: string[]): Promise<string[][]> {
    if (!probeReady) {
      await sql`create virtual table if not exists temp.parley_stem using fts5(w, tokenize = 'porter unicode61 remove_diacritics 2')`.execute(
        db,
      );
      await sql`create virtual table if not exists temp.parley_stem_v using fts5vocab(temp, parley_stem, 'instance')`.execute(
        db,
      );
      await sql`create virtual table if not exists temp.chunks_fts_vocab using fts5vocab(main, chunks_fts, 'row')`.execute(
        db,
      );
      probeReady = true;
    }
    // Each call writes its own rowid range, so concurrent searches on the one connection never
    // read or delete each other's words.
    const base = (probeCalls = (probeCalls + 1) % 1_000_000) * 128;
    const rows = words.slice(0, 127).map((w, i) => sql`(${base + i + 1}, ${w})`);
    await sql`insert into temp.parley_stem (rowid, w) values ${sql.join(rows)}`.execute(db);
    const { rows: found } = await sql<{ doc: number; term: string }>`
      select doc, term from temp.parley_stem_v where doc > ${base} and doc <= ${base + 127} order by doc, offset`.execute(
      db,
    );
    await sql`delete from temp.parley_stem where rowid > ${base} and rowid <= ${base + 127}`.execute(db);
    const out: string[][] = words.map(() => []);
    for (const r of found) out[Number(r.doc) - base - 1]?.push(r.term);
    return out;
  }

  /** Rows of chunks_fts holding the token (every chatbot's: FTS5 keeps one set of statistics). */
  function frequencies(terms: string[]): Promise<Map<string, number>> {
    return dfCache.many(
      terms,
      async (missing) => {
        const { rows } = await sql<{ term: string; doc: number }>`
        select term, doc from temp.chunks_fts_vocab where term in (${sql.join(missing)})`.execute(db);
        return new Map(rows.map((r) => [r.term, Number(r.doc)]));
      },
      0,
    );
  }

  /** Whether any other chatbot has a chunk (two seeks on the chatbot_id index). */
  async function othersHaveRows(chatbotId: string): Promise<boolean> {
    const { rows } = await sql<{ other: number }>`
      select exists(select 1 from chunks where chatbot_id < ${chatbotId})
          or exists(select 1 from chunks where chatbot_id > ${chatbotId}) as other`.execute(db);
    return Number(rows[0]?.other) === 1;
  }

  /** Rows in the index (every chatbot's, as FTS5's own statistics). */
  function rowCount(): Promise<number> {
    return rowsCache.one('', async () => {
      const r = await sql<{ n: number }>`select count(*) as n from chunks`.execute(db);
      return Number(r.rows[0]?.n ?? 0);
    });
  }

  return {
    async plan(chatbotId: string, terms: string[], pairs: [string, string][]): Promise<MatchPlan> {
      const chatbotToken = chatbotTokenOf(chatbotId);
      const pairTokens = [...new Set(pairs.map(([a, b]) => pairToken(a, b)))];
      // The chatbot token goes through the tokenizer too: the index holds its indexed form.
      const tokenized = await tokens([...terms, ...pairTokens, ...terms.map(headToken), chatbotToken]);
      const chatbotTokens = tokenized.pop()!;
      const headTokens = tokenized.splice(terms.length + pairTokens.length);
      const df = await frequencies([...new Set(tokenized.flat().concat(chatbotTokens))]);
      const total = await rowCount();
      const dfOf = (ts: string[]) => ts.map((t) => df.get(t) ?? 0);
      // A word that yields several tokens is a phrase: it is rarer than each of them (the least
      // frequent bounds its rows), while it costs as much to find as the most frequent. A word
      // with no token at all cannot match and stays out (FTS5 would still number it).
      let words = terms
        .map((t, i) => ({ t, cost: Math.max(0, ...dfOf(tokenized[i])), df: Math.min(...dfOf(tokenized[i])) }))
        .filter((_, i) => tokenized[i].length > 0);
      const pairPhrases: Phrase[] = pairTokens
        .map((t, i) => ({ text: quote(t), df: Math.min(...dfOf(tokenized[terms.length + i])) }))
        .filter((_, i) => tokenized[terms.length + i].length > 0);
      const chatbot: Phrase = { text: `chatbot : ${quote(chatbotToken)}`, df: Math.min(...dfOf(chatbotTokens)) };
      // A chatbot holding the whole index (one big chatbot) is not filtered: the filter would
      // drop nothing, and matching its token costs a walk over every row. The cached figures
      // only suggest it; an index lookup confirms that no other chatbot has a row right now.
      const filter =
        chatbotTokens.length === 1 && chatbot.df >= total && !(await othersHaveRows(chatbotId)) ? null : chatbot;

      const build = (
        candidates: Phrase[],
        scoring: Phrase[],
        extra: Omit<MatchPlan, 'match' | 'frequencies'>,
      ): MatchPlan => {
        const groups: Phrase[][] = [];
        if (filter) groups.push([filter]);
        groups.push(candidates);
        // The scoring-only group must hold for every candidate: ORed with the chatbot token,
        // which every candidate has and which weighs 0 (so the order is unchanged).
        if (scoring.length) groups.push([...scoring, chatbot]);
        const group = (g: Phrase[]) =>
          g.length === 1 && g === groups[0] && filter ? g[0].text : `(${g.map((p) => p.text).join(' OR ')})`;
        return { match: groups.map(group).join(' AND '), frequencies: groups.flat().map((p) => p.df), ...extra };
      };
      const phrase = (w: { t: string; df: number }): Phrase => ({ text: quote(w.t), df: w.df });

      // Nothing the index could hold: no search at all.
      if (!words.length && !pairPhrases.length) return { match: '', frequencies: [], scoringOnly: [] };
      if (words.reduce((n, w) => n + w.cost, 0) <= budget)
        return build([...words.map(phrase), ...pairPhrases], [], { scoringOnly: [] });

      // A word in more than half the rows has an IDF of ~0 (bm25 clamps log((N-n+.5)/(n+.5)) to
      // 1e-6): it cannot change the order, yet finding and scoring its rows costs the most.
      const informative = words.filter((w) => w.cost * 2 <= total);
      const ignored = words.filter((w) => w.cost * 2 > total).map((w) => w.t);
      if (informative.length) words = informative;

      // Candidates come from the cheapest words and pairs while their rows fit the budget; the
      // rest only score. A pair is a candidate as readily as a word: a passage with two of the
      // words side by side is the likeliest answer.
      type Source = { phrase: Phrase; cost: number; word?: (typeof words)[number] };
      const sources: Source[] = [
        ...words.map((w) => ({ phrase: phrase(w), cost: w.cost, word: w })),
        ...pairPhrases.map((p) => ({ phrase: p, cost: p.df })),
      ].sort((a, b) => a.cost - b.cost);
      const candidates: Phrase[] = [];
      const scoring: Source[] = [];
      let rowsSoFar = 0;
      for (const source of sources) {
        if (rowsSoFar + source.cost <= budget) {
          candidates.push(source.phrase);
          rowsSoFar += source.cost;
        } else scoring.push(source);
      }
      // A word too common to bring all its rows brings those where it is in the title or a
      // heading (its head token, search-terms.ts), while they fit: weighted 4 and 2 against 1 in
      // the text, they are the rows the word ranks first. That phrase is given the frequency of
      // every row (a weight of ~0): the word itself scores them, in the scoring group.
      const headOf = (w: { t: string }) => headTokens[terms.indexOf(w.t)];
      const heads = await frequencies(scoring.flatMap((s) => (s.word ? headOf(s.word) : [])));
      const narrower = scoring.flatMap((s) => {
        if (!s.word || headOf(s.word).length !== 1) return [];
        const cost = heads.get(headOf(s.word)[0]) ?? 0;
        return cost > 0 ? [{ phrase: { text: quote(headToken(s.word.t)), df: total }, cost }] : [];
      });
      for (const n of narrower) {
        if (rowsSoFar + n.cost <= budget) {
          candidates.push(n.phrase);
          rowsSoFar += n.cost;
        }
      }
      // Nothing fits: the cheapest of them brings its rows anyway (a word or pair that does
      // leaves the scoring group: in both, it would count twice).
      if (!candidates.length) {
        const cheapest = [...scoring, ...narrower].sort((a, b) => a.cost - b.cost)[0];
        candidates.push(cheapest.phrase);
        if (scoring.includes(cheapest as Source)) scoring.splice(scoring.indexOf(cheapest as Source), 1);
      }
      return build(
        candidates,
        scoring.map((s) => s.phrase),
        {
          scoringOnly: scoring.flatMap((s) => (s.word ? [s.word.t] : [])),
          ...(informative.length ? { ignored } : {}),
        },
      );
    },
  };
}
