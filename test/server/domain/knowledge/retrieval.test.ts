/**
 * search(chatbotId, query, k) on both dialects, lexical and hybrid. The hybrid path talks to a
 * local OpenAI-compatible stand-in (a third-party service); the store, the vector index, the
 * embeddings client and the retriever are the real ones.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EmbeddingsError, openAIEmbeddings } from '../../../../server/adapters/openai-embeddings.js';
import type { EmbeddingsPort, SearchHit } from '../../../../server/domain/knowledge/ports.js';
import {
  createRetriever,
  reciprocalRankFusion,
  type Retriever,
} from '../../../../server/domain/knowledge/retrieval.js';
import type { Store } from '../../../../server/domain/ports.js';
import { loadConfig } from '../../../../server/config.js';
import { GuardedHttpClient } from '../../../../server/outbound/guarded-client.js';
import { createRetrieval } from '../../../../server/adapters/retriever.js';
import {
  startEmbeddingsStandin,
  STANDIN_DIMENSIONS,
  type EmbeddingsStandin,
} from '../../../helpers/embeddings-standin.js';
import { openTestDatabase, type TestDatabase } from '../../../helpers/database.js';
import { addDocument, chunkInputs, HOSTILE_QUERIES, newChatbot } from '../../../helpers/knowledge.js';
import { describeOnDialects } from '../../../helpers/dialects.js';

let standin: EmbeddingsStandin;
beforeAll(async () => {
  standin = await startEmbeddingsStandin();
});
afterAll(() => standin?.close());

const connect = (over: Partial<Parameters<typeof openAIEmbeddings>[0]> = {}) =>
  openAIEmbeddings({
    baseUrl: standin.baseUrl,
    apiKey: 'sk-standin',
    model: 'standin-64',
    fetch: globalThis.fetch,
    ...over,
  });

function expectRanked(hits: SearchHit[]) {
  expect(new Set(hits.map((h) => h.chunkId)).size).toBe(hits.length);
  for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
}

test('reciprocal rank fusion: agreement wins, each list counts a chunk once', () => {
  const fused = reciprocalRankFusion([
    [1, 2, 3],
    [3, 4, 1, 1],
  ]);
  expect(fused.map((f) => f.id)).toEqual([1, 3, 2, 4]);
  expect(fused[0].score).toBeCloseTo(1 / 61 + 1 / 63, 10);
  expect(reciprocalRankFusion([])).toEqual([]);
});

describe('OpenAI-compatible embeddings client', () => {
  test('probes the dimension, sends model and key, batches, places vectors by index', async () => {
    const before = standin.requests.length;
    const client = await connect({ batchSize: 2 });
    expect(client.dimensions).toBe(STANDIN_DIMENSIONS);
    expect(client.model).toBe('standin-64');
    const vectors = await client.embed(['alpha', 'beta gamma', 'delta', '', 'epsilon']);
    expect(vectors).toHaveLength(5);
    const again = await client.embed(['delta']);
    expect(vectors[2]).toEqual(again[0]);
    expect(vectors[0]).not.toEqual(vectors[1]);
    const sent = standin.requests.slice(before);
    expect(sent.map((r) => r.inputs.length)).toEqual([1, 2, 2, 1, 1]); // probe, 3 batches, 1
    expect(sent.every((r) => r.authorization === 'Bearer sk-standin' && r.model === 'standin-64')).toBe(true);
  });

  test('a refusal names the status and what to check', async () => {
    await expect(connect({ apiKey: 'wrong' })).rejects.toThrow(/401: Incorrect API key provided.*OPENAI_API_KEY/);
    await expect(connect({ baseUrl: 'http://127.0.0.1:1/v1' })).rejects.toBeInstanceOf(EmbeddingsError);
    const client = await connect({ dimensions: STANDIN_DIMENSIONS });
    standin.failNext(1);
    await expect(client.embed(['x'])).rejects.toMatchObject({ status: 503 });
    await expect(connect({ dimensions: 8 }).then((c) => c.embed(['x']))).rejects.toThrow(/expected 8/);
  });
});

describeOnDialects('retrieval on %s', (dialect) => {
  let kdb: TestDatabase;
  let store: Store;
  let embeddings: EmbeddingsPort;
  let lexical: Retriever;
  let hybrid: Retriever;
  const vectorErrors: unknown[] = [];

  beforeAll(async () => {
    kdb = await openTestDatabase(dialect);
    store = kdb.store;
    embeddings = await connect();
    const vectors = store.vectors({ model: embeddings.model, dimensions: embeddings.dimensions });
    lexical = createRetriever({ store: store.knowledge });
    hybrid = createRetriever({
      store: store.knowledge,
      embeddings,
      vectors,
      onVectorError: (e) => vectorErrors.push(e),
    });
  });
  afterAll(() => kdb?.close());

  /** Stores a document and, as the indexer does, its chunks' vectors. */
  async function add(
    bot: { chatbotId: string; accountId: string },
    title: string,
    parts: { heading?: string[]; text: string }[],
  ) {
    const stored = await addDocument(store, bot, title, parts);
    await hybrid.index(
      bot.chatbotId,
      stored.chunkIds.map((id, i) => ({
        id,
        text: `${title}\n${stored.chunks[i].headingPath.join(' > ')}\n${stored.chunks[i].text}`,
      })),
    );
    return stored;
  }

  async function corpus() {
    const bot = await newChatbot(store);
    const car = await add(bot, 'Car care', [
      { heading: ['Car care', 'Intervals'], text: 'Bring your car to the garage every 15,000 km for oil and filters.' },
      { heading: ['Car care', 'Tyres'], text: 'Check tyre pressure monthly; rotate tyres at each oil change.' },
    ]);
    const health = await add(bot, 'Health', [
      { heading: ['Health'], text: 'See a doctor when a fever lasts more than three days.' },
    ]);
    const billing = await add(bot, 'Billing', [
      { heading: ['Billing', 'Invoices'], text: 'Invoices are emailed on the first day of the month.' },
      { heading: ['Billing', 'Refunds'], text: 'Refunds reach your card within ten days of the request.' },
    ]);
    return { bot, car, health, billing };
  }

  test('lexical only without embeddings: ranked hits with locations', async () => {
    const { bot, billing } = await corpus();
    expect(lexical.hybrid).toBe(false);
    const hits = await lexical.search(bot.chatbotId, 'When will I get my refund?', 5);
    expect(hits[0].chunkId).toBe(billing.chunkIds[1]);
    expect(hits[0]).toMatchObject({
      title: 'Billing',
      headingPath: ['Billing', 'Refunds'],
      url: billing.doc.url,
      location: billing.chunks[1].location,
    });
    expectRanked(hits);
    expect(await lexical.search(bot.chatbotId, 'refund', 0)).toEqual([]);
  });

  test('hybrid finds by meaning what words miss, and fuses both rankings', async () => {
    const { bot, car, health, billing } = await corpus();
    expect(hybrid.hybrid).toBe(true);
    // No chunk has "automobile", "upkeep" or "physician": the lexical ranking is empty.
    expect(await lexical.search(bot.chatbotId, 'automobile upkeep', 5)).toEqual([]);
    const byMeaning = await hybrid.search(bot.chatbotId, 'automobile upkeep', 3);
    expect(car.chunkIds).toContain(byMeaning[0].chunkId);
    expect((await hybrid.search(bot.chatbotId, 'physician', 1))[0].chunkId).toBe(health.chunkIds[0]);

    // Both lists agree on the refunds chunk: it leads, once, with the fused score.
    const hits = await hybrid.search(bot.chatbotId, 'refunds to my card', 5);
    expect(hits[0].chunkId).toBe(billing.chunkIds[1]);
    expect(hits[0].score).toBeCloseTo(2 / 61, 10);
    expect(hits[0]).toMatchObject({
      documentId: billing.doc.id,
      headingPath: ['Billing', 'Refunds'],
      location: billing.chunks[1].location,
    });
    expectRanked(hits);
    expect(hits.length).toBeLessThanOrEqual(5);
    expect(vectorErrors).toEqual([]);
  });

  test("chatbot isolation: another chatbot's chunks never appear, by words or by vectors", async () => {
    const mine = await corpus();
    const theirs = await newChatbot(store);
    const leak = await add(theirs, 'Car care', [
      { heading: ['Car care'], text: 'automobile upkeep refunds invoices doctor fever tyres garage' },
    ]);
    for (const q of ['automobile upkeep', 'refunds invoices doctor fever tyres garage', 'car']) {
      for (const r of [lexical, hybrid]) {
        const hits = await r.search(mine.bot.chatbotId, q, 50);
        expect(hits.map((h) => h.chunkId)).not.toContain(leak.chunkIds[0]);
        expect(hits.every((h) => h.documentId !== leak.doc.id)).toBe(true);
      }
    }
    expect((await hybrid.search(theirs.chatbotId, 'physician', 5)).map((h) => h.chunkId)).toEqual(leak.chunkIds);
  });

  test('replaced chunks and deleted documents leave both indexes', async () => {
    const { bot, car, health } = await corpus();
    await store.knowledge.chunks.replace(
      car.doc.id,
      bot.chatbotId,
      chunkInputs('Car care', car.doc.url, [{ text: 'Bicycles need chain oil.' }]),
    );
    for (const r of [lexical, hybrid]) {
      const hits = await r.search(bot.chatbotId, 'automobile upkeep garage tyres', 10);
      expect(hits.filter((h) => car.chunkIds.includes(h.chunkId))).toEqual([]);
    }
    await store.knowledge.documents.delete([health.doc.id]);
    for (const r of [lexical, hybrid]) {
      const hits = await r.search(bot.chatbotId, 'physician doctor fever', 10);
      expect(hits.filter((h) => h.documentId === health.doc.id)).toEqual([]);
    }
  });

  test('hostile query strings answer a list (empty when nothing is a word)', async () => {
    const { bot } = await corpus();
    for (const q of HOSTILE_QUERIES) {
      for (const r of [lexical, hybrid]) {
        const hits = await r.search(bot.chatbotId, q, 5);
        expect(Array.isArray(hits), q.slice(0, 40)).toBe(true);
        expectRanked(hits);
      }
    }
    expect(await lexical.search(bot.chatbotId, 'the of and to a in is', 5)).toEqual([]);
    expect(await hybrid.search(bot.chatbotId, '   ', 5)).toEqual([]);
    expect(vectorErrors).toEqual([]);
  });

  test('connects on first use through the guarded client, as the app wires it; an unreachable endpoint means words only', async () => {
    const { bot, car } = await corpus();
    const dataDir = kdb.dataDir;
    const env = {
      DATA_DIR: dataDir,
      OPENAI_BASE_URL: standin.baseUrl,
      OPENAI_API_KEY: 'sk-standin',
      EMBEDDING_MODEL: 'standin-64',
    };
    // The stand-in listens on 127.0.0.1; the app's client for the operator's model endpoint allows private addresses.
    const outbound = new GuardedHttpClient({ allowPrivate: true });
    const errors: unknown[] = [];
    const wired = createRetrieval(store, loadConfig(env), outbound.fetch, { error: (e) => errors.push(e) });
    expect(wired.hybrid).toBe(true);
    expect(car.chunkIds).toContain((await wired.search(bot.chatbotId, 'automobile upkeep', 1))[0]?.chunkId);
    expect(errors).toEqual([]);

    const refused = createRetrieval(store, loadConfig(env), new GuardedHttpClient({ allowPrivate: false }).fetch, {
      error: (e) => errors.push(e),
    });
    expect(await refused.search(bot.chatbotId, 'automobile upkeep', 3)).toEqual([]);
    expect((await refused.search(bot.chatbotId, 'garage', 3))[0]?.documentId).toBe(car.doc.id);
    await refused.index(bot.chatbotId, [{ id: car.chunkIds[0], text: 'x' }]); // never throws for the endpoint
    expect(errors).toHaveLength(1); // reported once, not on every call

    const lexicalOnly = createRetrieval(store, loadConfig({ DATA_DIR: dataDir }), outbound.fetch);
    expect(lexicalOnly.hybrid).toBe(false);
  });

  test('an embeddings outage degrades to lexical and is reported', async () => {
    const { bot, billing } = await corpus();
    const errors = vectorErrors.length;
    standin.failNext(1);
    const hits = await hybrid.search(bot.chatbotId, 'refunds', 3);
    expect(hits[0].chunkId).toBe(billing.chunkIds[1]);
    expect(vectorErrors.length).toBe(errors + 1);
    expect(vectorErrors.at(-1)).toBeInstanceOf(EmbeddingsError);
    // Indexing during an outage keeps the chunks (searchable by words) and reports.
    const more = await addDocument(store, bot, 'Shipping', [{ text: 'Parcels ship within two days.' }]);
    standin.failNext(1);
    await hybrid.index(
      bot.chatbotId,
      more.chunkIds.map((id) => ({ id, text: 'Parcels ship within two days.' })),
    );
    expect(vectorErrors.length).toBe(errors + 2);
    expect((await hybrid.search(bot.chatbotId, 'parcels', 1))[0].documentId).toBe(more.doc.id);
  });
});
