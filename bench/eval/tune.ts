/**
 * Parameter search for the answer engine on the TUNING halves of the answer eval only: each
 * corpus is crawled once by the app, then every setting answers the tuning questions through an
 * engine built on that app's own retriever and store (no HTTP, so a grid runs in seconds). The
 * held-out halves are never read here. fastify's docs with bench/retrieval-questions.json
 * (on-topic) and bench/offtopic-questions.json (off-topic) are a sixth corpus: a big technical
 * base where loose stand-ins find something for almost any question.
 * `npx tsx bench/eval/tune.ts`; `TUNE_QUICK=1` runs the chosen setting alone; `TUNE_VERBOSE=1`
 * prints the misses of the first setting.
 */
import { readFileSync } from 'node:fs';
import { createAnswerEngine, type AnswerEngineOptions } from '../../server/domain/answers/engine.js';
import { createExtractiveProvider } from '../../server/domain/answers/extractive.js';
import { closeExtractionWorkers } from '../../server/adapters/extraction/index.js';
import { createRetriever } from '../../server/domain/knowledge/retrieval.js';
import { createWordNet } from '../../server/adapters/wordnet.js';
import { answerContextRepository } from '../../server/storage/answers.repository.js';
import { ingestFastifyDocs, openAnswersDb, type AnswersDb } from '../../test/server/domain/answers/fixtures.js';
import { figures, ingestCorpus, isHedged, type Bot, type Outcome } from './answers-eval.js';
import { CORPORA, loadCorpus, type Corpus } from './corpus.js';

type Tuning = NonNullable<AnswerEngineOptions['tuning']>;
interface Setting {
  name: string;
  tuning: Tuning;
  lexicon: boolean;
}

const CHOSEN: Setting = { name: 'chosen', tuning: {}, lexicon: true };
const grid: Setting[] = [CHOSEN];
// The last grid run; earlier ones (the gate's share of union, stand-in factor, calibration's
// floor and slope, unknown and absent-noun factors, question words, a field-weighted re-ranking)
// are described in server/domain/answers/README.md with what each was worth.
// This session (issue 23): the share of the threshold above which an answer is given with the
// hedge, and multiword expressions.
const variants: [string, Tuning][] = [];
for (const hedgeRatio of [1, 0.8, 0.6, 0.5, 0.4, 0.25])
  for (const phraseWeight of [0, 0.8])
    variants.push([
      `hedge ${hedgeRatio} phrases ${phraseWeight}`,
      { calibration: { hedgeRatio }, expansion: { phraseWeight } },
    ]);
if (!process.env.TUNE_QUICK)
  for (const [name, tuning] of variants) grid.push({ name, tuning, lexicon: name !== 'without WordNet' });

const wordnet = createWordNet();

function engineFor(retriever: AnswerEngineOptions['retriever'], store: AnswerEngineOptions['store'], s: Setting) {
  return createAnswerEngine({
    retriever,
    store,
    provider: createExtractiveProvider(),
    lexicon: s.lexicon ? wordnet : null,
    tuning: s.tuning,
  });
}

async function answerAll(bot: Bot, corpus: Corpus, s: Setting): Promise<Outcome[]> {
  const engine = engineFor(bot.t.app.services.retriever, answerContextRepository(bot.t.database.db), s);
  const out: Outcome[] = [];
  for (const question of corpus.questions.filter((q) => q.split === 'tuning')) {
    const start = performance.now();
    const a = await engine.answer({
      chatbotId: bot.chatbotId,
      accountId: 'x',
      conversationId: 'tune',
      settings: {},
      question: question.q,
      history: [],
    });
    out.push({
      question,
      cited: a.sources.map((x) => bot.pathOf.get(x.documentId) ?? '?'),
      unanswered: a.unanswered,
      notSure: isHedged(a.text),
      ms: performance.now() - start,
      searchMs: 0,
      text: a.text,
      anchor: [],
    });
  }
  return out;
}

const ON_TOPIC = JSON.parse(readFileSync('bench/retrieval-questions.json', 'utf8')) as { q: string }[];
const OFF_TOPIC = JSON.parse(readFileSync('bench/offtopic-questions.json', 'utf8')) as { q: string }[];

