/**
 * A local OpenAI-compatible embeddings endpoint backed by a real sentence-embedding model (the
 * Universal Sentence Encoder lite of sentence-encoder.ts), for the answer eval:
 * POST /v1/embeddings {model, input} -> {object: 'list', data: [{index, embedding}]}. It lets
 * the eval measure hybrid retrieval through the same wiring an owner's endpoint would use
 * (OPENAI_BASE_URL + EMBEDDING_MODEL), with a real model's quality rather than the hashed
 * stand-in of test/helpers/embeddings-standin.ts, which only proves the wiring.
 * `npx tsx bench/eval/embeddings-server.ts [port]` serves it alone.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sentenceEncoder } from './sentence-encoder.js';
import { readJson, replyJson } from '../../test/helpers/json-body.js';

export interface EmbeddingsServer {
  baseUrl: string;
  /** Texts embedded so far. */
  texts(): number;
  close(): Promise<void>;
}

export async function startEmbeddingsServer(port = 0): Promise<EmbeddingsServer> {
  const encoder = sentenceEncoder();
  let count = 0;
  const server = createServer(async (req, res) => {
    const reply = (status: number, body: unknown) => replyJson(res, status, body);
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return reply(404, { error: { message: 'not found' } });
    const body = await readJson(req).catch(() => null);
    const inputs: unknown = typeof body?.input === 'string' ? [body.input] : body?.input;
    if (!Array.isArray(inputs) || !inputs.length || inputs.some((t) => typeof t !== 'string'))
      return reply(400, { error: { message: 'input must be a string or a non-empty list of strings' } });
    try {
      const vectors = await encoder.embed(inputs as string[]);
      count += inputs.length;
      reply(200, {
        object: 'list',
        model: body.model,
        data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      });
    } catch (err) {
      reply(500, { error: { message: (err as Error).message } });
    }
  });
  // Longer than the client's keep-alive: a socket the server closes just as the client reuses it fails the request.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${address.port}/v1`,
    texts: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const s = await startEmbeddingsServer(Number(process.argv[2] ?? 0));
  console.log(`embeddings (${'universal-sentence-encoder-lite'}, 512 dimensions) at ${s.baseUrl}/embeddings`);
}
