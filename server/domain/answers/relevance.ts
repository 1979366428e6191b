/**
 * The relevance gate: does the chatbot's knowledge cover the question, or should the
 * built-in answerer say honestly that it has no information? Retrieval scores cannot decide
 * it: bm25, ts_rank and fused ranks are comparable only within one result list. What carries
 * over between questions, corpora and dialects is how much of the question the best passages
 * talk about:
 *
 *   union = share of the question's terms found in any of the top GATE_DEPTH passages
 *   best  = share found in the single best-covering one of them
 *   relevance = (union + best) / 2
 *
 * Terms are content words, stemmed (text.ts); a passage's words include its title and heading
 * path. An off-topic question ("how long should I boil an egg?") shares a word or two with a
 * corpus at most, scattered over passages; an on-topic one finds most of its words, several of
 * them in one passage. RELEVANCE_THRESHOLD was tuned on bench/retrieval-questions.json against
 * bench/offtopic-questions.json (README.md: the figures; bench/answers.ts measures them again).
 */
import type { SearchHit } from '../knowledge/ports.js';
import type { Concept } from './expansion.js';
import { idf, type KnowledgeProfile } from './knowledge-profile.js';
import { termSet, terms } from './text.js';

/** How many of the best hits the gate reads. */
export const GATE_DEPTH = 5;
/** At or above: the knowledge covers the question. */
export const RELEVANCE_THRESHOLD = 0.55;

export interface Relevance {
  /** (union + best) / 2, 0..1. */
  score: number;
  union: number;
  best: number;
  /** The question's terms. */
  terms: string[];
  /** Per hit (same order as given): the share of the question's terms it contains. */
  perHit: number[];
  relevant: boolean;
  /** Relevant, but below the calibrated threshold: the answer says it is not sure (calibration.ts HEDGE_RATIO). */
  unsure?: boolean;
}

/** Terms of recently seen chunks: the same popular chunks come back question after question. */
const hitCache = new Map<string, Set<string>>();
const HIT_CACHE_SIZE = 5000;

/** The terms a hit is about: its title, heading path and text. */
export function hitTerms(
  hit: Pick<SearchHit, 'title' | 'headingPath' | 'text'> & Partial<Pick<SearchHit, 'chunkId' | 'documentId'>>,
): Set<string> {
  // A chunk's text never changes under its id (re-indexing writes new chunks); the length guards the rest.
  const key =
    hit.chunkId !== undefined && hit.documentId
      ? `${hit.documentId}:${hit.chunkId}:${hit.text.length}:${hit.title.length}`
      : null;
  const cached = key ? hitCache.get(key) : undefined;
  if (cached) return cached;
  const set = new Set(terms(`${hit.title}\n${hit.headingPath.join('\n')}\n${hit.text}`));
  if (key) {
    if (hitCache.size >= HIT_CACHE_SIZE) hitCache.delete(hitCache.keys().next().value!);
    hitCache.set(key, set);
  }
  return set;
}

export function relevance(
  question: string,
  hits: Parameters<typeof hitTerms>[0][],
  threshold = RELEVANCE_THRESHOLD,
): Relevance {
  const q = termSet(question);
  const top = hits.slice(0, GATE_DEPTH);
  if (!q.length || !top.length)
    return { score: 0, union: 0, best: 0, terms: q, perHit: hits.map(() => 0), relevant: false };
  const found = new Set<string>();
  const perHit = hits.map((hit, i) => {
    const words = hitTerms(hit);
    const matched = q.filter((t) => words.has(t));
    if (i < GATE_DEPTH) for (const t of matched) found.add(t);
    return matched.length / q.length;
  });
  const union = found.size / q.length;
  const best = Math.max(...perHit.slice(0, GATE_DEPTH));
  const score = (union + best) / 2;
  return { score, union, best, terms: q, perHit, relevant: score >= threshold };
}

