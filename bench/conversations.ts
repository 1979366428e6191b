/**
 * Conversations (issue 4, item 9): a visitor message in, the answer stored and returned, through
 * the real app (buildApp on a fresh SQLite database, app.inject, LOG_LEVEL=silent), on a chatbot
 * whose knowledge is fastify's Markdown docs (Reference/ and Guides/) added with
 * POST /knowledge/text and ingested by the app's own queue.
 *
 * 1. Latency, one message at a time: POST /api/v2/chatbots/{id}/conversations/{threadId}/messages
 *    with the built-in (offline, extractive) answerer, over BENCH_MESSAGES messages (1,000) in
 *    conversations of 5 messages (so each answer reads a real history), questions taken in turn
 *    from bench/retrieval-questions.json (on-topic) and bench/offtopic-questions.json (the honest
 *    "I don't have information" reply). Each request does: auth, the conversation read, the
 *    visitor message and its event in one transaction, the history read, custom responses,
 *    retrieval, the relevance gate, the extractive answer, the answer and its event in a second
 *    transaction, the usage meter, the envelope. Baselines in the same run: retrieval alone
 *    (the engine's search, same depth) and GET .../conversations/{threadId} through app.inject
 *    (auth + one read + envelope: the request floor).
 * 2. Throughput: 50 conversations at once (BENCH_CONCURRENCY), each sending its next message when
 *    the previous answer came back, BENCH_MESSAGES messages in all -> messages/s, with the
 *    latencies seen under that load. One process, one SQLite connection: the event loop and the
 *    database are shared, as in production's single instance.
 * 3. Time to the first streamed token with the OpenAI-compatible stand-in (test/helpers/
 *    chat-standin.ts, which streams at once): the same database reopened by an app configured
 *    with OPENAI_BASE_URL; ConversationsService.sendVisitorMessage(..., onToken) -> first token
 *    (the visitor message written, history, custom responses, retrieval, the prompt, the HTTP
 *    round trip through the guarded client and the SDK), against the bare SDK call -> first delta
 *    over an equivalent client as the baseline. The difference is the server's own time before
 *    the first token. No HTTP route streams yet, so this is measured at the service.
 *
 * Settings (environment): BENCH_MESSAGES (1000), BENCH_CONCURRENCY (50), BENCH_FIRST_TOKEN_RUNS (200).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { GATE_DEPTH } from '../server/domain/answers/relevance.js';
import { closeExtractionWorkers } from '../server/adapters/extraction/index.js';
import { GuardedHttpClient } from '../server/outbound/guarded-client.js';
import { buildTestApp, type TestApp } from '../test/helpers/app.js';
import { startChatStandin } from '../test/helpers/chat-standin.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const DOCS = join(HERE, '..', 'node_modules', 'fastify', 'docs');
const int = (name: string, fallback: number) => {
  const n = Number(process.env[name] || fallback);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};
const MESSAGES = int('BENCH_MESSAGES', 1000);
const CONCURRENCY = int('BENCH_CONCURRENCY', 50);
const FIRST_TOKEN_RUNS = int('BENCH_FIRST_TOKEN_RUNS', 200);
const PER_CONVERSATION = 5;

const ON_TOPIC = (JSON.parse(readFileSync(join(HERE, 'retrieval-questions.json'), 'utf8')) as { q: string }[]).map(
  (q) => q.q,
);
const OFF_TOPIC = (JSON.parse(readFileSync(join(HERE, 'offtopic-questions.json'), 'utf8')) as { q: string }[]).map(
  (q) => q.q,
);
const QUESTIONS = [...ON_TOPIC, ...OFF_TOPIC];

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const ms = (x: number) => x.toFixed(2).padStart(8);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

interface Bot {
  t: TestApp;
  token: string;
  chatbotId: string;
  base: string;
}

async function post(bot: Bot, path: string, body: unknown) {
  const res = await bot.t.app.inject({
    method: 'POST',
    url: `${bot.base}${path}`,
    headers: { authorization: `Bearer ${bot.token}` },
    payload: body as object,
  });
  if (res.statusCode !== 201 && res.statusCode !== 202)
    throw new Error(`POST ${path}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return JSON.parse(res.body).data;
}

async function newConversation(bot: Bot): Promise<string> {
  return (await post(bot, '/conversations', {})).conversation.threadId as string;
}

/** One visitor message through the route; returns the latency and whether the answer was the honest refusal. */
async function send(bot: Bot, threadId: string, message: string): Promise<{ ms: number; unanswered: boolean }> {
  const start = performance.now();
  const res = await bot.t.app.inject({
    method: 'POST',
    url: `${bot.base}/conversations/${threadId}/messages`,
    headers: { authorization: `Bearer ${bot.token}` },
    payload: { message },
  });
  const elapsed = performance.now() - start;
  if (res.statusCode !== 201) throw new Error(`message: ${res.statusCode} ${res.body.slice(0, 300)}`);
  const answer = JSON.parse(res.body).data.answer;
  if (!answer) throw new Error('the AI did not answer');
  return { ms: elapsed, unanswered: answer.unanswered === true };
}

