/**
 * Knowledge at scale, in three parts (issue 3, item 12):
 *
 * 1. Crawl throughput: a local 500-page website (node:http on 127.0.0.1; pages of 2-4 KB of
 *    text drawn from fastify's docs, with headings and 3-6 links each; robots.txt allows all)
 *    crawled through the real app: buildApp on a fresh SQLite database, ALLOW_PRIVATE_FETCH=1,
 *    POST /api/v2/chatbots/{id}/knowledge/website through app.inject, then services.queue.drain().
 *    Every page goes the production way: robots.txt, pacing, the guarded HTTP client, HTML
 *    extraction in the worker pool, link discovery, chunking, the page quota, the chunk write.
 *    Baseline in the same run: the same 500 pages fetched bare (fetch(), 8 at a time), i.e. what
 *    the site and the HTTP stack alone allow. Goal: >= 50 pages/s.
 * 2. Ingestion of 100k chunks (2,000 documents x 50 chunks by default, one chatbot): each
 *    document written the way the indexer writes it, documents.insert + chunks.replace in one
 *    transaction, on SQLite and on PostgreSQL. The text comes from a word-bigram model of one
 *    fastify docs file per document (50-180 words a chunk, like the real docs' chunks), so word
 *    and document frequencies look like a real documentation corpus's: "schema" is in 30 % of
 *    the chunks (21 % in the real docs' chunks), "request" in 60 % (54 %).
 * 3. Retrieval at that size: 500 questions built from the same docs (content words that sit side
 *    by side in them, in question templates) through createRetriever().search(chatbotId, q, 5),
 *    one at a time after a warm-up -> p50/p95 ms; and, as a cross-check, the hand-written
 *    questions of bench/retrieval-questions.json. Goal: p95 <= 15 ms on SQLite. On PostgreSQL
 *    running on this machine, also the CPU each search took (server processes + this one): on a
 *    shared machine the wall clock mostly measures the wait for a core.
 *
 * Settings (environment): BENCH_PAGES (500), BENCH_CHUNKS (100000), BENCH_CHUNKS_PER_DOC (50),
 * BENCH_QUERIES (500), BENCH_SKIP (comma list of crawl, sqlite, postgres, postgres-toast: the
 * baseline layout of the search vectors before migration 0029),
 * BENCH_DATABASE_URL (else DATABASE_URL_TEST, else postgres://postgres@127.0.0.1:5432/test).
 * PostgreSQL runs in a schema of its own, dropped afterwards; it is skipped with a note when
 * unreachable.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { newId, nowIso } from '../server/domain/ids.js';
import { closeExtractionWorkers } from '../server/adapters/extraction/index.js';
import type { ChunkInput } from '../server/domain/knowledge/ports.js';
import { createRetriever } from '../server/domain/knowledge/retrieval.js';
import type { Store } from '../server/domain/ports.js';
import type { DatabaseHandle, DialectName } from '../server/storage/dialects/index.js';
import { STOPWORDS } from '../server/storage/search-terms.js';
import { createStore } from '../server/storage/store.js';
import { buildTestApp } from '../test/helpers/app.js';
import { loadQuestions } from './retrieval.js';
import { serverCpuMs, serverPids, withPostgres, withSqlite } from './databases.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = join(ROOT, 'node_modules', 'fastify', 'docs');

const int = (name: string, fallback: number) => {
  const n = Number(process.env[name] || fallback);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};
const PAGES = int('BENCH_PAGES', 500);
const CHUNKS = int('BENCH_CHUNKS', 100_000);
const PER_DOC = int('BENCH_CHUNKS_PER_DOC', 50);
const QUERIES = int('BENCH_QUERIES', 500);
const SKIP = new Set(
  (process.env.BENCH_SKIP ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

const GOAL_PAGES_PER_S = 50;
const GOAL_P95_MS = 15;
const K = 5;

// ---- a corpus that reads like fastify's docs -------------------------------------------------

/** Seeded PRNG (mulberry32): the same site, corpus and questions on every run. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
  };
}
type Rng = ReturnType<typeof rng>;

export interface Corpus {
  /** Prose sentences (no code), for pages. */
  sentences: string[];
  /** Section headings of the docs. */
  headings: string[];
  /** Document titles (the files' first headings). */
  titles: string[];
  /** Every whitespace-separated token of the docs, code included, in order. */
  tokens: string[];
  /** For each token, the indexes in `tokens` where it occurs (the bigram model's successors), ascending. */
  positions: Map<string, number[]>;
  /** Each file's range of `tokens` [start, end): a generated document keeps to one file's topic. */
  files: { start: number; end: number; title: string; headings: string[] }[];
}

