/**
 * User text -> the words a full-text query ORs together. Only letters, digits and combining
 * marks survive, so nothing a visitor types can reach FTS5's or to_tsquery's syntax (quotes, *,
 * NEAR, -, :, parentheses, ^, |, &, !); PostgreSQL even gets each word as its own to_tsquery.
 * An AND of every word finds nothing for a natural question ("how do I ..."), so the words are
 * ORed and ranking rewards passages that match more (and rarer) of them; stopwords are dropped
 * because they match everything and rank nothing.
 */
import { stemmer } from 'stemmer';

/** PostgreSQL's (Snowball's) English list, so both dialects drop the same words. */
const SNOWBALL = `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
  her hers herself it its itself they them their theirs themselves what which who whom this that these those am is
  are was were be been being have has had having do does did doing a an the and but if or because as until while of
  at by for with about against between into through during before after above below to from up down in out on off
  over under again further then once here there when where why how all any both each few more most other some such
  no nor not only own same so than too very s t can will just don should now`;

/**
 * Words of questions and contractions that carry no topic ("how can I ...", "is there a way to
 * ...", "doesn't"); generic to any corpus, not tuned to one.
 */
const QUESTION_WORDS = `would could may might must shall also ever via want wants wanted need needs needed way ways
  possible something anything thing things someone anyone let lets able get getting got make sure tell know else
  like one whether please instead without doesn isn aren wasn weren hasn haven hadn won wouldn shouldn couldn didn
  ll ve re d m e g ie eg etc`;

export const STOPWORDS: ReadonlySet<string> = new Set(`${SNOWBALL} ${QUESTION_WORDS}`.split(/\s+/).filter(Boolean));

/** At most this many words reach the index: a pasted essay must not become a 5,000-term query. */
export const MAX_TERMS = 32;

/** The distinct, lower-cased, non-stopword words of `text`, in order of first appearance. */
export function searchTerms(text: string): string[] {
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const word of wordsOf(text)) {
    if (!isContent(word) || seen.has(word)) continue;
    seen.add(word);
    terms.push(word);
    if (terms.length === MAX_TERMS) break;
  }
  return terms;
}

/**
 * The words of `text` as queries and the extra index tokens see them: NFKC, lower case, runs of
 * letters, digits and marks that start with a letter or digit (a leading mark, left after a
 * stripped symbol, is not a word start for either tokenizer). ASCII text, nearly every chunk,
 * takes a plain regex: the same words, several times faster than Unicode property classes
 * (ingestion runs this over every word of every chunk).
 */
const ASCII = /^[\x00-\x7f]*$/;
const wordsOf = (text: string): string[] =>
  (ASCII.test(text)
    ? text.toLowerCase().match(/[a-z0-9]+/g)
    : text
        .normalize('NFKC')
        .toLowerCase()
        .match(/[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu)) ?? [];
/** Not a stopword, and not a lone Latin letter (an initial or a list marker). */
const isContent = (w: string) => !STOPWORDS.has(w) && !(w.length === 1 && w >= 'a' && w <= 'z');

/** At most this many word pairs join a query. */
export const MAX_PAIRS = 16;

/**
 * Adjacent content-word pairs of `text` ("query string", "url params"), for phrase matching: a
 * passage holding the user's words side by side is usually about the same thing. Only words
 * adjacent in the question pair up (never across a stopword).
 */
export function searchPairs(text: string): [string, string][] {
  const pairs = new Map<string, [string, string]>();
  const w = wordsOf(text);
  for (let i = 0; i + 1 < w.length && pairs.size < MAX_PAIRS; i++) {
    if (isContent(w[i]) && isContent(w[i + 1]) && w[i] !== w[i + 1]) pairs.set(`${w[i]} ${w[i + 1]}`, [w[i], w[i + 1]]);
  }
  return [...pairs.values()];
}

/**
 * One index token for a pair of adjacent words: both words stemmed (so "routes handlers" and
 * "route handler" meet) and joined by U+01C2 "ǂ", a letter to FTS5's unicode61 tokenizer, so the
 * pair stays one token that no single word can match. SQLite indexes these tokens in a column of
 * their own (`extra`, migration 0011), so a pair is one short doclist instead of a phrase that
 * intersects two long ones, and its document frequency is known (fts5vocab) instead of counted
 * per search.
 */
export function pairToken(a: string, b: string): string {
  return `${stem(a)}${MARK}${stem(b)}`;
}

/**
 * The index token saying "this word is in the chunk's title or heading path" (`ǂroute`): the
 * rows where a common word weighs most, found without walking every row of the word.
 */
export function headToken(word: string): string {
  return `${MARK}${stem(word)}`;
}

const MARK = '\u01c2';

const stems = new Map<string, string>();
/** Porter stems, remembered: ingestion stems every word of every chunk, from a small vocabulary. */
function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    s = stemmer(word);
    if (stems.size > 100_000) stems.clear();
    stems.set(word, s);
  }
  return s;
}

/**
 * A chunk's extra index tokens, as SQLite's `extra` column stores them: its title's pairs
 * `titleRepeat` times, its heading path's (pairs never cross from one heading to the next)
 * `headingRepeat` times, its text's pairs, then one head token per distinct content word of the
 * title and headings. Repeating stands in for the column weights words get (bm25 adds a weight
 * per occurrence) without three more columns; the column is not part of a row's length in the
 * ranking (parley_rank.c), so repeats do not make a chunk look longer.
 */
export function extraTokens(
  chunk: { title: string; headingPath: string[]; text: string },
  titleRepeat: number,
  headingRepeat: number,
): string {
  // Adjacent content words of each text, in order (repeats included), never across a stopword.
  const pairs = (text: string) => {
    const w = wordsOf(text);
    // Each word's stem once (null: not a content word), then the pairs: what pairToken makes.
    const st = w.map((x) => (isContent(x) ? stem(x) : null));
    const out: string[] = [];
    for (let i = 0; i + 1 < w.length; i++)
      if (st[i] !== null && st[i + 1] !== null && w[i] !== w[i + 1]) out.push(`${st[i]}${MARK}${st[i + 1]}`);
    return out;
  };
  const title = pairs(chunk.title);
  const heading = chunk.headingPath.flatMap(pairs);
  const out: string[] = [];
  for (let i = 0; i < titleRepeat; i++) out.push(...title);
  for (let i = 0; i < headingRepeat; i++) out.push(...heading);
  out.push(...pairs(chunk.text));
  const heads = new Set(
    [chunk.title, ...chunk.headingPath].flatMap((t) => wordsOf(t).filter(isContent)).map(headToken),
  );
  out.push(...heads);
  return out.join(' ');
}

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
export const chunkExtraTokens = (c: { title: string; headingPath: string[]; text: string }) =>
  extraTokens(c, WEIGHTS.title, WEIGHTS.heading);

/** chunks_fts columns: title, heading, text, chatbot token, extra; the first three make a row's length. */
export const FTS_WEIGHTS = [WEIGHTS.title, WEIGHTS.heading, WEIGHTS.text, 0, 1] as const;
export const LENGTH_COLUMNS = 3;
export const PG_WEIGHTS = '{0.5,0,0.75,1}';
