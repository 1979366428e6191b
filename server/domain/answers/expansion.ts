/**
 * A question mapped onto the chatbot's own vocabulary. Each content word of the question becomes
 * a **concept**: the word's term, plus the base's words it may stand for, each with a weight:
 *
 * - a misspelling ("refnd", "subscripton") absent from the base and from the lexicon: the base's
 *   most frequent word within one edit (two for words of 7+ letters; a swap of neighbours is
 *   one edit), weight TYPO_WEIGHT;
 * - words related in meaning (the lexicon: WordNet's synonyms, broader terms, derived forms) that
 *   the base actually uses, at most MAX_RELATED per word in the lexicon's order, weight
 *   RELATED_WEIGHT. Only words of the base count, so a site's vocabulary maps onto itself:
 *   "purchaser" becomes "buyer" on a site that says buyer, and brings nothing where no page does;
 * - the base's words of the same meaning in another language or inflection (translations.ts:
 *   "lösche" -> "delete", "cancelar" -> "cancelación"), at most MAX_TRANSLATIONS, weight
 *   TRANSLATION_WEIGHT.
 *
 * Retrieval searches the question with these words added; the relevance gate counts a concept
 * covered by a passage holding the word itself (1) or one of its stand-ins (their weight).
 * The constants were chosen on the tuning halves of the answer eval (bench/eval/).
 */
import type { KnowledgeProfile } from './knowledge-profile.js';
import type { Lexicon } from './ports.js';
import { answerWords, asks } from './question-words.js';
import { STOPWORDS, stem, terms, words } from './text.js';
import { baseForms, indexVocabulary, translations, type VocabularyIndex } from './translations.js';

export const TYPO_WEIGHT = 0.9;
export const RELATED_WEIGHT = 0.8;
/** A broader or associated word (WordNet hypernym, holonym, "similar"): weaker evidence than a synonym. */
export const BROADER_WEIGHT = 0.4;
export const MAX_RELATED = 2;
/** A word of the same meaning in another language (translations.ts), or another form of it. */
export const TRANSLATION_WEIGHT = 1;
export const MAX_TRANSLATIONS = 5;

/** Per knowledge version (a new profile comes with every change of the chunks). */
const vocabularies = new WeakMap<KnowledgeProfile, VocabularyIndex>();
function vocabularyOf(profile: KnowledgeProfile): VocabularyIndex {
  let index = vocabularies.get(profile);
  if (!index) vocabularies.set(profile, (index = indexVocabulary(profile.vocabulary)));
  return index;
}

export interface Concept {
  /** The question's word and its term (stem). */
  word: string;
  term: string;
  /**
   * How much the word says about the topic besides its rarity: a noun names the thing asked
   * about ("coffee", "ropes"), a verb or an adverb mostly how it is asked ("see", "rather").
   */
  salience: number;
  /** Term -> weight in 0..1: the term itself 1, stand-ins less. */
  alternatives: Map<string, number>;
  /** Words of the base to add to the search for this concept. */
  searchWords: string[];
  /** Neither the base nor the lexicon knows the word and it is no misspelling of a base word: a name or a thing the base never mentions ("Bitcoin", "QuickBooks"). */
  unknown?: boolean;
  /** A noun (by the lexicon) the base never uses. */
  absentNoun?: boolean;
}

/** Damerau-Levenshtein distance (adjacent swaps count one), giving up past `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push(new Array<number>(b.length + 1).fill(0));
    rows[i][0] = i;
  }
  for (let j = 0; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    let best = Infinity;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2][j - 2] + 1);
      rows[i][j] = d;
      if (d < best) best = d;
    }
    if (best > max) return max + 1;
  }
  return rows[a.length][b.length];
}

/** The base's word a misspelt `word` most likely meant, or null. */
export function correction(word: string, profile: KnowledgeProfile): string | null {
  if (word.length < 4 || /\d/.test(word)) return null;
  const max = word.length >= 7 ? 2 : 1;
  let best: string | null = null;
  let bestDistance = max + 1;
  let bestCount = 0;
  for (const [candidate, count] of profile.vocabulary) {
    if (Math.abs(candidate.length - word.length) > max || (candidate[0] !== word[0] && candidate[1] !== word[1]))
      continue;
    const d = editDistance(word, candidate, max);
    if (d < bestDistance || (d === bestDistance && count > bestCount)) {
      best = candidate;
      bestDistance = d;
      bestCount = count;
    }
  }
  return bestDistance <= max ? best : null;
}

