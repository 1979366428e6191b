/**
 * Retrieval: `search(chatbotId, query, k)` -> the chatbot's best chunks, ranked, with scores and
 * locations to cite.
 *
 * Lexical by default (FTS5 bm25 on SQLite, IDF-weighted ts_rank on PostgreSQL: see
 * storage/chunks.repository.ts). With an embeddings endpoint and a vector index it is hybrid: the
 * query's vector finds the nearest chunks, the words find the best lexical matches, and the two
 * rankings are fused by reciprocal rank fusion (score = sum over lists of 1 / (60 + rank)). RRF
 * needs no calibration between bm25 and cosine scores, and a chunk both lists agree on rises.
 * The embeddings endpoint is a third party: when it fails, searches answer lexically and
 * indexing keeps the chunks (searchable by their words), and `onVectorError` hears why.
 */
import type { EmbeddingsPort, KnowledgeStore, SearchHit, VectorIndexPort } from './ports.js';

/** The RRF constant of Cormack et al.; it damps the weight of the very first ranks. */
export const RRF_K = 60;

/** What hybrid retrieval needs: the embeddings client and the vector index of its space. */
export interface VectorSearch {
  embeddings: EmbeddingsPort;
  vectors: VectorIndexPort;
}

export interface RetrieverOptions {
  store: Pick<KnowledgeStore, 'chunks'>;
  embeddings?: EmbeddingsPort | null;
  vectors?: VectorIndexPort | null;
  /**
   * Instead of embeddings + vectors: connects on first use (the client learns the model's
   * dimension with a first request, and the vector index needs it). A failed connection is
   * retried on a later call, at most once a minute.
   */
  connect?: (() => Promise<VectorSearch>) | null;
  /** How deep each ranking is read before fusion (at least k). Default 50. */
  candidates?: number;
  /** The embeddings endpoint or the vector index failed; the call went on without vectors. */
  onVectorError?: (err: unknown) => void;
}

export interface Retriever {
  /** True when searches fuse vectors with the lexical ranking (when the endpoint answers). */
  readonly hybrid: boolean;
  search(chatbotId: string, query: string, k: number): Promise<SearchHit[]>;
  /**
   * Writes the vectors of freshly stored chunks (ids from `chunks.replace`), embedding the text
   * given: the chunk's title and heading path before its text say what it is about (DocumentIndexer
   * builds it). A no-op when lexical only; never throws for the endpoint's sake. Replaced chunks'
   * vectors already left with their rows.
   */
  index(chatbotId: string, chunks: { id: number; text: string }[]): Promise<void>;
}

/** Reciprocal rank fusion of ranked id lists: best first, ties kept in first-seen order. */
export function reciprocalRankFusion(lists: number[][], k = RRF_K): { id: number; score: number }[] {
  const scores = new Map<number, number>();
  for (const list of lists) {
    const seen = new Set<number>();
    list.forEach((id, rank) => {
      if (seen.has(id)) return; // a list counts a chunk once, at its best rank
      seen.add(id);
      scores.set(id, (scores.get(id) ?? 0) + 1 / (k + rank + 1));
    });
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}

const RECONNECT_MS = 60_000;

export function createRetriever(options: RetrieverOptions): Retriever {
  const { store, onVectorError } = options;
  const given =
    options.embeddings && options.vectors ? { embeddings: options.embeddings, vectors: options.vectors } : null;
  const connect = given ? null : (options.connect ?? null);
  const depth = (k: number) => Math.max(k, options.candidates ?? 50);

  let connected: Promise<VectorSearch> | null = null;
  let failedAt = 0;
  /** The vector side, or null (lexical only, or the endpoint cannot be reached right now). */
  async function vectorSide(): Promise<VectorSearch | null> {
    if (given) return given;
    if (!connect) return null;
    if (!connected) {
      if (Date.now() - failedAt < RECONNECT_MS) return null;
      connected = connect();
    }
    try {
      return await connected;
    } catch (err) {
      if (connected) {
        connected = null;
        failedAt = Date.now();
        onVectorError?.(err);
      }
      return null;
    }
  }

  async function nearest(side: VectorSearch, chatbotId: string, query: string, n: number): Promise<number[] | null> {
    try {
      const [vector] = await side.embeddings.embed([query]);
      return (await side.vectors.nearest(chatbotId, vector, n)).map((h) => h.chunkId);
    } catch (err) {
      onVectorError?.(err);
      return null;
    }
  }

  return {
    hybrid: !!(given || connect),
    async search(chatbotId, query, k) {
      k = Math.floor(k);
      if (!(k > 0) || !query.trim()) return [];
      const side = await vectorSide();
      if (!side) return store.chunks.searchLexical(chatbotId, query, k);

      const n = depth(k);
      const [lexical, semantic] = await Promise.all([
        store.chunks.searchLexical(chatbotId, query, n),
        nearest(side, chatbotId, query, n),
      ]);
      if (!semantic) return lexical.slice(0, k);
      const fused = reciprocalRankFusion([lexical.map((h) => h.chunkId), semantic]).slice(0, k);

      const known = new Map(lexical.map((h) => [h.chunkId, h]));
      const missing = fused.filter((f) => !known.has(f.id)).map((f) => f.id);
      for (const hit of await store.chunks.byIds(missing)) known.set(hit.chunkId, hit);
      // A chunk deleted between the two queries is simply left out.
      return fused.flatMap((f) => {
        const hit = known.get(f.id);
        return hit ? [{ ...hit, score: f.score }] : [];
      });
    },
    async index(_chatbotId, chunks) {
      if (!chunks.length) return;
      const side = await vectorSide();
      if (!side) return;
      try {
        const embedded = await side.embeddings.embed(chunks.map((c) => c.text));
        await side.vectors.upsert(
          chunks.map((c) => c.id),
          embedded,
        );
      } catch (err) {
        onVectorError?.(err);
      }
    },
  };
}
