/**
 * First the multi-corpus answer eval (bench/eval/answers-eval.ts: five unseen sites crawled and
 * asked over HTTP, against plain BM25; also `npm run eval` alone). Then the answer engine, over fastify's docs ingested into a temporary SQLite database (the same
 * corpus as bench/retrieval.ts), in three parts:
 *
 * 1. Relevance gate: share of bench/retrieval-questions.json answered by the built-in answerer
 *    (and share whose sources include an answering document), share of
 *    bench/offtopic-questions.json refused with the honest reply.
 * 2. Built-in answerer latency per question (engine.answer, whole), against retrieval alone
 *    (retriever.search with the same depth) as the baseline in the same run.
 * 3. Time to the first streamed token with the OpenAI-compatible stand-in, which streams at
 *    once: engine.answer -> first onToken (custom responses, instruction and persona reads,
 *    retrieval, the gate, the prompt, the output filter, the HTTP round trip through the guarded
 *    client and the SDK), against the bare SDK call -> first delta over the same client as the
 *    baseline. The difference is the server's own time before the first token.
 *
 * Settings (environment): BENCH_FIRST_TOKEN_RUNS (default 200), BENCH_BUILTIN_ROUNDS (default 5).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { createAnswerEngine } from '../server/domain/answers/engine.js';
import { createExtractiveProvider } from '../server/domain/answers/extractive.js';
import { createOpenAIProvider } from '../server/adapters/openai-provider.js';
import { GATE_DEPTH } from '../server/domain/answers/relevance.js';
import { createWordNet } from '../server/adapters/wordnet.js';
import type { AnswerEngine } from '../server/domain/conversations/ports.js';
import { createRetriever } from '../server/domain/knowledge/retrieval.js';
import { GuardedHttpClient } from '../server/outbound/guarded-client.js';
import { answerContextRepository } from '../server/storage/answers.repository.js';
import { startChatStandin } from '../test/helpers/chat-standin.js';
import { runEval } from './eval/answers-eval.js';
import { ingestFastifyDocs, openAnswersDb, resources } from '../test/server/domain/answers/fixtures.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ON_TOPIC = JSON.parse(readFileSync(join(HERE, 'retrieval-questions.json'), 'utf8')) as {
  q: string;
  doc: string;
  alsoIn?: string[];
}[];
const OFF_TOPIC = JSON.parse(readFileSync(join(HERE, 'offtopic-questions.json'), 'utf8')) as {
  q: string;
  topic: string;
}[];
const FIRST_TOKEN_RUNS = Number(process.env.BENCH_FIRST_TOKEN_RUNS || 200);
const BUILTIN_ROUNDS = Number(process.env.BENCH_BUILTIN_ROUNDS || 5);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const ms = (x: number) => x.toFixed(2).padStart(8);

export async function run() {
  console.log('-- the answer eval: five sites of different kinds (npm run eval runs this part alone)');
  await runEval();
  console.log("\n-- fastify's docs");
  const t = await openAnswersDb();
  const standin = await startChatStandin();
  const outbound = new GuardedHttpClient({ allowPrivate: true });
  try {
    const byDocument = await ingestFastifyDocs(t);
    const retriever = createRetriever({ store: t.store.knowledge });
    const store = answerContextRepository(t.db);
    const lexicon = createWordNet();
    const builtIn = createAnswerEngine({ retriever, store, provider: createExtractiveProvider(), lexicon });
    const ask = (
      engine: AnswerEngine,
      question: string,
      settings: Record<string, unknown> = {},
      onToken?: (x: string) => void,
    ) =>
      engine.answer({
        chatbotId: t.chatbotId,
        accountId: t.accountId,
        conversationId: 'bench',
        settings,
        question,
        history: [],
        onToken,
      });

    // 1. The gate.
    let answered = 0;
    let cited = 0;
    let refused = 0;
    const wrong: string[] = [];
    for (const q of ON_TOPIC) {
      const a = await ask(builtIn, q.q);
      if (a.unanswered) {
        wrong.push(`refused on-topic: ${q.q}`);
        continue;
      }
      answered++;
      const docs = a.sources.map((s) => byDocument.get(s.documentId));
      if (docs.some((d) => d === q.doc || q.alsoIn?.includes(d!))) cited++;
    }
    for (const q of OFF_TOPIC) {
      if ((await ask(builtIn, q.q)).unanswered) refused++;
      else wrong.push(`answered off-topic (${q.topic}): ${q.q}`);
    }
    console.log(
      `relevance gate calibrated on the base (top ${GATE_DEPTH} passages, WordNet stand-ins), built-in answerer, SQLite lexical retrieval:`,
    );
    console.log(`  on-topic answered   ${answered}/${ON_TOPIC.length} = ${(answered / ON_TOPIC.length).toFixed(3)}`);
    console.log(
      `  on-topic citing an answering document ${cited}/${ON_TOPIC.length} = ${(cited / ON_TOPIC.length).toFixed(3)}`,
    );
    console.log(`  off-topic refused   ${refused}/${OFF_TOPIC.length} = ${(refused / OFF_TOPIC.length).toFixed(3)}`);
    for (const w of wrong) console.log(`    ${w}`);

    // 2. Built-in latency per question, against retrieval alone.
    const questions = [...ON_TOPIC.map((q) => q.q), ...OFF_TOPIC.map((q) => q.q)];
    const engineTimes: number[] = [];
    const searchTimes: number[] = [];
    for (let round = 0; round < BUILTIN_ROUNDS; round++) {
      for (const q of questions) {
        let start = performance.now();
        await retriever.search(t.chatbotId, q, GATE_DEPTH + 6);
        searchTimes.push(performance.now() - start);
        start = performance.now();
        await ask(builtIn, q);
        engineTimes.push(performance.now() - start);
      }
    }
    if (engineTimes.length) {
      console.log(`\nbuilt-in answerer, ${questions.length} questions x ${BUILTIN_ROUNDS} rounds (ms):`);
      console.log(`  target                               p50       p99`);
      console.log(
        `  retrieval alone (baseline)      ${ms(percentile(searchTimes, 50))}  ${ms(percentile(searchTimes, 99))}`,
      );
      console.log(
        `  engine.answer, built-in         ${ms(percentile(engineTimes, 50))}  ${ms(percentile(engineTimes, 99))}`,
      );
    }

    // 3. Time to the first streamed token with the stand-in.
    const fetch = outbound.fetchWith({ timeoutMs: 30_000 });
    const model = createAnswerEngine({
      retriever,
      store,
      lexicon,
      provider: createOpenAIProvider({
        baseUrl: standin.baseUrl,
        apiKey: null,
        models: { 'gpt-4.1': 'standin', 'gpt-4.1-mini': 'standin' },
        fetch,
        timeoutMs: 10_000,
      }),
    });
    const promptId = await resources(t).instruction('Answer in two sentences and mention the page you used.', 0.2);
    const personaId = await resources(t).persona('A patient senior engineer.');
    for (let i = 0; i < 20; i++) await resources(t).customResponse(`Unrelated canned question number ${i}?`, 'Canned.');
    const settings = { promptId, personaId, systemPrompt: 'Be friendly.' };
    const sdk = new OpenAI({
      apiKey: 'unused',
      baseURL: standin.baseUrl,
      fetch,
      maxRetries: 0,
      defaultHeaders: { Authorization: null },
    });
    const bare = async () => {
      const start = performance.now();
      let first = -1;
      const stream = await sdk.chat.completions.create({
        model: 'standin',
        messages: [{ role: 'user', content: 'Hi' }],
        stream: true,
      });
      for await (const c of stream) if (first < 0 && c.choices[0]?.delta?.content) first = performance.now() - start;
      return first;
    };
    const viaEngine = async (question: string) => {
      const start = performance.now();
      let first = -1;
      await ask(model, question, settings, () => {
        if (first < 0) first = performance.now() - start;
      });
      return first;
    };
    for (let i = 0; i < 10; i++) {
      await bare();
      await viaEngine(ON_TOPIC[i % ON_TOPIC.length].q);
    }
    const bareTimes: number[] = [];
    const engineFirst: number[] = [];
    for (let i = 0; i < FIRST_TOKEN_RUNS; i++) {
      bareTimes.push(await bare());
      engineFirst.push(await viaEngine(ON_TOPIC[i % ON_TOPIC.length].q));
    }
    const p50 = percentile(engineFirst, 50) - percentile(bareTimes, 50);
    const p99 = percentile(engineFirst, 99) - percentile(bareTimes, 99);
    console.log(
      `\ntime to the first streamed token, stand-in model streaming at once, ${FIRST_TOKEN_RUNS} runs each (ms):`,
    );
    console.log(`  target                               p50       p99`);
    console.log(`  bare SDK -> stand-in (baseline) ${ms(percentile(bareTimes, 50))}  ${ms(percentile(bareTimes, 99))}`);
    console.log(
      `  engine.answer -> first onToken  ${ms(percentile(engineFirst, 50))}  ${ms(percentile(engineFirst, 99))}`,
    );
    console.log(
      `  the server's own time before the first token: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (engine minus baseline)`,
    );
    return { answered, cited, refused, engineFirst, bareTimes, engineTimes, searchTimes };
  } finally {
    await standin.close();
    await outbound.close();
    await t.close();
  }
}