const stripInline = (s: string) =>
  s
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*_]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

export function loadCorpus(): Corpus {
  const files = ['Reference', 'Guides'].flatMap((d) =>
    readdirSync(join(DOCS, d))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => join(DOCS, d, f)),
  );
  const sentences: string[] = [];
  const headings = new Set<string>();
  const titles: string[] = [];
  const tokens: string[] = [];
  const ranges: Corpus['files'] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const start = tokens.length;
    const own: string[] = [];
    let inCode = false;
    let title: string | null = null;
    let para: string[] = [];
    const flush = () => {
      const p = stripInline(para.join(' '));
      para = [];
      for (const s of p.split(/(?<=[.!?])\s+(?=[A-Z])/))
        if (s.length >= 40 && s.length <= 400 && /[a-z]{3}/.test(s)) sentences.push(s);
    };
    for (const line of text.split('\n')) {
      if (/^\s*```/.test(line)) {
        inCode = !inCode;
        continue;
      }
      tokens.push(...line.split(/\s+/).filter(Boolean));
      if (inCode) continue;
      const h = /^(#{1,4})\s+(.+)$/.exec(line);
      if (h) {
        flush();
        const name = stripInline(h[2]);
        if (name.length >= 3 && name.length <= 80) {
          if (!title) titles.push((title = name));
          else {
            headings.add(name);
            own.push(name);
          }
        }
      } else if (!line.trim() || /^\s*([-*|>]|\d+\.)/.test(line)) flush();
      else para.push(line);
    }
    flush();
    if (tokens.length - start > 200 && title && own.length)
      ranges.push({ start, end: tokens.length, title, headings: own });
  }
  const positions = new Map<string, number[]>();
  tokens.forEach((t, i) => {
    let at = positions.get(t);
    if (!at) positions.set(t, (at = []));
    at.push(i);
  });
  return { sentences, headings: [...headings], titles, tokens, positions, files: ranges };
}

/**
 * ~`words` words of text from a word-bigram model of one docs file: each token is followed by a
 * token that follows it somewhere in that file, now and then (2 %) anywhere in the docs. Keeping
 * to one file keeps a document on one topic, so a word's document frequency stays close to the
 * real docs' (e.g. "schema" in 21 % of real chunks; 74 % if every chunk mixed every topic).
 */
export function bigramText(c: Corpus, r: Rng, words: number, file = c.files[r.int(c.files.length)]): string {
  const out: string[] = [];
  let i = file.start + r.int(file.end - file.start - 1);
  while (out.length < words) {
    out.push(c.tokens[i]);
    const seen = c.positions.get(c.tokens[i])!;
    let from = i;
    if (r.next() < 0.02) from = seen[r.int(seen.length)];
    else if (r.next() < 0.5) {
      // Another place of this token in the same file (positions are ascending).
      let lo = 0;
      let hi = seen.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (seen[mid] < file.start) lo = mid + 1;
        else hi = mid;
      }
      let end = lo;
      while (end < seen.length && seen[end] < file.end) end++;
      if (end > lo) from = seen[lo + r.int(end - lo)];
    }
    i = from + 1 < file.end ? from + 1 : file.start + r.int(file.end - file.start - 1);
  }
  return out.join(' ');
}

const isContent = (w: string) => /^[a-z][a-z0-9]{2,}$/.test(w) && !STOPWORDS.has(w);

const TEMPLATES = [
  (w: string[]) => `How do I ${w.join(' ')}?`,
  (w: string[]) => `What is the ${w.join(' ')} used for?`,
  (w: string[]) => `How can I configure ${w.join(' ')} in fastify?`,
  (w: string[]) => `Why does ${w.join(' ')} not work after an upgrade?`,
  (w: string[]) => `Is there a way to change the ${w.join(' ')}?`,
  (w: string[]) => `Can you explain ${w.join(' ')} with an example?`,
  (w: string[]) => `where is ${w.join(' ')} documented`,
  (w: string[]) => `What happens to the ${w.join(' ')} when the server closes?`,
];

/**
 * Natural questions: 1-3 content words that sit next to each other in the docs (so the phrase
 * means something: "route handler", "content type parser"), picked at random positions of the
 * token stream (so frequent topics are asked about more), put in a question template.
 */
export function questions(c: Corpus, n: number, seed = 7): string[] {
  const r = rng(seed);
  const out: string[] = [];
  while (out.length < n) {
    let i = r.int(c.tokens.length);
    const want = 1 + r.int(3);
    const words: string[] = [];
    for (; i < c.tokens.length && words.length < want; i++) {
      const w = c.tokens[i].toLowerCase().replace(/^[^a-z]+|[^a-z0-9]+$/g, '');
      if (isContent(w)) words.push(w);
      else if (words.length) break;
    }
    if (words.length) out.push(r.pick(TEMPLATES)(words));
  }
  return out;
}

// ---- figures -------------------------------------------------------------------------------

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const secs = (ms: number) => (ms / 1000).toFixed(1);

interface Row {
  figure: string;
  value: string;
  goal: string;
}
const rows: Row[] = [];
const note = (figure: string, value: string, goal = '') => {
  rows.push({ figure, value, goal });
  console.log(`  ${figure}: ${value}${goal ? `  (${goal})` : ''}`);
};

// ---- 1. crawl ------------------------------------------------------------------------------

interface Site {
  url: string;
  hits: () => number;
  close(): Promise<void>;
}

/** A deterministic website: page 0 is `/`, page i is `/docs/page-i`; a 5-ary tree of links plus a few across. */
export function buildSite(c: Corpus, pages: number): Map<string, string> {
  const r = rng(42);
  const path = (i: number) => (i === 0 ? '/' : `/docs/page-${i}`);
  const titles = Array.from({ length: pages }, (_, i) => `${r.pick(c.titles)}: ${r.pick(c.headings)} (${i})`);
  const site = new Map<string, string>();
  for (let i = 0; i < pages; i++) {
    const links = new Set<number>();
    for (let k = 1; k <= 5; k++) if (5 * i + k < pages) links.add(5 * i + k);
    if (i > 0) links.add(Math.floor((i - 1) / 5));
    const want = 3 + r.int(4);
    while (links.size < want) links.add(r.int(pages));
    links.delete(i);
    const target = 2048 + r.int(2048);
    let body = '';
    while (body.length < target - 600) {
      body += `<h2>${r.pick(c.headings)}</h2>`;
      for (let p = 1 + r.int(2); p > 0 && body.length < target - 600; p--) {
        body += `<p>${Array.from({ length: 2 + r.int(3) }, () => r.pick(c.sentences)).join(' ')}</p>`;
      }
    }
    const nav = [...links]
      .slice(0, 6)
      .map((l) => `<li><a href="${path(l)}">${titles[l]}</a></li>`)
      .join('');
    site.set(
      path(i),
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${titles[i]} | Docs</title></head><body>` +
        `<header><a href="/">Docs home</a></header><main><article><h1>${titles[i]}</h1>${body}` +
        `<h2>See also</h2><ul>${nav}</ul></article></main><footer>Released under the MIT license.</footer></body></html>`,
    );
  }
  site.set('/robots.txt', 'User-agent: *\nAllow: /\n');
  return site;
}

