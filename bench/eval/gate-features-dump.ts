/**
 * Dumps the gate's features (server/domain/answers/gate-features.ts) for every question of every
 * corpus, both halves and fastify's sets, with its label, to one JSON file: the data the learned
 * gate is fitted on (tuning halves and fastify only; bench/eval/gate-fit.ts).
 * `npx tsx bench/eval/gate-features-dump.ts [out.json]`
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { expandedQuery, questionConcepts } from '../../server/domain/answers/expansion.js';
import { gateFeatures } from '../../server/domain/answers/gate-features.js';
import { profileCache, type KnowledgeProfile } from '../../server/domain/answers/knowledge-profile.js';
import { conceptRelevance, GATE_DEPTH } from '../../server/domain/answers/relevance.js';
import { calibratedThreshold, PROBE_QUESTIONS } from '../../server/domain/answers/calibration.js';
import { closeExtractionWorkers } from '../../server/adapters/extraction/index.js';
import { createWordNet } from '../../server/adapters/wordnet.js';
import { createRetriever } from '../../server/domain/knowledge/retrieval.js';
import { answerContextRepository } from '../../server/storage/answers.repository.js';
import type { PassageSearch } from '../../server/domain/answers/engine.js';
import { ingestFastifyDocs, openAnswersDb } from '../../test/server/domain/answers/fixtures.js';
import { ingestCorpus } from './answers-eval.js';
import { CORPORA, loadCorpus } from './corpus.js';

const wn = createWordNet();
const rows: Record<string, unknown>[] = [];

async function dump(
  corpus: string,
  retriever: PassageSearch,
  chatbotId: string,
  profile: KnowledgeProfile,
  questions: { q: string; inScope: boolean; split: string; kind: string; right: (documentId: string) => boolean }[],
) {
  const scores: number[] = [];
  for (const probe of PROBE_QUESTIONS) {
    const concepts = questionConcepts(probe, profile, wn);
    const hits = await retriever.search(chatbotId, expandedQuery(probe, concepts), GATE_DEPTH);
    scores.push(
      conceptRelevance(concepts, hits, profile, { threshold: 1, unknownFactor: 1, absentNounFactor: 1 }).score,
    );
  }
  const threshold = calibratedThreshold(scores);
  for (const x of questions) {
    const concepts = questionConcepts(x.q, profile, wn);
    const hits = await retriever.search(chatbotId, expandedQuery(x.q, concepts), GATE_DEPTH);
    const gate = conceptRelevance(concepts, hits, profile, { threshold });
    rows.push({
      corpus,
      q: x.q,
      kind: x.kind,
      split: x.split,
      inScope: x.inScope,
      top3: hits.slice(0, 3).some((h) => x.right(h.documentId)),
      relevant: gate.relevant,
      f: gateFeatures(x.q, concepts, hits, profile, gate, threshold),
    });
  }
}

for (const name of CORPORA) {
  const corpus = loadCorpus(name);
  const bot = await ingestCorpus(corpus);
  const profile = (await profileCache(answerContextRepository(bot.t.database.db)).get(bot.chatbotId))!;
  await dump(
    name,
    bot.t.app.services.retriever,
    bot.chatbotId,
    profile,
    corpus.questions.map((q) => ({
      q: q.q,
      inScope: q.kind !== 'oos',
      split: q.split,
      kind: q.kind,
      right: (id: string) => q.pages.includes(bot.pathOf.get(id)!),
    })),
  );
  await bot.t.close();
  console.error(`${name}: done`);
}
const f = await openAnswersDb();
await ingestFastifyDocs(f);
const fp = (await profileCache(answerContextRepository(f.db)).get(f.chatbotId))!;
const on = JSON.parse(readFileSync('bench/retrieval-questions.json', 'utf8')) as { q: string }[];
const off = JSON.parse(readFileSync('bench/offtopic-questions.json', 'utf8')) as { q: string }[];
await dump('fastify', createRetriever({ store: f.store.knowledge }), f.chatbotId, fp, [
  ...on.map((x) => ({ q: x.q, inScope: true, split: 'tuning', kind: 'direct', right: () => true })),
  ...off.map((x) => ({ q: x.q, inScope: false, split: 'tuning', kind: 'oos', right: () => false })),
]);
await f.close();
writeFileSync(process.argv[2] ?? '/tmp/gate-features.json', JSON.stringify(rows));
await closeExtractionWorkers();
wn.close();
process.exit(0);
