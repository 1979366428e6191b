/**
 * Suggested follow-ups of a built-in answer: questions stored with the related chunks at ingest
 * (knowledge/chunk-questions.ts), each checked against the knowledge before it is offered. A
 * question is offered when its own search is covered (the gate, not "not sure") and its best
 * passage is not one the answer quoted (it would repeat the answer), and never the question just
 * asked. Verdicts are cached per knowledge version (a new profile object comes with every change).
 */
import type { FollowUp } from '../conversations/ports.js';
import type { Passage } from './ports.js';
import { normalizeForMatch } from './text.js';

/** Chunks beyond retrieval's whose questions are read too (checked like the others). */
const OTHER_CHUNKS = 8;

export interface FollowUpVerdict {
  covered: boolean;
  /** The chunk the question's search ranks first. */
  top: number | null;
}

export async function storedFollowUps(input: {
  question: string;
  /** Passages in retrieval's order: the questions of those not quoted are candidates. */
  passages: Passage[];
  /** Chunk ids the answer quoted. */
  used: Set<number>;
  count: number;
  /** Stored questions by chunk; `others`: also those of that many chunks retrieval did not find (a small site's other pages). */
  questionsOf: (chunkIds: number[], others: number) => Promise<Map<number, string[]>>;
  check: (question: string) => Promise<FollowUpVerdict>;
}): Promise<FollowUp[]> {
  if (input.count <= 0) return [];
  const asked = normalizeForMatch(input.question);
  const found = input.passages.map((p) => p.chunkId);
  const byChunk = await input.questionsOf(found, OTHER_CHUNKS);
  const seen = new Set<string>([asked]);
  const out: FollowUp[] = [];
  // Questions of the passages not quoted first, then other chunks', then the quoted passages' other questions.
  const others = [...byChunk.keys()].filter((id) => !found.includes(id));
  const order = [...found.filter((id) => !input.used.has(id)), ...others, ...found.filter((id) => input.used.has(id))];
  for (const id of order) {
    for (const q of byChunk.get(id) ?? []) {
      const key = normalizeForMatch(q);
      if (seen.has(key)) continue;
      seen.add(key);
      const verdict = await input.check(q);
      if (!verdict.covered || (verdict.top !== null && input.used.has(verdict.top))) continue;
      out.push({ title: q, description: q, link: null, isEscalationPrompt: false });
      if (out.length >= input.count) return out;
    }
  }
  return out;
}
