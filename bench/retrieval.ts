/**
 * Retrieval quality: hit@1 and hit@3 of `search(chatbotId, question, k)` over a real
 * documentation corpus, fastify's own Markdown docs (node_modules/fastify/docs, Reference/ and
 * Guides/), on SQLite and on PostgreSQL. The questions (bench/retrieval-questions.json) are
 * phrased as a user would ask them, each with the document that answers it (and, where the
 * docs genuinely answer it twice, `alsoIn`). A hit: one of the top k chunks comes from an
 * answering document. Goal: hit@3 >= 0.85 on the embedded lexical default (SQLite).
 *
 * The documents go through the production path minus the crawler: extract() (Markdown) and
 * chunkDocument() with their defaults, stored with the Store, searched with createRetriever.
 * PostgreSQL: BENCH_DATABASE_URL, else DATABASE_URL_TEST, else postgres://postgres@127.0.0.1:5432/test,
 * in a schema of its own that is dropped afterwards; skipped with a note when unreachable.
 * `RETRIEVAL_VERBOSE=1` lists every miss with what came first.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkDocument } from '../server/domain/knowledge/chunk.js';
import { extract } from '../server/adapters/extraction/index.js';
import type { ChunkInput } from '../server/domain/knowledge/ports.js';
import { createRetriever } from '../server/domain/knowledge/retrieval.js';
import { newId, nowIso } from '../server/domain/ids.js';
import type { Store } from '../server/domain/ports.js';
import type { DatabaseHandle, DialectName } from '../server/storage/dialects/index.js';
import { createStore } from '../server/storage/store.js';
import { withPostgres, withSqlite } from './databases.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = join(ROOT, 'node_modules', 'fastify', 'docs');
const QUESTIONS = join(ROOT, 'bench', 'retrieval-questions.json');
const GOAL_HIT3 = 0.85;

interface Question {
  q: string;
  doc: string;
  alsoIn?: string[];
}

export interface RetrievalScore {
  dialect: DialectName;
  documents: number;
  chunks: number;
  questions: number;
  hit1: number;
  hit3: number;
  /** Mean reciprocal rank of the first answering chunk in the top 10. */
  mrr10: number;
  /** hit@3 counting only the primary document (no alsoIn). */
  strictHit3: number;
  msPerQuery: number;
  misses: { q: string; expected: string; got: string[] }[];
}

/** The corpus: every Markdown file under Reference/ and Guides/, keyed like "Reference/Hooks.md". */
export function corpusFiles(): string[] {
  return ['Reference', 'Guides'].flatMap((dir) =>
    readdirSync(join(DOCS, dir))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `${dir}/${f}`),
  );
}

export function loadQuestions(): Question[] {
  const questions = JSON.parse(readFileSync(QUESTIONS, 'utf8')) as Question[];
  const files = new Set(corpusFiles());
  for (const q of questions) {
    for (const d of [q.doc, ...(q.alsoIn ?? [])])
      if (!files.has(d)) throw new Error(`retrieval-questions.json: "${d}" is not in the corpus (${q.q})`);
  }
  return questions;
}

/** Stores the corpus for a fresh chatbot the way the indexer does; returns the chatbot id and the document ids by file. */
export async function ingest(
  store: Store,
): Promise<{ chatbotId: string; byDocument: Map<string, string>; chunks: number }> {
  const at = nowIso();
  const accountId = newId();
  const userId = newId();
  const chatbotId = newId();
  const plan = {
    name: 'bench',
    maxChatbots: 1,
    maxPages: 10_000,
    webhooks: false,
    analytics: false,
    brandingRemoval: false,
    active: true,
  };
  await store.accounts.insert({ id: accountId, name: 'Bench', plan, createdAt: at, updatedAt: at });
  await store.users.insert({
    id: userId,
    accountId,
    email: 'bench@example.com',
    name: null,
    role: 'owner',
    createdAt: at,
  });
  await store.chatbots.insert({
    id: chatbotId,
    accountId,
    createdById: userId,
    title: 'Fastify docs',
    description: '',
    settings: {},
    createdAt: at,
    updatedAt: at,
  });
  const sourceId = newId();
  await store.knowledge.sources.insert({
    id: sourceId,
    chatbotId,
    accountId,
    type: 'files',
    key: '',
    name: 'fastify docs',
    config: {},
    credentials: null,
    status: 'ready',
    lastError: null,
    lastSyncAt: null,
    syncIntervalMinutes: null,
    nextSyncAt: null,
    createdAt: at,
    updatedAt: at,
  });

  const byDocument = new Map<string, string>();
  let total = 0;
  for (const file of corpusFiles()) {
    const url = `https://fastify.dev/docs/latest/${file.replace(/\.md$/, '/')}`;
    const doc = await extract({
      bytes: readFileSync(join(DOCS, file)),
      kind: 'markdown',
      filename: file.split('/').pop(),
      url,
    });
    const title = (doc.title || file).slice(0, 500);
    const chunks: ChunkInput[] = chunkDocument(doc).map((c) => ({
      index: c.index,
      title,
      headingPath: c.headingPath,
      text: c.text,
      tokenCount: c.tokenCount,
      location: { url, headingPath: c.headingPath, ...c.location },
    }));
    const id = newId();
    await store.transaction(async (s) => {
      await s.knowledge.documents.insert({
        id,
        chatbotId,
        sourceId,
        key: url,
        url,
        title,
        kind: doc.kind,
        status: 'indexed',
        contentHash: null,
        chars: doc.sections.reduce((n, s) => n + s.text.length, 0),
        chunkCount: chunks.length,
        error: null,
        createdAt: at,
        updatedAt: at,
      });
      await s.knowledge.chunks.replace(id, chatbotId, chunks);
    });
    byDocument.set(id, file);
    total += chunks.length;
  }
  return { chatbotId, byDocument, chunks: total };
}

