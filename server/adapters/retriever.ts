/**
 * The retriever the answer engine searches with and the indexer writes vectors through: lexical
 * only, or hybrid when EMBEDDING_MODEL names a model of the OpenAI-compatible endpoint
 * (OPENAI_BASE_URL, OPENAI_API_KEY). The embeddings calls go through the guarded client's fetch.
 */
import type { Config } from '../config.js';
import { openAIEmbeddings } from './openai-embeddings.js';
import { createRetriever, type Retriever } from '../domain/knowledge/retrieval.js';
import type { Store } from '../domain/ports.js';

/** An endpoint outage fails every search's embedding; one log line a minute says so. */
const LOG_EVERY_MS = 60_000;

export function createRetrieval(
  store: Pick<Store, 'knowledge' | 'vectors'>,
  config: Config,
  fetch: typeof globalThis.fetch,
  log?: { error(obj: unknown, msg: string): void },
): Retriever {
  const openai = config.openai;
  if (!openai?.embeddingModel) return createRetriever({ store: store.knowledge });
  const model = openai.embeddingModel;
  let loggedAt = 0;
  return createRetriever({
    store: store.knowledge,
    connect: async () => {
      const embeddings = await openAIEmbeddings({
        baseUrl: openai.baseUrl,
        apiKey: openai.apiKey || null,
        model,
        fetch,
      });
      return { embeddings, vectors: store.vectors(embeddings) };
    },
    onVectorError: (err) => {
      if (Date.now() - loggedAt < LOG_EVERY_MS) return;
      loggedAt = Date.now();
      log?.error({ err }, `embeddings (${model}) failed; searching and indexing by words only until it answers`);
    },
  });
}