/**
 * The gate calibrated against the chatbot's own knowledge: each concept of the question
 * (expansion.ts: the word, its correction, the base's words related to it) weighs by how
 * telling its word is in this base (idf over the base's chunks: a word the base never uses
 * weighs most, a word on every page little), and a passage covers a concept with the weight of
 * the best of its forms it holds (the word itself 1, a stand-in its weight times
 * GATE_STAND_IN_FACTOR). The score is the share the single best of the top GATE_DEPTH passages
 * covers (GATE_UNION_SHARE 0: what the passages cover between them no longer counts, since an
 * off-topic question's words are found scattered over a big base, one per page). A near-topic
 * question the base does not answer ("coffee subscriptions" at a bread bakery) keeps its telling
 * word uncovered; a reworded one is covered by its stand-ins. Chosen on the tuning halves of the
 * answer eval with fastify's sets as a sixth corpus (bench/eval/tune.ts; README.md).
 */
export const CALIBRATED_THRESHOLD = 0.35;
export const GATE_UNION_SHARE = 0;
export const GATE_STAND_IN_FACTOR = 1;
export const GATE_UNKNOWN_FACTOR = 0.5;
export const GATE_ABSENT_NOUN_FACTOR = 0.5;

export interface GateOptions {
  threshold?: number;
  /** Share of `union` in the score, the rest is `best`. */
  unionShare?: number;
  /** Multiplies a stand-in's weight when it covers a concept (the question's own word counts 1). */
  standInFactor?: number;
  /** Multiplies the score when a word unknown to the base and the lexicon (expansion.ts Concept.unknown) is in the question. */
  unknownFactor?: number;
  /** Multiplies the score when the best passage leaves a noun the base never uses uncovered (Concept.absentNoun). */
  absentNounFactor?: number;
}

export function conceptRelevance(
  concepts: Concept[],
  hits: Parameters<typeof hitTerms>[0][],
  profile: KnowledgeProfile | null,
  thresholdOrOptions: number | GateOptions = CALIBRATED_THRESHOLD,
): Relevance {
  const o = typeof thresholdOrOptions === 'number' ? { threshold: thresholdOrOptions } : thresholdOrOptions;
  const threshold = o.threshold ?? CALIBRATED_THRESHOLD;
  const unionShare = o.unionShare ?? GATE_UNION_SHARE;
  const standInFactor = o.standInFactor ?? GATE_STAND_IN_FACTOR;
  const q = concepts.map((c) => c.term);
  const top = hits.slice(0, GATE_DEPTH);
  if (!concepts.length || !top.length)
    return { score: 0, union: 0, best: 0, terms: q, perHit: hits.map(() => 0), relevant: false };
  const weights = concepts.map((c) => (profile ? idf(profile, c.term) : 1) * c.salience);
  const credit = concepts.map(
    (c) => new Map([...c.alternatives].map(([t, w]) => [t, t === c.term ? w : w * standInFactor])),
  );
  const total = weights.reduce((a, b) => a + b, 0);
  if (!(total > 0)) return { score: 0, union: 0, best: 0, terms: q, perHit: hits.map(() => 0), relevant: false };
  const found = concepts.map(() => 0);
  const missed: Concept[][] = [];
  const perHit = hits.map((hit, i) => {
    const words = hitTerms(hit);
    let covered = 0;
    const missing: Concept[] = [];
    concepts.forEach((c, k) => {
      let m = 0;
      for (const [t, w] of credit[k]) if (w > m && words.has(t)) m = w;
      covered += weights[k] * m;
      if (m === 0) missing.push(c);
      if (i < GATE_DEPTH && m > found[k]) found[k] = m;
    });
    missed.push(missing);
    return covered / total;
  });
  const union = found.reduce((s, m, k) => s + m * weights[k], 0) / total;
  const best = Math.max(...perHit.slice(0, GATE_DEPTH));
  let factor = 1;
  if (concepts.some((c) => c.unknown)) factor *= o.unknownFactor ?? GATE_UNKNOWN_FACTOR;
  // A thing the base never names, left uncovered by the best passage: "coffee" at a bread bakery.
  const heaviest = concepts[weights.indexOf(Math.max(...weights))];
  if (heaviest.absentNoun && heaviest.alternatives.size === 1 && missed[perHit.indexOf(best)]?.includes(heaviest))
    factor *= o.absentNounFactor ?? GATE_ABSENT_NOUN_FACTOR;
  const score = (unionShare * union + (1 - unionShare) * best) * factor;
  return { score, union, best, terms: q, perHit, relevant: score >= threshold };
}
