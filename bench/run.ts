/**
 * `npm run bench -- <name>` runs bench/<name>.ts; with no name, every benchmark in turn.
 * Benchmarks print figures and never fail a build: timings depend on the machine.
 */
const BENCHMARKS: Record<string, { about: string; load: () => Promise<{ run: () => Promise<unknown> }> }> = {
  http: {
    about: 'authenticated GET /api/v2/chatbots/{id} against a bare Fastify route',
    load: () => import('./http.js'),
  },
  retrieval: {
    about: "hit@1 / hit@3 of lexical retrieval over fastify's docs, SQLite and PostgreSQL",
    load: () => import('./retrieval.js'),
  },
  eval: {
    about: 'answers on five unseen sites (crawled, asked over HTTP): hit@1/@3, abstention, latency, against plain BM25',
    load: () => import('./eval/answers-eval.js'),
  },
  answers: {
    about: 'answer engine: relevance gate rates, built-in latency, time to the first streamed token (stand-in model)',
    load: () => import('./answers.js'),
  },
  knowledge: {
    about: 'crawl pages/s (500-page local site), ingestion and search p50/p95 at 100k chunks, SQLite and PostgreSQL',
    load: () => import('./knowledge.js'),
  },
  startup: {
    about: 'CLI command time and server start to /health on an empty database, compiled vs tsx',
    load: () => import('./startup.js'),
  },
  uploads: {
    about: 'peak RSS while receiving and storing one 20 MB file upload, then ten at once (SQLite, then PostgreSQL)',
    load: () => import('./uploads.js'),
  },
  webhooks: {
    about:
      'deliveries/s to a local HTTPS receiver against direct POSTs; latency a webhook adds to the API call that emits it',
    load: () => import('./webhooks.js'),
  },
  widget: {
    about:
      'widget.js and chunk bytes (raw/gzip/brotli); time to bubble vs flowise-embed and to the first answer, in chromium',
    load: () => import('./widget.js'),
  },
  realtime: {
    about:
      'visitor gateway: message -> stored -> event back at 200 sockets vs a bare ws echo, first streamed token, memory per idle socket',
    load: () => import('./realtime.js'),
  },
  fleet: {
    about:
      'PostgreSQL + Redis: one instance vs a durable ws chat yardstick, two behind nginx vs one, memory per idle socket',
    load: () => import('./fleet.js'),
  },
  conversations: {
    about: 'visitor message -> stored answer p50/p99, 50 concurrent conversations, time to the first token',
    load: () => import('./conversations.js'),
  },
};

function usage(): string {
  const names = Object.entries(BENCHMARKS).map(([name, b]) => `  ${name.padEnd(16)}${b.about}`);
  return [
    'Usage: npm run bench [-- <name>]   (eval: npm run eval [-- --provider <OpenAI-compatible base URL | openai> [--model <name>]])',
    '',
    'Benchmarks (no name runs them all, one after another):',
    ...names,
    '',
  ].join('\n');
}

const argv = process.argv.slice(2).filter((a) => a !== '--');
// `--provider <url|openai>` and `--model <name>` (the eval with a language model) go to the benchmark as EVAL_PROVIDER / EVAL_MODEL.
const args: string[] = [];
for (let i = 0; i < argv.length; i++) {
  const option = /^--(provider|model)$/.exec(argv[i]);
  if (option && argv[i + 1]) process.env[`EVAL_${option[1].toUpperCase()}`] = argv[++i];
  else args.push(argv[i]);
}
if (args[0] === '--help' || args[0] === '-h') {
  console.log(usage());
  process.exit(0);
}
if (args.length > 1 || (args[0] !== undefined && !Object.hasOwn(BENCHMARKS, args[0]))) {
  console.error(`Unknown benchmark "${args.join(' ')}".\n`);
  console.error(usage());
  process.exit(2);
}

for (const name of args.length ? args : Object.keys(BENCHMARKS)) {
  console.log(`== ${name}: ${BENCHMARKS[name].about}`);
  const { run } = await BENCHMARKS[name].load();
  await run();
}
// Open handles (pools, timers) of a finished benchmark must not keep the process alive.
process.exit(0);
