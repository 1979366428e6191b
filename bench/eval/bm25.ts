/**
 * The anchor of the answer eval: plain Okapi BM25 (k1 1.2, b 0.75) over the very chunks the
 * app stored, each chunk's title, heading path and text as one bag of words, with the answer
 * engine's own words (stopwords dropped, Porter stems: server/domain/answers/text.ts). No word
 * pairs, no field weights, no expansion, no gate: what a search box over the same index gives.
 */
import { terms } from '../../server/domain/answers/text.js';

export interface AnchorChunk {
  documentId: string;
  title: string;
  heading: string;
  text: string;
}

export function plainBm25(chunks: AnchorChunk[], k1 = 1.2, b = 0.75) {
  const docs = chunks.map((c) => {
    const tf = new Map<string, number>();
    const words = terms(`${c.title}\n${c.heading}\n${c.text}`);
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    return { chunk: c, tf, length: words.length };
  });
  const df = new Map<string, number>();
  for (const d of docs) for (const w of d.tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const n = docs.length;
  const avg = docs.reduce((s, d) => s + d.length, 0) / Math.max(1, n);
  const idf = (w: string) => Math.log(1 + (n - (df.get(w) ?? 0) + 0.5) / ((df.get(w) ?? 0) + 0.5));
  return {
    /** The best `k` chunks for the question, best first (chunks matching no word are left out). */
    search(question: string, k: number): AnchorChunk[] {
      const q = [...new Set(terms(question))];
      return docs
        .map((d) => {
          let score = 0;
          for (const w of q) {
            const f = d.tf.get(w);
            if (f) score += (idf(w) * f * (k1 + 1)) / (f + k1 * (1 - b + (b * d.length) / avg));
          }
          return { d, score };
        })
        .filter((x) => x.score > 0)
        .sort((x, y) => y.score - x.score)
        .slice(0, k)
        .map((x) => x.d.chunk);
    },
  };
}