/** fastify: on-topic answered, off-topic refused. */
async function fastifyRates(f: AnswersDb, s: Setting, verbose: boolean) {
  const engine = engineFor(createRetriever({ store: f.store.knowledge }), answerContextRepository(f.db), s);
  const ask = (q: string) =>
    engine.answer({
      chatbotId: f.chatbotId,
      accountId: f.accountId,
      conversationId: 'tune',
      settings: {},
      question: q,
      history: [],
    });
  let answered = 0;
  let refused = 0;
  for (const { q } of ON_TOPIC)
    if (!(await ask(q)).unanswered) answered++;
    else if (verbose) console.log(`  fastify refused on-topic: ${q}`);
  for (const { q } of OFF_TOPIC)
    if ((await ask(q)).unanswered) refused++;
    else if (verbose) console.log(`  fastify answered off-topic: ${q}`);
  return { on: answered / ON_TOPIC.length, off: refused / OFF_TOPIC.length };
}

const bots: { corpus: Corpus; bot: Bot }[] = [];
// TUNE_NO_FASTIFY=1 leaves the sixth corpus out (a quick grid; its bounds then go unchecked).
const withFastify = !process.env.TUNE_NO_FASTIFY;
const fastify = await openAnswersDb();
try {
  if (withFastify) await ingestFastifyDocs(fastify);
  for (const name of CORPORA) {
    const corpus = loadCorpus(name);
    bots.push({ corpus, bot: await ingestCorpus(corpus) });
  }
  const rows: { score: number; line: string }[] = [];
  for (const [i, s] of grid.entries()) {
    const verbose = i === 0 && !!process.env.TUNE_VERBOSE;
    const all: Outcome[] = [];
    const per: string[] = [];
    for (const { corpus, bot } of bots) {
      const o = await answerAll(bot, corpus, s);
      all.push(...o);
      const f = figures(o);
      per.push(`${corpus.name.slice(0, 5)} ${f.hit3.toFixed(2)}/${f.abstain.toFixed(2)}/${f.falseAbstain.toFixed(2)}`);
      if (verbose) {
        for (const x of o) {
          const ok = x.question.kind === 'oos' ? x.unanswered : x.question.pages.includes(x.cited[0]);
          if (!ok)
            console.log(
              `  ${corpus.name} ${x.question.kind} ${x.question.q} -> ${x.unanswered ? 'abstained' : x.cited.join(',')} (want ${x.question.pages.join(',') || 'abstain'})`,
            );
        }
      }
    }
    const fr = withFastify ? await fastifyRates(fastify, s, verbose) : { on: NaN, off: NaN };
    const f = figures(all);
    // One figure to rank settings by: every goal counts, in-scope success twice (hit@1, hit@3)
    // and out-of-scope success twice (abstention), false abstention twice; fastify's off-topic
    // refusals below 0.85 or on-topic answers below 0.9 disqualify.
    const score =
      f.hit3 + f.hit1 + 2 * f.abstain - 2 * f.falseAbstain + f.reworded3 - (fr.off < 0.85 || fr.on < 0.9 ? 10 : 0);
    rows.push({
      score,
      line: `${s.name.padEnd(28)} hit1 ${f.hit1.toFixed(2)} hit3 ${f.hit3.toFixed(2)} rew3 ${f.reworded3.toFixed(2)} abst ${f.abstain.toFixed(2)} false ${f.falseAbstain.toFixed(2)} unsure ${f.notSureIn.toFixed(2)}/${f.notSureOos.toFixed(2)} p95 ${f.p95.toFixed(1)} | fastify on ${fr.on.toFixed(2)} off ${fr.off.toFixed(2)} | ${per.join(' | ')}`,
    });
    console.log(score.toFixed(3), rows.at(-1)!.line);
  }
  console.log('--- best first');
  rows.sort((a, b) => b.score - a.score);
  for (const r of rows.slice(0, 15)) console.log(r.score.toFixed(3), r.line);
} finally {
  for (const { bot } of bots) await bot.t.close();
  await fastify.close();
  await closeExtractionWorkers();
  wordnet.close();
}
process.exit(0);
