/**
 * Parameter search for the answer engine on the TUNING halves of the answer eval only: each
 * corpus is crawled once by the app, then every setting of the grid answers the tuning questions
 * through an engine built on that app's own retriever and store (no HTTP, so a grid runs in
 * seconds). The held-out halves are never read here. `npx tsx bench/eval/tune.ts`;
 * `TUNE_VERBOSE=1` prints the misses of the first setting.
 */
import { createAnswerEngine } from '../../server/domain/answers/engine.js';
import { createExtractiveProvider } from '../../server/domain/answers/extractive.js';
import { closeExtractionWorkers } from '../../server/adapters/extraction/index.js';
import { createWordNet } from '../../server/adapters/wordnet.js';
import { answerContextRepository } from '../../server/storage/answers.repository.js';
import { figures, ingestCorpus, type Bot, type Outcome } from './answers-eval.js';
import { CORPORA, loadCorpus, type Corpus } from './corpus.js';

interface Setting {
  threshold: number;
  relatedWeight: number;
  broaderWeight: number;
  maxRelated: number;
  typoWeight: number;
  nounSalience: number;
  otherSalience: number;
  lexicon: boolean;
}

/**
 * Around the chosen setting (expansion.ts, relevance.ts), one parameter at a time, and without
 * the lexicon; `TUNE_QUICK=1` runs the chosen setting alone.
 */
const CHOSEN: Setting = { threshold: 0.45, relatedWeight: 0.8, broaderWeight: 0.4, maxRelated: 2, typoWeight: 0.9, nounSalience: 2, otherSalience: 0.6, lexicon: true };
const VARIANTS: Partial<Record<keyof Setting, unknown[]>> = {
  threshold: [0.3, 0.35, 0.4, 0.5, 0.55, 0.6],
  relatedWeight: [0.6, 1],
  broaderWeight: [0, 0.8],
  maxRelated: [1, 4, 8],
  nounSalience: [1, 3],
  otherSalience: [0.3, 1],
  lexicon: [false],
};
const grid: Setting[] = [CHOSEN];
if (!process.env.TUNE_QUICK) for (const [key, values] of Object.entries(VARIANTS)) for (const v of values!) grid.push({ ...CHOSEN, [key]: v });

const wordnet = createWordNet();

async function answerAll(bot: Bot, corpus: Corpus, s: Setting): Promise<Outcome[]> {
  const engine = createAnswerEngine({
    retriever: bot.t.app.services.retriever,
    store: answerContextRepository(bot.t.database.db),
    provider: createExtractiveProvider(),
    lexicon: s.lexicon ? wordnet : null,
    tuning: { threshold: s.threshold, expansion: { broaderWeight: s.broaderWeight, nounSalience: s.nounSalience, otherSalience: s.otherSalience, relatedWeight: s.relatedWeight, maxRelated: s.maxRelated, typoWeight: s.typoWeight } },
  });
  const out: Outcome[] = [];
  for (const question of corpus.questions.filter((q) => q.split === 'tuning')) {
    const start = performance.now();
    const a = await engine.answer({ chatbotId: bot.chatbotId, accountId: 'x', conversationId: 'tune', settings: {}, question: question.q, history: [] });
    out.push({ question, cited: a.sources.map((x) => bot.pathOf.get(x.documentId) ?? '?'), unanswered: a.unanswered, ms: performance.now() - start, searchMs: 0, text: a.text, anchor: [] });
  }
  return out;
}

const bots: { corpus: Corpus; bot: Bot }[] = [];
try {
  for (const name of CORPORA) {
    const corpus = loadCorpus(name);
    bots.push({ corpus, bot: await ingestCorpus(corpus) });
  }
  const rows: { s: Setting; score: number; line: string }[] = [];
  for (const [i, s] of grid.entries()) {
    const all: Outcome[] = [];
    const per: string[] = [];
    for (const { corpus, bot } of bots) {
      const o = await answerAll(bot, corpus, s);
      all.push(...o);
      const f = figures(o);
      per.push(`${corpus.name.slice(0, 5)} ${f.hit3.toFixed(2)}/${f.abstain.toFixed(2)}/${f.falseAbstain.toFixed(2)}`);
      if (i === 0 && process.env.TUNE_VERBOSE) {
        for (const x of o) {
          const ok = x.question.kind === 'oos' ? x.unanswered : x.question.pages.includes(x.cited[0]);
          if (!ok) console.log(`  ${corpus.name} ${x.question.kind} ${x.question.q} -> ${x.unanswered ? 'abstained' : x.cited.join(',')} (want ${x.question.pages.join(',') || 'abstain'})`);
        }
      }
    }
    const f = figures(all);
    // One figure to rank settings by: every goal counts, abstention errors as much as misses.
    const score = f.hit3 + f.hit1 + f.abstain - 2 * f.falseAbstain + f.reworded3;
    rows.push({
      s,
      score,
      line: `${JSON.stringify(s)} hit1 ${f.hit1.toFixed(2)} hit3 ${f.hit3.toFixed(2)} rew3 ${f.reworded3.toFixed(2)} abst ${f.abstain.toFixed(2)} false ${f.falseAbstain.toFixed(2)} | ${per.join(' | ')}`,
    });
  }
  rows.sort((a, b) => b.score - a.score);
  for (const r of rows.slice(0, 15)) console.log(r.score.toFixed(3), r.line);
} finally {
  for (const { bot } of bots) await bot.t.close();
  await closeExtractionWorkers();
  wordnet.close();
}
process.exit(0);