async function setup(
  dataDir: string,
  env: Record<string, string> = {},
  existing?: Omit<Bot, 't' | 'token'>,
): Promise<Bot> {
  const t = await buildTestApp({ dataDir, env: { QUEUE_POLL_MS: '20', ...env } });
  const { token } = await t.token();
  if (existing) return { t, token, ...existing };
  const created = await t.call('POST', '/api/v2/chatbots', token, { title: 'Fastify docs' });
  const chatbotId = created.body.data.chatbot.id as string;
  const bot = { t, token, chatbotId, base: `/api/v2/chatbots/${chatbotId}` };
  const files = ['Reference', 'Guides'].flatMap((d) =>
    readdirSync(join(DOCS, d))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => join(d, f)),
  );
  for (const file of files)
    await post(bot, '/knowledge/text', {
      title: file.replace(/\.md$/, ''),
      text: readFileSync(join(DOCS, file), 'utf8'),
    });
  await t.app.services.queue.drain(300_000);
  const chunks = await t.app.services.store.knowledge.chunks.count(chatbotId);
  console.log(`corpus: ${files.length} Markdown files of fastify's docs added as knowledge text, ${chunks} chunks`);
  return bot;
}

async function sequential(bot: Bot) {
  console.log(
    `\n1. ${MESSAGES} visitor messages one at a time, conversations of ${PER_CONVERSATION}, built-in answerer [load ${load()}]`,
  );
  const retriever = bot.t.app.services.retriever;
  // Warm-up: statement caches, the JIT, the relevance gate's term cache.
  let warm = '';
  for (let i = 0; i < 40; i++) {
    if (i % PER_CONVERSATION === 0) warm = await newConversation(bot);
    await send(bot, warm, QUESTIONS[i % QUESTIONS.length]);
  }
  const times: number[] = [];
  const floor: number[] = [];
  const search: number[] = [];
  let unanswered = 0;
  let threadId = '';
  for (let i = 0; i < MESSAGES; i++) {
    if (i % PER_CONVERSATION === 0) threadId = await newConversation(bot);
    const q = QUESTIONS[i % QUESTIONS.length];
    const r = await send(bot, threadId, q);
    times.push(r.ms);
    if (r.unanswered) unanswered++;
    let start = performance.now();
    await retriever.search(bot.chatbotId, q, GATE_DEPTH + 6);
    search.push(performance.now() - start);
    start = performance.now();
    const res = await bot.t.app.inject({
      method: 'GET',
      url: `${bot.base}/conversations/${threadId}`,
      headers: { authorization: `Bearer ${bot.token}` },
    });
    floor.push(performance.now() - start);
    if (res.statusCode !== 200) throw new Error(`GET conversation: ${res.statusCode}`);
  }
  const row = (label: string, xs: number[]) =>
    console.log(`  ${label.padEnd(46)}${ms(percentile(xs, 50))}  ${ms(percentile(xs, 99))}`);
  console.log(`  ${'target'.padEnd(46)}     p50       p99   (ms)`);
  row('GET conversation via inject (request floor)', floor);
  row(`retrieval alone, k=${GATE_DEPTH + 6} (baseline)`, search);
  row('visitor message -> stored answer', times);
  console.log(
    `  ${unanswered}/${MESSAGES} answered with the honest "no information" reply (${OFF_TOPIC.length} of the ${QUESTIONS.length} questions are off-topic)`,
  );
  return {
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    floor: percentile(floor, 50),
    search: percentile(search, 50),
  };
}

