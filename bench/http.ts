/**
 * HTTP overhead of the real app: authenticated `GET /api/v2/chatbots/{id}` (routing, token
 * lookup, scope check, chatbot read, envelope) against a bare Fastify route that answers the
 * very same JSON body from memory, measured in the same run with the same load, one after the
 * other. Both serialise and send the same bytes, so the ratio is the cost of our own work per
 * request (the figure with a tiny bare body is printed too, for reference). The same app on a
 * second database without SQLite's read fast path (dialects/sqlite/reader.ts) is measured in
 * the same rounds, so the fast path's worth at the request level is a same-run ratio too.
 * Goal: parley req/s / bare req/s >= 0.5.
 *
 * Environment: BENCH_DURATION (seconds per measurement, default 10), BENCH_CONNECTIONS
 * (default 10), BENCH_WARMUP (seconds of warm-up before each measurement, default 2),
 * BENCH_ROUNDS (default 1; more rounds alternate the two targets and report the median ratio,
 * which steadies the figure on a machine busy with other work).
 */
import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../server/app.js';
import { prepareDatabase } from '../server/prepare.js';
import { openDatabase } from '../server/storage/dialects/index.js';
import { loadConfig } from '../server/config.js';

const GOAL = 0.5;

interface Figures {
  reqPerSec: number;
  /** Milliseconds; autocannon records whole milliseconds. */
  p50: number;
  p99: number;
  requests: number;
  failures: number;
}

