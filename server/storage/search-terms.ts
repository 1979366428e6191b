/**
 * User text -> the words a full-text query ORs together. Only letters, digits and combining
 * marks survive, so nothing a visitor types can reach FTS5's or to_tsquery's syntax (quotes, *,
 * NEAR, -, :, parentheses, ^, |, &, !); PostgreSQL even gets each word as its own to_tsquery.
 * An AND of every word finds nothing for a natural question ("how do I ..."), so the words are
 * ORed and ranking rewards passages that match more (and rarer) of them; stopwords are dropped
 * because they match everything and rank nothing.
 */

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
  const words = text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const raw of words) {
    // A leading mark (after a stripped symbol) is not a word start for either tokenizer.
    const word = raw.replace(/^\p{M}+/u, '');
    if (!word || STOPWORDS.has(word) || seen.has(word)) continue;
    if (/^[a-z]$/.test(word)) continue; // a lone Latin letter is an initial or a list marker
    seen.add(word);
    terms.push(word);
    if (terms.length === MAX_TERMS) break;
  }
  return terms;
}

/** At most this many word pairs join a query. */
export const MAX_PAIRS = 16;

/**
 * Adjacent content-word pairs of `text` ("query string", "url params"), for phrase matching: a
 * passage holding the user's words side by side is usually about the same thing. Only words
 * adjacent in the question pair up (never across a stopword).
 */
export function searchPairs(text: string): [string, string][] {
  const words = (text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).map((w) => w.replace(/^\p{M}+/u, ''));
  const content = (w: string) => !!w && !STOPWORDS.has(w) && !/^[a-z]$/.test(w);
  const pairs = new Map<string, [string, string]>();
  for (let i = 0; i + 1 < words.length && pairs.size < MAX_PAIRS; i++) {
    if (content(words[i]) && content(words[i + 1]) && words[i] !== words[i + 1]) pairs.set(`${words[i]} ${words[i + 1]}`, [words[i], words[i + 1]]);
  }
  return [...pairs.values()];
}
