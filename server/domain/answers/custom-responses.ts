/**
 * Custom responses: the owner's own answer to a question, returned verbatim instead of a
 * generated one. A visitor's question matches one when
 *   - it is the same question once normalised (case, punctuation and spacing ignored), or
 *   - it is close enough: the Jaccard similarity of the two questions' content terms (stopwords
 *     dropped, stemmed: "How do I reset my password?" ~ "reset password") is at least
 *     CUSTOM_RESPONSE_MIN_JACCARD, and each question has at least two content terms.
 * The threshold admits one differing term among four ("reset my account password" vs "reset
 * account password quickly" is 3/4) but not among three (2/3 = 0.67): a short question that
 * differs by one word is usually a different question.
 */
import type { CustomResponseContext } from './ports.js';
import { normalizeForMatch, termSet } from './text.js';

export const CUSTOM_RESPONSE_MIN_JACCARD = 0.75;
const MIN_TERMS = 2;

/** Stored questions' terms, memoised: the same responses are compared on every answer. */
const memo = new Map<string, { normal: string; terms: string[] }>();
const MEMO_SIZE = 20_000;
function analysed(question: string) {
  let a = memo.get(question);
  if (!a) {
    if (memo.size >= MEMO_SIZE) memo.clear();
    a = { normal: normalizeForMatch(question), terms: termSet(question) };
    memo.set(question, a);
  }
  return a;
}

export interface CustomResponseMatch {
  response: CustomResponseContext;
  /** 1 for a normalised exact match, else the Jaccard similarity. */
  similarity: number;
}

export function jaccard(a: readonly string[], b: readonly string[]): number {
  const A = new Set(a);
  const B = new Set(b);
  if (!A.size && !B.size) return 0;
  let both = 0;
  for (const t of A) if (B.has(t)) both++;
  return both / (A.size + B.size - both);
}

/** The best matching custom response, or null. Exact matches win; among close ones the most similar (then the oldest). */
export function matchCustomResponse(
  question: string,
  responses: readonly CustomResponseContext[],
): CustomResponseMatch | null {
  const normal = normalizeForMatch(question);
  if (!normal) return null;
  for (const response of responses) {
    if (analysed(response.question).normal === normal) return { response, similarity: 1 };
  }
  const terms = termSet(question);
  if (terms.length < MIN_TERMS) return null;
  let best: CustomResponseMatch | null = null;
  for (const response of responses) {
    const other = analysed(response.question).terms;
    if (other.length < MIN_TERMS) continue;
    const similarity = jaccard(terms, other);
    if (similarity >= CUSTOM_RESPONSE_MIN_JACCARD && (!best || similarity > best.similarity))
      best = { response, similarity };
  }
  return best;
}