async function serve(pages: Map<string, string>): Promise<Site> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits++;
    const body = pages.get((req.url ?? '/').split('?')[0]);
    if (body === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res
      .writeHead(200, { 'content-type': req.url === '/robots.txt' ? 'text/plain' : 'text/html; charset=utf-8' })
      .end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function bareFetch(site: Site, paths: string[], concurrency = 8): Promise<number> {
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < paths.length) {
        const res = await fetch(site.url + paths[next++]);
        await res.text();
      }
    }),
  );
  return performance.now() - start;
}

async function crawl(c: Corpus) {
  console.log(`\n1. crawl: ${PAGES}-page local site through the real app (SQLite) [load ${load()}]`);
  const pages = buildSite(c, PAGES);
  const sizes = [...pages].filter(([p]) => p !== '/robots.txt').map(([, html]) => html.length);
  console.log(
    `  site: ${sizes.length} pages, ${Math.min(...sizes)}-${Math.max(...sizes)} bytes (mean ${Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length)})`,
  );
  const site = await serve(pages);
  const t = await buildTestApp({
    env: { ALLOW_PRIVATE_FETCH: '1', CRAWL_MAX_PAGES: String(PAGES), QUEUE_POLL_MS: '20' },
  });
  try {
    const bare = await bareFetch(site, [...pages.keys()]);
    const { token } = await t.token();
    const bot = await t.call('POST', '/api/v2/chatbots', token, { title: 'Crawl bench' });
    const base = `/api/v2/chatbots/${bot.body.data.chatbot.id}`;
    const hitsBefore = site.hits();
    const start = performance.now();
    const res = await t.call('POST', `${base}/knowledge/website`, token, { url: `${site.url}/`, maxPages: PAGES });
    if (res.status !== 202) throw new Error(`POST /knowledge/website: ${res.status} ${JSON.stringify(res.body)}`);
    await t.app.services.queue.drain(600_000);
    const elapsed = performance.now() - start;
    const job = await t.app.services.store.knowledge.ingest.getJob(res.body.data.job.id);
    const docs = await t.call('GET', `${base}/knowledge/sources/${res.body.data.source.id}`, token);
    const indexed = Number(docs.body.data.source.documentCount);
    const chunks = await t.app.services.store.knowledge.chunks.count(bot.body.data.chatbot.id);
    console.log(
      `  job ${job?.status}: found ${job?.found}, done ${job?.done}, failed ${job?.failed}, skipped ${job?.skipped}; ${indexed} documents, ${chunks} chunks; ${site.hits() - hitsBefore} requests to the site`,
    );
    const rate = (indexed / elapsed) * 1000;
    note('bare fetch of the site, 8 at a time (baseline)', `${((sizes.length / bare) * 1000).toFixed(0)} pages/s`);
    note(
      `crawl ${indexed} pages through the app`,
      `${secs(elapsed)} s = ${rate.toFixed(1)} pages/s`,
      `goal >= ${GOAL_PAGES_PER_S}: ${rate >= GOAL_PAGES_PER_S ? 'met' : 'BELOW GOAL'}`,
    );
    note('crawl / bare fetch ratio', (rate / ((sizes.length / bare) * 1000)).toFixed(3));
  } finally {
    await t.close();
    await site.close();
  }
}

