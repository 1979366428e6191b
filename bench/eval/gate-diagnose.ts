/** Prints the calibrated gate's view of every TUNING question (never the held-out ones): score, and each concept's weight and coverage. */
import { questionConcepts, expandedQuery } from '../../server/domain/answers/expansion.js';
import { idf, profileCache } from '../../server/domain/answers/knowledge-profile.js';
import { conceptRelevance, hitTerms } from '../../server/domain/answers/relevance.js';
import { closeExtractionWorkers } from '../../server/adapters/extraction/index.js';
import { createWordNet } from '../../server/adapters/wordnet.js';
import { answerContextRepository } from '../../server/storage/answers.repository.js';
import { ingestCorpus } from './answers-eval.js';
import { CORPORA, loadCorpus } from './corpus.js';
const wn = createWordNet();
for (const name of CORPORA.filter((n) => !process.env.EVAL_CORPUS || n === process.env.EVAL_CORPUS)) {
  const corpus = loadCorpus(name);
  const bot = await ingestCorpus(corpus);
  const profile = (await profileCache(answerContextRepository(bot.t.database.db)).get(bot.chatbotId))!;
  for (const q of corpus.questions.filter((x) => x.split === 'tuning')) {
    const concepts = questionConcepts(q.q, profile, wn);
    const hits = await bot.t.app.services.retriever.search(bot.chatbotId, expandedQuery(q.q, concepts), 5);
    const g = conceptRelevance(concepts, hits, profile);
    const right =
      q.kind === 'oos'
        ? '-'
        : q.pages.includes(bot.pathOf.get(hits[0]?.documentId)!)
          ? 'R1'
          : hits.slice(0, 3).some((h) => q.pages.includes(bot.pathOf.get(h.documentId)!))
            ? 'R3'
            : 'x';
    const words = new Set(hits.flatMap((h) => [...hitTerms(h)]));
    const parts = concepts.map(
      (c) =>
        `${c.word}(${idf(profile, c.term).toFixed(1)}${[...c.alternatives.keys()].some((t) => words.has(t)) ? '+' : '-'}${c.alternatives.size > 1 ? ':' + [...c.alternatives.keys()].slice(1).join('/') : ''})`,
    );
    console.log(
      `${q.kind === 'oos' ? 'OOS' : 'in '} ${right} ${g.score.toFixed(2)} u${g.union.toFixed(2)} b${g.best.toFixed(2)} ${parts.join(' ')}`,
    );
  }
  await bot.t.close();
}
await closeExtractionWorkers();
process.exit(0);