export interface ExpansionOptions {
  typoWeight?: number;
  relatedWeight?: number;
  broaderWeight?: number;
  maxRelated?: number;
  nounSalience?: number;
  otherSalience?: number;
  /** Weight of the words answering what a question word asks for ("how long" -> days), in the gate; 0: searched only. */
  cueWeight?: number;
  /** Salience of such a concept in the gate (0: not counted). */
  cueSalience?: number;
  /** At most this many answer words searched per kind. */
  maxCueWords?: number;
  /** Weight of the base's words for the same meaning in another language (0: none added). */
  translationWeight?: number;
  maxTranslations?: number;
  /** Weight of a multiword expression's synonyms ("for good" -> permanently) as stand-ins of its words (0: none). */
  phraseWeight?: number;
}

export const PHRASE_WEIGHT = 0.8;

export const CUE_WEIGHT = 0.5;
export const CUE_SALIENCE = 0;
export const MAX_CUE_WORDS = 6;

/** Salience of nouns and of verbs, adjectives and adverbs; words the lexicon does not know count 1. */
export const NOUN_SALIENCE = 2;
export const OTHER_SALIENCE = 0.6;

/** The question's concepts; without a profile (no statistics) every concept is just its word. */
export function questionConcepts(
  question: string,
  profile: KnowledgeProfile | null,
  lexicon: Lexicon | null,
  options: ExpansionOptions = {},
): Concept[] {
  const typoWeight = options.typoWeight ?? TYPO_WEIGHT;
  const relatedWeight = options.relatedWeight ?? RELATED_WEIGHT;
  const broaderWeight = options.broaderWeight ?? BROADER_WEIGHT;
  const maxRelated = options.maxRelated ?? MAX_RELATED;
  const concepts = new Map<string, Concept>();
  for (const word of words(question)) {
    const [term] = terms(word);
    if (!term || concepts.has(term)) continue;
    const pos = lexicon?.partOfSpeech?.(word) ?? null;
    const salience =
      pos === null
        ? 1
        : pos === 'noun'
          ? (options.nounSalience ?? NOUN_SALIENCE)
          : (options.otherSalience ?? OTHER_SALIENCE);
    const concept: Concept = { word, term, salience, alternatives: new Map([[term, 1]]), searchWords: [] };
    concepts.set(term, concept);
    if (!profile) continue;
    if (pos === 'noun' && !profile.df.has(term)) concept.absentNoun = true;
    // A stand-in of weight 0 is searched for but does not count as covering the concept.
    const add = (w: string, weight: number) => {
      const t = stem(w);
      if (!profile.df.has(t) || concept.alternatives.has(t) || concept.searchWords.includes(w)) return false;
      if (weight > 0) concept.alternatives.set(t, weight);
      concept.searchWords.push(w);
      return true;
    };
    // The base's words for the same meaning, in its languages: "lösche" finds "delete", "deposit" finds "fianza".
    let translated = 0;
    const translationWeight = options.translationWeight ?? TRANSLATION_WEIGHT;
    if (translationWeight > 0) {
      const index = vocabularyOf(profile);
      for (const other of translations(word)) {
        for (const w of baseForms(other, index)) {
          if (translated >= (options.maxTranslations ?? MAX_TRANSLATIONS)) break;
          if (stem(w) !== term && add(w, translationWeight)) translated++;
        }
      }
    }
    const related = lexicon ? lexicon.related(word) : [];
    let base = word;
    // Only a word the lexicon does not know is taken for a misspelling ("rice" is not "nice").
    if (
      lexicon &&
      !translated &&
      !profile.df.has(term) &&
      related.length === 0 &&
      lexicon.partOfSpeech?.(word) == null
    ) {
      const fixed = correction(word, profile);
      if (fixed && add(fixed, typoWeight)) base = fixed;
      else concept.unknown = true;
    }
    if (!lexicon) continue;
    let added = 0;
    for (const phrase of base === word ? related : lexicon.related(base)) {
      // Single words only: a compound's parts mean something else ("football game" is not "game").
      const w = phrase.word;
      if (added >= maxRelated) break;
      if (/[\s-]/.test(w) || w.length < 3 || STOPWORDS.has(w) || stem(w) === term) continue;
      if (add(w, (phrase.close ? relatedWeight : broaderWeight) * (base === word ? 1 : typoWeight))) added++;
      if (added >= maxRelated) break;
    }
  }
  if (profile && lexicon && (options.phraseWeight ?? PHRASE_WEIGHT) > 0)
    addPhrases(question, concepts, profile, lexicon, options);
  if (profile) {
    for (const kind of asks(question)) {
      const concept: Concept = {
        word: kind,
        term: `⟨${kind}⟩`,
        salience: options.cueSalience ?? CUE_SALIENCE,
        alternatives: new Map(),
        searchWords: [],
      };
      for (const w of answerWords(kind)) {
        if (concept.searchWords.length >= (options.maxCueWords ?? MAX_CUE_WORDS)) break;
        const t = stem(w);
        if (!profile.df.has(t) || concept.alternatives.has(t)) continue;
        concept.alternatives.set(t, options.cueWeight ?? CUE_WEIGHT);
        concept.searchWords.push(w);
      }
      if (concept.searchWords.length) concepts.set(concept.term, concept);
    }
  }
  return [...concepts.values()];
}