async function concurrent(bot: Bot) {
  console.log(
    `\n2. ${MESSAGES} visitor messages from ${CONCURRENCY} conversations at once, built-in answerer [load ${load()}]`,
  );
  // Every conversation is created first (a visitor opening the widget); only messages are timed.
  const threads: string[] = [];
  for (let i = 0; i < Math.ceil(MESSAGES / PER_CONVERSATION) + CONCURRENCY; i++)
    threads.push(await newConversation(bot));
  const times: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, c) => {
      let threadId = threads.pop()!;
      for (let sent = 0; next < MESSAGES; sent++) {
        next++;
        // Each visitor walks the questions from its own offset, in conversations of 5 messages.
        if (sent > 0 && sent % PER_CONVERSATION === 0) threadId = threads.pop()!;
        times.push((await send(bot, threadId, QUESTIONS[(c * 7 + sent) % QUESTIONS.length])).ms);
      }
    }),
  );
  const elapsed = performance.now() - start;
  const rate = (times.length / elapsed) * 1000;
  console.log(
    `  ${times.length} messages in ${(elapsed / 1000).toFixed(2)} s = ${rate.toFixed(1)} messages/s; latency under load p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms`,
  );
  return { rate, p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function firstToken(dataDir: string, chatbotId: string) {
  console.log(
    `\n3. time to the first streamed token, stand-in model streaming at once, ${FIRST_TOKEN_RUNS} runs each [load ${load()}]`,
  );
  const standin = await startChatStandin();
  const bot = await setup(
    dataDir,
    { OPENAI_BASE_URL: standin.baseUrl },
    { chatbotId, base: `/api/v2/chatbots/${chatbotId}` },
  );
  const client = new GuardedHttpClient({ allowPrivate: true });
  try {
    const auth = (await bot.t.app.services.tokens.authenticate(bot.token))!;
    const conversations = bot.t.app.services.conversations;
    const sdk = new OpenAI({
      apiKey: 'unused',
      baseURL: standin.baseUrl,
      fetch: client.fetchWith({ timeoutMs: 30_000 }),
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
    let threadId = '';
    const viaService = async (i: number) => {
      if (i % PER_CONVERSATION === 0) threadId = await newConversation(bot);
      const start = performance.now();
      let first = -1;
      const out = await conversations.visitors.sendVisitorMessage(
        auth,
        chatbotId,
        threadId,
        { message: ON_TOPIC[i % ON_TOPIC.length] },
        () => {
          if (first < 0) first = performance.now() - start;
        },
      );
      if (!out.answer) throw new Error('no answer from the stand-in');
      return first;
    };
    for (let i = 0; i < 10; i++) {
      await bare();
      await viaService(i);
    }
    const bareTimes: number[] = [];
    const serviceTimes: number[] = [];
    for (let i = 0; i < FIRST_TOKEN_RUNS; i++) {
      bareTimes.push(await bare());
      serviceTimes.push(await viaService(i));
    }
    const own50 = percentile(serviceTimes, 50) - percentile(bareTimes, 50);
    const own99 = percentile(serviceTimes, 99) - percentile(bareTimes, 99);
    const row = (label: string, xs: number[]) =>
      console.log(`  ${label.padEnd(46)}${ms(percentile(xs, 50))}  ${ms(percentile(xs, 99))}`);
    console.log(`  ${'target'.padEnd(46)}     p50       p99   (ms)`);
    row('bare SDK -> stand-in, first delta (baseline)', bareTimes);
    row('sendVisitorMessage -> first onToken', serviceTimes);
    console.log(
      `  the server's own time before the first token: p50 ${own50.toFixed(2)} ms, p99 ${own99.toFixed(2)} ms (service minus baseline)`,
    );
    return { own50, own99 };
  } finally {
    await client.close();
    await bot.t.close();
    await standin.close();
  }
}

export async function run() {
  console.log(`machine: ${cpus().length} cores, load average ${load()}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-conversations-'));
  try {
    const bot = await setup(dataDir);
    let one, many;
    try {
      one = await sequential(bot);
      many = await concurrent(bot);
    } finally {
      await bot.t.close();
      await closeExtractionWorkers();
    }
    const token = await firstToken(dataDir, bot.chatbotId);
    console.log(`\nsummary [load ${load()}]`);
    console.log(
      `  visitor message -> stored answer (built-in), one at a time: p50 ${one.p50.toFixed(2)} ms, p99 ${one.p99.toFixed(2)} ms (request floor p50 ${one.floor.toFixed(2)} ms, retrieval alone p50 ${one.search.toFixed(2)} ms)`,
    );
    console.log(
      `  ${CONCURRENCY} concurrent conversations: ${many.rate.toFixed(1)} messages/s (p50 ${many.p50.toFixed(1)} ms, p99 ${many.p99.toFixed(1)} ms)`,
    );
    console.log(
      `  server's own time before the first streamed token (stand-in): p50 ${token.own50.toFixed(2)} ms, p99 ${token.own99.toFixed(2)} ms`,
    );
    return { one, many, token };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
