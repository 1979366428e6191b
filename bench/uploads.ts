/**
 * Peak memory of file uploads: `POST /knowledge/files` on the real app listening on 127.0.0.1,
 * one 20 MB file alone (the baseline), then ten 20 MB files sent at once, on SQLite and then on
 * PostgreSQL (when reachable). The bodies are generated as streams, so the client holds almost
 * nothing; the process's resident set size is sampled every 10 ms and the peak above the figure
 * before each step is reported. Uploads stream to disk and are stored in 1 MB pieces, one file at
 * a time, so ten at once should cost about what one costs, not ten times it. Background jobs are
 * stopped first: this measures receiving and storing, not extraction.
 */
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { buildTestApp } from '../test/helpers/app.js';
import { postgresAvailable } from '../test/helpers/postgres.js';

const MB = 1024 * 1024;
const FILE_BYTES = Number(process.env.BENCH_FILE_MB ?? 20) * MB;
const CONCURRENT = Number(process.env.BENCH_UPLOADS ?? 10);

/** A multipart body of one text file of `bytes`, produced 64 KB at a time. */
function body(boundary: string, bytes: number): { stream: Readable; length: number } {
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const line = Buffer.from('Parley stores uploads on disk while they arrive and checks their size as they stream.\n');
  const chunk = Buffer.alloc(64 * 1024);
  for (let i = 0; i < chunk.length; i += line.length) line.copy(chunk, i);
  let left = bytes;
  let started = false;
  const stream = new Readable({
    read() {
      if (!started) {
        started = true;
        this.push(head);
        return;
      }
      if (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
        return;
      }
      this.push(tail);
      this.push(null);
    },
  });
  return { stream, length: head.length + bytes + tail.length };
}

function upload(port: number, path: string, token: string): Promise<number> {
  const boundary = `----bench-${Math.random().toString(36).slice(2)}`;
  const { stream, length } = body(boundary, FILE_BYTES);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        port,
        host: '127.0.0.1',
        method: 'POST',
        path,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': length,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    void pipeline(stream, req).catch(reject);
  });
}

/** Runs `fn` while sampling RSS; returns the peak growth over the RSS before it, in MB. */
async function peakGrowth(fn: () => Promise<unknown>): Promise<number> {
  global.gc?.();
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  return (peak - before) / MB;
}

export async function run() {
  await measure('sqlite');
  if (await postgresAvailable()) await measure('postgres');
  else console.log('PostgreSQL unreachable: its run is skipped');
}

async function measure(dialect: 'sqlite' | 'postgres') {
  const t = await buildTestApp({
    dialect,
    env: {
      FILE_MAX_BYTES: String(FILE_BYTES + MB),
      UPLOAD_MAX_TOTAL_BYTES: String(FILE_BYTES + 2 * MB),
      UPLOADS_PER_ACCOUNT: String(CONCURRENT),
    },
  });
  try {
    await t.app.queue.stop();
    const { token } = await t.token();
    const chatbotId = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Uploads' })).body.data.chatbot.id;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as { port: number }).port;
    const path = `/api/v2/chatbots/${chatbotId}/knowledge/files`;
    // Warm-up: the first request compiles and allocates what every later one reuses.
    await upload(port, path, token);
    const statuses: number[] = [];
    const one = await peakGrowth(async () => statuses.push(await upload(port, path, token)));
    const ten = await peakGrowth(async () =>
      statuses.push(...(await Promise.all(Array.from({ length: CONCURRENT }, () => upload(port, path, token))))),
    );
    if (statuses.some((s) => s !== 202)) throw new Error(`an upload failed: ${statuses.join(', ')}`);
    console.log(`-- ${dialect}`);
    console.log(`file size                       ${(FILE_BYTES / MB).toFixed(0)} MB`);
    console.log(`peak RSS growth, 1 upload        ${one.toFixed(1)} MB`);
    console.log(`peak RSS growth, ${CONCURRENT} at once     ${ten.toFixed(1)} MB`);
    console.log(
      `ratio (${CONCURRENT} at once / 1)          ${(ten / Math.max(one, 0.1)).toFixed(2)}  (${CONCURRENT} would mean memory grows with each upload)`,
    );
    console.log(`peak RSS, whole process          ${(process.memoryUsage.rss() / MB).toFixed(0)} MB after the run`);
  } finally {
    await t.close();
  }
}