/** A few irregular past forms that open English phrasal verbs ("laid off", "gave back"). */
const IRREGULAR: Record<string, string> = {
  laid: 'lay',
  gave: 'give',
  given: 'give',
  took: 'take',
  taken: 'take',
  got: 'get',
  went: 'go',
  gone: 'go',
  came: 'come',
  broke: 'break',
  broken: 'break',
  left: 'leave',
  put: 'put',
  set: 'set',
  shut: 'shut',
  threw: 'throw',
  thrown: 'throw',
  ran: 'run',
  sent: 'send',
  paid: 'pay',
  found: 'find',
  made: 'make',
  kept: 'keep',
  held: 'hold',
};

/** Base forms an inflected first word of a phrase may have: "passed" -> pass, "signing" -> sign. */
function firstWordForms(word: string): string[] {
  const out = [word];
  if (IRREGULAR[word]) out.push(IRREGULAR[word]);
  for (const [suffix, repl] of [
    ['ied', 'y'],
    ['ies', 'y'],
    ['ed', ''],
    ['ed', 'e'],
    ['ing', ''],
    ['ing', 'e'],
    ['es', ''],
    ['s', ''],
  ] as const)
    if (word.length > suffix.length + 2 && word.endsWith(suffix)) out.push(word.slice(0, -suffix.length) + repl);
  return out;
}

/**
 * Multiword expressions WordNet lists ("for good" = permanently, "pass away" = die, "give back"
 * = refund, "in person", "drop by"): two or three adjacent words of the question, stopwords
 * included, looked up as one lemma; its single words the base uses become stand-ins of the
 * phrase's content words (a phrase of stopwords only gets a concept searched but not weighed).
 */
function addPhrases(
  question: string,
  concepts: Map<string, Concept>,
  profile: KnowledgeProfile,
  lexicon: Lexicon,
  options: ExpansionOptions,
) {
  const ws = words(question);
  const weight = options.phraseWeight ?? PHRASE_WEIGHT;
  // Overlapping windows all count ("got laid" must not hide "laid off"): only the base's words are kept.
  for (const n of [3, 2]) {
    for (let i = 0; i + n <= ws.length; i++) {
      const window = ws.slice(i, i + n);
      if (window.some((w) => /\d/.test(w))) continue;
      let related: { word: string; close: boolean }[] = [];
      for (const first of firstWordForms(window[0])) {
        related = lexicon.related([first, ...window.slice(1)].join('_'));
        if (related.length) break;
      }
      const singles = related.filter(
        (r) =>
          !/[\s-]/.test(r.word) &&
          r.word.length >= 3 &&
          !STOPWORDS.has(r.word) &&
          !window.includes(r.word) &&
          profile.df.has(stem(r.word)),
      );
      if (!singles.length) continue;
      const owners = window.map((w) => concepts.get(terms(w)[0] ?? '')).filter((c): c is Concept => !!c);
      const phrase = window.join(' ');
      if (!owners.length) {
        const c: Concept = { word: phrase, term: `⟨${phrase}⟩`, salience: 0, alternatives: new Map(), searchWords: [] };
        concepts.set(c.term, c);
        owners.push(c);
      }
      for (const c of owners) {
        let added = 0;
        for (const r of singles) {
          if (added >= (options.maxRelated ?? MAX_RELATED)) break;
          const t = stem(r.word);
          if (c.alternatives.has(t) || c.searchWords.includes(r.word)) continue;
          c.alternatives.set(t, weight * (r.close ? 1 : BROADER_WEIGHT / RELATED_WEIGHT));
          c.searchWords.push(r.word);
          added++;
        }
      }
    }
  }
}

/** The search text: the question, then the stand-in words the base uses. */
export function expandedQuery(question: string, concepts: Concept[]): string {
  const extra = [...new Set(concepts.flatMap((c) => c.searchWords))];
  // Joined by a stopword, so the stand-ins are searched as words and never paired with each
  // other or with the question's last word as a phrase (search-terms.ts pairs adjacent words).
  return extra.length ? `${question} or ${extra.join(' or ')}` : question;
}