export async function evaluate(database: DatabaseHandle, dialect: DialectName): Promise<RetrievalScore> {
  await database.migrate();
  const store = createStore(database.db);
  const { chatbotId, byDocument, chunks } = await ingest(store);
  const retriever = createRetriever({ store: store.knowledge });
  const questions = loadQuestions();

  let hit1 = 0;
  let hit3 = 0;
  let strict3 = 0;
  let rr = 0;
  const misses: RetrievalScore['misses'] = [];
  const started = performance.now();
  for (const question of questions) {
    const answering = new Set([question.doc, ...(question.alsoIn ?? [])]);
    const files = (await retriever.search(chatbotId, question.q, 10)).map((h) => byDocument.get(h.documentId) ?? '?');
    const first = files.findIndex((f) => answering.has(f));
    if (first === 0) hit1++;
    if (first >= 0 && first < 3) hit3++;
    else misses.push({ q: question.q, expected: question.doc, got: files.slice(0, 3) });
    if (files.slice(0, 3).includes(question.doc)) strict3++;
    if (first >= 0) rr += 1 / (first + 1);
  }
  const elapsed = performance.now() - started;
  const n = questions.length;
  return {
    dialect,
    documents: byDocument.size,
    chunks,
    questions: n,
    hit1: hit1 / n,
    hit3: hit3 / n,
    mrr10: rr / n,
    strictHit3: strict3 / n,
    msPerQuery: elapsed / n,
    misses,
  };
}

const pct = (x: number) => x.toFixed(3);

function report(score: RetrievalScore) {
  const goal =
    score.dialect === 'sqlite' ? `  (goal hit@3 >= ${GOAL_HIT3}: ${score.hit3 >= GOAL_HIT3 ? 'met' : 'NOT met'})` : '';
  console.log(
    `${score.dialect.padEnd(9)} hit@1 ${pct(score.hit1)}  hit@3 ${pct(score.hit3)}  MRR@10 ${pct(score.mrr10)}  strict hit@3 ${pct(score.strictHit3)}` +
      `  | ${score.questions} questions, ${score.documents} documents, ${score.chunks} chunks, ${score.msPerQuery.toFixed(1)} ms/query${goal}`,
  );
  if (process.env.RETRIEVAL_VERBOSE) {
    for (const m of score.misses)
      console.log(`   miss: ${m.q}\n         expected ${m.expected}; top 3: ${m.got.join(', ') || '(nothing)'}`);
  } else if (score.misses.length) {
    console.log(`          ${score.misses.length} misses at 3 (RETRIEVAL_VERBOSE=1 lists them)`);
  }
}

export async function run(): Promise<RetrievalScore[]> {
  console.log(
    `lexical retrieval over fastify's docs (${corpusFiles().length} Markdown files), ${loadQuestions().length} questions`,
  );
  const scores: RetrievalScore[] = [];
  const sqlite = await withSqlite(evaluate);
  report(sqlite);
  scores.push(sqlite);
  const postgres = await withPostgres(evaluate);
  if (typeof postgres === 'string') console.log(`postgres  skipped: ${postgres}`);
  else {
    report(postgres);
    scores.push(postgres);
  }
  return scores;
}
