/**
 * A local stand-in for an OpenAI-compatible embeddings service (a third party, so a stand-in is
 * fair): POST /v1/embeddings answers OpenAI's JSON shape with deterministic vectors, a hashed bag
 * of words in 64 dimensions. A few synonyms hash to the same word, so a query can match a chunk
 * by "meaning" without sharing a word with it, which is what the hybrid path must show.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readJson, replyJson } from './json-body.js';

export const STANDIN_DIMENSIONS = 64;

const SYNONYMS: Record<string, string> = {
  automobile: 'car',
  vehicle: 'car',
  auto: 'car',
  physician: 'doctor',
  medic: 'doctor',
  upkeep: 'maintenance',
  servicing: 'maintenance',
};

function fnv1a(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export function standinVector(text: string): number[] {
  const v = new Array<number>(STANDIN_DIMENSIONS).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (raw.length < 3) continue;
    const stem = raw.replace(/(ing|s)$/, '');
    const word = SYNONYMS[raw] ?? SYNONYMS[stem] ?? stem;
    const h = fnv1a(word);
    v[h % STANDIN_DIMENSIONS] += h & 0x100 ? 1 : -1;
  }
  // Never the zero vector: a constant component gives every text a direction.
  v[0] += 0.01;
  return v;
}

export interface EmbeddingsStandin {
  baseUrl: string;
  requests: { authorization: string | undefined; model: unknown; inputs: string[] }[];
  /** The next n requests answer 503. */
  failNext(n: number): void;
  close(): Promise<void>;
}

export async function startEmbeddingsStandin(): Promise<EmbeddingsStandin> {
  const requests: EmbeddingsStandin['requests'] = [];
  let failures = 0;
  const server = createServer(async (req, res) => {
    const reply = (status: number, body: unknown) => replyJson(res, status, body);
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return reply(404, { error: { message: 'not found' } });
    const body = await readJson(req).catch(() => null);
    if (req.headers.authorization !== 'Bearer sk-standin')
      return reply(401, { error: { message: 'Incorrect API key provided' } });
    if (failures > 0) {
      failures--;
      return reply(503, { error: { message: 'overloaded' } });
    }
    const inputs: string[] = typeof body?.input === 'string' ? [body.input] : body?.input;
    if (!Array.isArray(inputs) || inputs.some((t) => typeof t !== 'string' || !t))
      return reply(400, { error: { message: 'input must be non-empty strings' } });
    requests.push({ authorization: req.headers.authorization, model: body.model, inputs });
    reply(200, {
      object: 'list',
      model: body.model,
      // Reversed on purpose: clients must place vectors by `index`, not by position.
      data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: standinVector(t) })).reverse(),
      usage: { prompt_tokens: 0, total_tokens: 0 },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext(n) {
      failures = n;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