// ---- 2 + 3. ingestion and retrieval at 100k chunks --------------------------------------------

export async function fixture(store: Store) {
  const at = nowIso();
  const accountId = newId();
  const userId = newId();
  const chatbotId = newId();
  const sourceId = newId();
  const plan = {
    name: 'bench',
    maxChatbots: 1,
    maxPages: 1_000_000,
    webhooks: false,
    analytics: false,
    brandingRemoval: false,
    active: true,
  };
  await store.accounts.insert({ id: accountId, name: 'Bench', plan, createdAt: at, updatedAt: at });
  await store.users.insert({
    id: userId,
    accountId,
    email: `bench-${userId}@example.com`,
    name: null,
    role: 'owner',
    createdAt: at,
  });
  await store.chatbots.insert({
    id: chatbotId,
    accountId,
    createdById: userId,
    title: 'Scale',
    description: '',
    settings: {},
    createdAt: at,
    updatedAt: at,
  });
  await store.knowledge.sources.insert({
    id: sourceId,
    chatbotId,
    accountId,
    type: 'website',
    key: 'https://docs.example.com/',
    name: 'docs.example.com',
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
  return { chatbotId, sourceId };
}

/** One document's chunks, as chunkDocument + the indexer would shape them: one topic (docs file) per document. */
function documentChunks(c: Corpus, r: Rng, d: number, n: number) {
  const file = r.pick(c.files);
  const title = `${file.title}: ${r.pick(file.headings)}`;
  const url = `https://docs.example.com/docs/${d}/`;
  const chunks: ChunkInput[] = [];
  let heading = [r.pick(file.headings)];
  for (let i = 0; i < n; i++) {
    if (r.next() < 0.3) heading = r.next() < 0.5 ? [r.pick(file.headings)] : [heading[0], r.pick(file.headings)];
    const text = bigramText(c, r, 50 + r.int(130), file);
    chunks.push({
      index: i,
      title,
      headingPath: heading,
      text,
      tokenCount: Math.ceil(text.split(' ').length * 1.3),
      location: {
        url,
        headingPath: heading,
        textFragment: encodeURIComponent(text.slice(0, 60).replace(/[\uD800-\uDBFF]$/, '')),
      },
    });
  }
  return { title, url, chunks };
}

export async function ingest(
  c: Corpus,
  store: Store,
  chatbotId: string,
  sourceId: string,
): Promise<{ ms: number; chunks: number }> {
  const r = rng(1234);
  const docs = Math.ceil(CHUNKS / PER_DOC);
  let ms = 0;
  let written = 0;
  let lastReport = performance.now();
  for (let d = 0; d < docs; d++) {
    const n = Math.min(PER_DOC, CHUNKS - written);
    const { title, url, chunks } = documentChunks(c, r, d, n);
    const at = nowIso();
    const id = newId();
    const start = performance.now();
    await store.transaction(async (s) => {
      await s.knowledge.documents.insert({
        id,
        chatbotId,
        sourceId,
        key: url,
        url,
        title,
        kind: 'html',
        status: 'indexed',
        contentHash: null,
        chars: chunks.reduce((x, ch) => x + ch.text.length, 0),
        chunkCount: n,
        error: null,
        createdAt: at,
        updatedAt: at,
      });
      await s.knowledge.chunks.replace(id, chatbotId, chunks);
    });
    ms += performance.now() - start;
    written += n;
    if (performance.now() - lastReport > 15_000) {
      lastReport = performance.now();
      console.log(`    ... ${written} chunks, ${secs(ms)} s in the store`);
    }
  }
  return { ms, chunks: written };
}

/**
 * `toast`: PostgreSQL with the search vectors' storage as before migration 0029 (EXTENDED: moved
 * to the TOAST table when a row is too big), the baseline measured in the same run.
 */
async function scale(c: Corpus, qs: string[], database: DatabaseHandle, dialect: DialectName, layout = '') {
  const name = layout ? `${dialect} (${layout})` : dialect;
  console.log(
    `\n${dialect === 'sqlite' ? 2 : 3}. ${name}: ingest ${CHUNKS} chunks (${Math.ceil(CHUNKS / PER_DOC)} documents x ${PER_DOC}), then ${qs.length} searches (k=${K}) [load ${load()}]`,
  );
  await database.migrate();
  if (layout === 'toast')
    await sql`alter table chunks alter column tsv set storage extended, alter column head_tsv set storage extended`.execute(
      database.db,
    );
  const store = createStore(database.db);
  const { chatbotId, sourceId } = await fixture(store);
  const { ms, chunks } = await ingest(c, store, chatbotId, sourceId);
  note(
    `${name} ingest ${chunks} chunks (documents.insert + chunks.replace per document)`,
    `${secs(ms)} s = ${Math.round((chunks / ms) * 1000)} chunks/s`,
  );
  // Fresh statistics, as autovacuum would have gathered on a server that ingested this much.
  if (dialect === 'postgres') await sql`analyze`.execute(database.db);

  const retriever = createRetriever({ store: store.knowledge });
  // Warm-up: the statement cache, the page cache, the JIT.
  for (const q of qs.slice(0, 50)) await retriever.search(chatbotId, q, K);
  const times: number[] = [];
  // PostgreSQL: the CPU each search took, the server's processes and this one's (see serverPids).
  const cpu: number[] = [];
  let pids = dialect === 'postgres' ? await serverPids(database.db) : null;
  let empty = 0;
  for (const [i, q] of qs.entries()) {
    // The pool may have opened a connection since; looked up between searches, never inside one.
    if (pids && i % 50 === 0) pids = await serverPids(database.db);
    const server = pids ? serverCpuMs(pids) : null;
    const own = process.cpuUsage();
    const start = performance.now();
    const hits = await retriever.search(chatbotId, q, K);
    times.push(performance.now() - start);
    const used = process.cpuUsage(own);
    const after = pids ? serverCpuMs(pids) : null;
    if (server !== null && after !== null) cpu.push(after - server + (used.user + used.system) / 1000);
    if (!hits.length) empty++;
  }
  const p95 = percentile(times, 95);
  const goal =
    dialect === 'sqlite' ? `goal p95 <= ${GOAL_P95_MS} ms: ${p95 <= GOAL_P95_MS ? 'met' : 'ABOVE GOAL'}` : '';
  note(
    `${name} search at ${chunks} chunks, ${qs.length} generated questions`,
    `p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${p95.toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms, max ${Math.max(...times).toFixed(1)} ms (${empty} with no hit)`,
    goal,
  );
  if (cpu.length === qs.length)
    note(
      `${name} search at ${chunks} chunks, CPU per search (server + client)`,
      `p50 ${percentile(cpu, 50).toFixed(2)} ms, p95 ${percentile(cpu, 95).toFixed(2)} ms, p99 ${percentile(cpu, 99).toFixed(2)} ms`,
      'what an idle machine would take; the wall-clock figures above add the wait for a core',
    );
  // The hand-written questions of the quality eval, three rounds (few of them).
  const written = loadQuestions().map((q) => q.q);
  const writtenTimes: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const q of written) {
      const start = performance.now();
      await retriever.search(chatbotId, q, K);
      writtenTimes.push(performance.now() - start);
    }
  }
  note(
    `${name} search at ${chunks} chunks, ${written.length} hand-written questions x 3`,
    `p50 ${percentile(writtenTimes, 50).toFixed(2)} ms, p95 ${percentile(writtenTimes, 95).toFixed(2)} ms`,
  );
  return times;
}

