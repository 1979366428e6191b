/**
 * Why the answers cite fewer answering pages than retrieval ranks in its top three: every TUNING
 * question (never the held-out ones) answered with the gate off, beside the engine's own search
 * (the expanded query, top three distinct pages). Prints each question where retrieval's top three
 * hold an answering page and the answer's cited ones do not, with where its quoted sentences came from.
 */
import { createAnswerEngine } from '../../server/domain/answers/engine.js';
import { createExtractiveProvider } from '../../server/domain/answers/extractive.js';
import { expandedQuery, questionConcepts } from '../../server/domain/answers/expansion.js';
import { profileCache } from '../../server/domain/answers/knowledge-profile.js';
import { closeExtractionWorkers } from '../../server/adapters/extraction/index.js';
import { createWordNet } from '../../server/adapters/wordnet.js';
import { answerContextRepository } from '../../server/storage/answers.repository.js';
import { ingestCorpus } from './answers-eval.js';
import { CORPORA, loadCorpus } from './corpus.js';

const wn = createWordNet();
const threshold = process.env.CITE_GATE ? undefined : 0;
let n = 0,
  r3 = 0,
  a3 = 0,
  a1 = 0,
  r1 = 0,
  answered = 0,
  answeredR3 = 0,
  answeredA3 = 0;
for (const name of CORPORA.filter((c) => !process.env.EVAL_CORPUS || process.env.EVAL_CORPUS.split(',').includes(c))) {
  const corpus = loadCorpus(name);
  const bot = await ingestCorpus(corpus);
  const store = answerContextRepository(bot.t.database.db);
  const engine = createAnswerEngine({
    retriever: bot.t.app.services.retriever,
    store,
    provider: createExtractiveProvider(),
    lexicon: wn,
    tuning: { threshold },
  });
  const profile = (await profileCache(store).get(bot.chatbotId))!;
  for (const q of corpus.questions.filter((x) => x.split === 'tuning' && x.kind !== 'oos')) {
    const concepts = questionConcepts(q.q, profile, wn);
    const hits = await bot.t.app.services.retriever.search(bot.chatbotId, expandedQuery(q.q, concepts), 11);
    const pages = [...new Set(hits.map((h) => bot.pathOf.get(h.documentId)!))];
    const a = await engine.answer({
      chatbotId: bot.chatbotId,
      accountId: 'x',
      conversationId: 'd',
      settings: {},
      question: q.q,
      history: [],
    });
    const cited = a.sources.map((s) => bot.pathOf.get(s.documentId)!);
    const inR3 = pages.slice(0, 3).some((p) => q.pages.includes(p));
    const inA3 = cited.slice(0, 3).some((p) => q.pages.includes(p));
    n++;
    r3 += +inR3;
    a3 += +inA3;
    a1 += +q.pages.includes(cited[0]);
    r1 += +q.pages.includes(pages[0]);
    if (!a.unanswered) {
      answered++;
      answeredR3 += +inR3;
      answeredA3 += +inA3;
    }
    if (inR3 !== inA3 || process.env.CITE_ALL) {
      const rank = pages.findIndex((p) => q.pages.includes(p));
      console.log(
        `${name} ${q.kind} ${inR3 ? 'R3' : '--'} ${inA3 ? 'A3' : '--'} ${q.q}\n   want ${q.pages.join(',')} (retrieval page rank ${rank + 1}); retrieval ${pages.slice(0, 5).join(' ')}\n   cited ${a.unanswered ? '(abstained)' : cited.join(' ')}\n   text: ${a.text.replace(/\s+/g, ' ').slice(0, 220)}`,
      );
    }
  }
  await bot.t.close();
}
console.log(
  `tuning in-scope ${n}: retrieval hit@1 ${(r1 / n).toFixed(2)} hit@3 ${(r3 / n).toFixed(2)}; answer hit@1 ${(a1 / n).toFixed(2)} hit@3 ${(a3 / n).toFixed(2)}; answered ${answered}: retrieval hit@3 ${(answeredR3 / answered).toFixed(2)}, cited hit@3 ${(answeredA3 / answered).toFixed(2)}`,
);
await closeExtractionWorkers();
wn.close();
process.exit(0);
