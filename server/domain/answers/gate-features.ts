/**
 * What the calibrated gate knows about a question and its best passages, as numbers: the
 * features of the learned decision (gate-model.ts). Each says something the single coverage
 * score does not: whether the question's most telling word is covered, by the word itself or a
 * stand-in, whether the passage gives the kind of answer asked for, whether its title is about it.
 * `asksMiss` and `concepts` are measured but not used: they told how the eval's questions were
 * written, not whether a page answers (bench/README.md, "A learned gate").
 */
import type { SearchHit } from '../knowledge/ports.js';
import type { Concept } from './expansion.js';
import { idf, type KnowledgeProfile } from './knowledge-profile.js';
import { answerWords, asks } from './question-words.js';
import { GATE_DEPTH, hitTerms, type Relevance } from './relevance.js';
import { terms } from './text.js';

export const FEATURES = [
  'score',
  'best',
  'union',
  'margin',
  'own',
  'heavy',
  'missing',
  'title',
  'asksMatch',
  'asksMiss',
  'concepts',
  'chance',
  'unknown',
  'absent',
] as const;
export type GateFeatures = Record<(typeof FEATURES)[number], number>;

type Hit = Pick<SearchHit, 'title' | 'headingPath' | 'text'> & Partial<Pick<SearchHit, 'chunkId' | 'documentId'>>;

export function gateFeatures(
  question: string,
  concepts: Concept[],
  hits: Hit[],
  profile: KnowledgeProfile | null,
  gate: Relevance,
  threshold: number,
): GateFeatures {
  const top = hits.slice(0, GATE_DEPTH);
  const zero: GateFeatures = Object.fromEntries(FEATURES.map((f) => [f, 0])) as GateFeatures;
  if (!concepts.length || !top.length) return { ...zero, chance: threshold };
  const weights = concepts.map((c) => (profile ? idf(profile, c.term) : 1) * c.salience);
  const total = weights.reduce((a, b) => a + b, 0) || 1;
  const sorted = [...gate.perHit.slice(0, GATE_DEPTH)].sort((a, b) => b - a);
  const bestIndex = gate.perHit.indexOf(sorted[0]);
  const best = top[bestIndex] ?? top[0];
  const words = hitTerms(best);
  const head = new Set(terms(`${best.title}\n${best.headingPath.join('\n')}`));
  let own = 0;
  let title = 0;
  let missing = 0;
  concepts.forEach((c, k) => {
    if (words.has(c.term)) own += weights[k];
    if ([...c.alternatives.keys()].some((t) => head.has(t))) title += weights[k];
    if (![...c.alternatives.keys()].some((t) => words.has(t))) missing = Math.max(missing, weights[k]);
  });
  const heaviest = concepts[weights.indexOf(Math.max(...weights))];
  const kinds = asks(question);
  const plain = new Set(hitTermsRaw(best));
  const answersKind = kinds.some(
    (k) => answerWords(k).some((w) => plain.has(w)) || (k === 'price' && /\d/.test(best.text)),
  );
  return {
    score: gate.score / (threshold || 1),
    best: gate.best,
    union: gate.union,
    margin: sorted[0] - (sorted[1] ?? 0),
    own: own / total,
    heavy: [...heaviest.alternatives.keys()].some((t) => words.has(t)) ? 1 : 0,
    missing: missing / total,
    title: title / total,
    asksMatch: kinds.length && answersKind ? 1 : 0,
    asksMiss: kinds.length && !answersKind ? 1 : 0,
    concepts: Math.log(1 + concepts.length),
    chance: threshold,
    unknown: concepts.some((c) => c.unknown) ? 1 : 0,
    absent: heaviest.absentNoun && !words.has(heaviest.term) ? 1 : 0,
  };
}

/** A passage's lower-cased words, unstemmed (the answer words of question-words.ts are plain words). */
function hitTermsRaw(hit: Hit): string[] {
  return `${hit.title} ${hit.headingPath.join(' ')} ${hit.text}`.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}