export async function run() {
  console.log(`machine: ${cpus().length} cores, load average ${load()}`);
  const corpus = loadCorpus();
  console.log(
    `corpus: fastify docs, ${corpus.tokens.length} tokens, ${corpus.positions.size} distinct, ${corpus.sentences.length} sentences, ${corpus.headings.length} headings`,
  );
  const qs = questions(corpus, QUERIES);
  console.log(
    `questions, e.g.: ${qs
      .slice(0, 4)
      .map((q) => JSON.stringify(q))
      .join(', ')}`,
  );
  try {
    if (!SKIP.has('crawl')) await crawl(corpus);
  } finally {
    await closeExtractionWorkers();
  }
  if (!SKIP.has('sqlite')) await withSqlite((db, dialect) => scale(corpus, qs, db, dialect));
  if (!SKIP.has('postgres')) {
    // The baseline first, then the current layout, each on its own fresh schema.
    for (const layout of SKIP.has('postgres-toast') ? [''] : ['toast', '']) {
      const pgResult = await withPostgres((db, dialect) => scale(corpus, qs, db, dialect, layout));
      if (typeof pgResult === 'string') {
        note('postgres', `skipped: ${pgResult}`);
        break;
      }
    }
  }
  console.log(`\nsummary [load ${load()}]`);
  const width = Math.max(...rows.map((r) => r.figure.length));
  for (const r of rows) console.log(`  ${r.figure.padEnd(width)}  ${r.value}${r.goal ? `  (${r.goal})` : ''}`);
  return rows;
}