interface Target {
  label: string;
  url: string;
  headers: Record<string, string>;
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  const n = raw ? Number(raw) : fallback;
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number; got "${raw}"`);
  return n;
}

const ms = (value: number) => (value < 1 ? '<1' : value.toFixed(0));
const columns = (cells: string[]) =>
  cells[0].padEnd(36) +
  cells
    .slice(1)
    .map((c) => c.padStart(10))
    .join('');

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** A prepared app on its own SQLite file, with a full-access token and one chatbot made through the real route. */
async function parleyApp(readFastPath: boolean) {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const database = openDatabase({ sqlitePath: config.sqlitePath, readFastPath });
  await prepareDatabase(database, config.ownerEmail);
  const app = await buildApp(config, { database });
  const close = async () => {
    await app.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const account = await app.services.accounts.resolve(undefined);
    const owner = await app.services.store.users.owner(account.id);
    if (!owner) throw new Error('the prepared database has no owner');
    const { token } = await app.services.tokens.create(owner, { access: 'full', name: 'bench' });
    const headers = { authorization: `Bearer ${token}` };
    const created = await app.inject({ method: 'POST', url: '/api/v2/chatbots', headers, payload: { title: 'Bench' } });
    if (created.statusCode !== 201)
      throw new Error(`creating the chatbot failed: ${created.statusCode} ${created.body}`);
    const url = `${await listen(app)}/api/v2/chatbots/${created.json().data.chatbot.id as string}`;
    // Measuring 401s or 404s would be meaningless: check one real answer first.
    const check = await fetch(url, { headers });
    const body = (await check.json()) as { ok?: boolean };
    if (check.status !== 200 || body.ok !== true)
      throw new Error(`GET ${url} answered ${check.status}: ${JSON.stringify(body)}`);
    return { url, headers, body, close };
  } catch (err) {
    await close();
    throw err;
  }
}

export async function run(): Promise<{ parley: Figures; bare: Figures; ratio: number }> {
  const duration = positive('BENCH_DURATION', 10);
  const warmup = positive('BENCH_WARMUP', 2);
  const connections = Math.round(positive('BENCH_CONNECTIONS', 10));
  const rounds = Math.round(positive('BENCH_ROUNDS', 1));

  async function measure(target: Target): Promise<Figures> {
    // One worker thread generates the load, so the client does not share the servers' event loop.
    const options = { url: target.url, headers: target.headers, connections, workers: 1 };
    await autocannon({ ...options, duration: warmup });
    const result = await autocannon({ ...options, duration });
    const figures = {
      reqPerSec: result.requests.total / result.duration,
      p50: result.latency.p50,
      p99: result.latency.p99,
      requests: result.requests.total,
      failures: result.errors + result.timeouts + result.non2xx,
    };
    console.log(
      columns([target.label, figures.reqPerSec.toFixed(0), ms(figures.p50), ms(figures.p99), String(figures.requests)]),
    );
    if (figures.failures)
      console.log(`  warning: ${figures.failures} failed or non-2xx responses; these figures are not comparable`);
    return figures;
  }

  const fast = await parleyApp(true);
  const plain = await parleyApp(false).catch(async (err) => {
    await fast.close();
    throw err;
  });
  const bare = Fastify({ logger: false });
  const sameBody: unknown = fast.body;
  bare.get('/bare', async () => sameBody);
  bare.get('/tiny', async () => ({ ok: true, data: { hello: 'world' } }));

  try {
    const bareUrl = await listen(bare);
    const bareTarget: Target = { label: 'bare Fastify, same body', url: `${bareUrl}/bare`, headers: {} };
    const tinyTarget: Target = { label: 'bare Fastify, tiny body', url: `${bareUrl}/tiny`, headers: {} };
    const parleyTarget: Target = { label: 'parley GET /api/v2/chatbots/{id}', url: fast.url, headers: fast.headers };
    const plainTarget: Target = { label: '  same, no SQLite read fast path', url: plain.url, headers: plain.headers };
    console.log(`response body: ${JSON.stringify(sameBody).length} bytes of JSON`);

    console.log(
      `${connections} connections; each target: ${warmup} s warm-up, then ${duration} s measured; one target at a time\n`,
    );
    console.log(columns(['target', 'req/s', 'p50 ms', 'p99 ms', 'requests']));
    const tiny = await measure(tinyTarget);
    const results: { bare: Figures; parley: Figures; ratio: number; plainRatio: number; fastPath: number }[] = [];
    for (let round = 1; round <= rounds; round++) {
      if (rounds > 1) console.log(`round ${round} of ${rounds}`);
      const bareFigures = await measure(bareTarget);
      const parleyFigures = await measure(parleyTarget);
      const plainFigures = await measure(plainTarget);
      results.push({
        bare: bareFigures,
        parley: parleyFigures,
        ratio: parleyFigures.reqPerSec / bareFigures.reqPerSec,
        plainRatio: plainFigures.reqPerSec / bareFigures.reqPerSec,
        fastPath: parleyFigures.reqPerSec / plainFigures.reqPerSec,
      });
    }

    // With several rounds, the median round by ratio: one burst of outside load does not decide.
    const median = [...results].sort((a, b) => a.ratio - b.ratio)[Math.floor((results.length - 1) / 2)];
    const of = rounds > 1 ? ` (median of ${rounds} rounds: ${results.map((r) => r.ratio.toFixed(2)).join(', ')})` : '';
    console.log(
      `\nparley/bare (same body) req/s ratio: ${median.ratio.toFixed(2)}${of}; goal >= ${GOAL}: ${median.ratio >= GOAL ? 'PASS' : 'BELOW GOAL'}`,
    );
    console.log(
      `parley/bare (tiny body) req/s ratio, for reference: ${(median.parley.reqPerSec / tiny.reqPerSec).toFixed(2)}`,
    );
    const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
    const fastPaths = results.map((r) => r.fastPath);
    console.log(
      `without the SQLite read fast path: parley/bare ${medianOf(results.map((r) => r.plainRatio)).toFixed(2)}; ` +
        `with/without req/s ${medianOf(fastPaths).toFixed(2)}${rounds > 1 ? ` (rounds: ${fastPaths.map((r) => r.toFixed(2)).join(', ')})` : ''} ` +
        `(above 1: the fast path pays at the request level)`,
    );
    return median;
  } finally {
    await bare.close();
    await fast.close();
    await plain.close();
  }
}
