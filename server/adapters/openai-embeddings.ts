/**
 * The OpenAI-compatible embeddings client: POST {base}/embeddings with {model, input} and read
 * `data[].embedding`. Works with OpenAI and the servers that copy its API (Azure-style proxies,
 * Ollama, LM Studio, vLLM, LiteLLM). The HTTP call goes through an injected `fetch`: at wiring
 * time the guarded outbound client's, so limits and address checks apply (ARCHITECTURE.md: no
 * other module calls fetch).
 */
import type { EmbeddingsPort } from '../domain/knowledge/ports.js';

export interface OpenAIEmbeddingsOptions {
  /** OPENAI_BASE_URL, e.g. https://api.openai.com/v1 (the `/embeddings` path is appended). */
  baseUrl: string;
  /** OPENAI_API_KEY; local servers often need none. */
  apiKey?: string | null;
  /** EMBEDDING_MODEL, e.g. text-embedding-3-small. */
  model: string;
  /**
   * EMBEDDING_DIMENSIONS. When set it is sent as `dimensions` (text-embedding-3 shortens its
   * vectors to it) and every answer is checked against it; when unset, one probe request learns it.
   */
  dimensions?: number | null;
  fetch: typeof globalThis.fetch;
  /** Texts per request (OpenAI accepts up to 2048; smaller batches keep each request short). */
  batchSize?: number;
}

/** One text is cut to this many characters: chunks are far shorter, a pasted essay must not fail the call. */
const MAX_CHARS = 16_000;

export class EmbeddingsError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'EmbeddingsError';
  }
}

/** The client, with its dimension known (probed once when not configured). */
export async function openAIEmbeddings(options: OpenAIEmbeddingsOptions): Promise<EmbeddingsPort> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const batchSize = Math.max(1, options.batchSize ?? 64);
  const configured = options.dimensions ?? null;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;

  async function request(input: string[]): Promise<number[][]> {
    const body = JSON.stringify({ model: options.model, input, ...(configured ? { dimensions: configured } : {}) });
    let res: Response;
    try {
      res = await options.fetch(url, { method: 'POST', headers, body });
    } catch (err) {
      throw new EmbeddingsError(`Embeddings endpoint ${url} unreachable: ${(err as Error).message}`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    if (!res.ok) {
      const detail = (parsed as { error?: { message?: unknown } } | null)?.error?.message;
      throw new EmbeddingsError(
        `Embeddings endpoint answered ${res.status}: ${typeof detail === 'string' ? detail : text.slice(0, 200)} (check OPENAI_BASE_URL, OPENAI_API_KEY and EMBEDDING_MODEL)`,
        res.status,
      );
    }
    const data = (parsed as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== input.length) {
      throw new EmbeddingsError(
        `Embeddings endpoint returned ${Array.isArray(data) ? data.length : 'no'} vectors for ${input.length} texts`,
      );
    }
    const vectors: number[][] = new Array(input.length);
    data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
      const index = typeof item?.index === 'number' ? item.index : position;
      const v = item?.embedding;
      if (!Array.isArray(v) || !v.length || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new EmbeddingsError(
          'Embeddings endpoint returned an embedding that is not a list of numbers (base64 encoding is not supported)',
        );
      }
      if (index < 0 || index >= input.length || vectors[index])
        throw new EmbeddingsError('Embeddings endpoint returned inconsistent indexes');
      vectors[index] = v as number[];
    });
    return vectors;
  }

  let dimensions = configured ?? 0;
  const embed = async (texts: string[]): Promise<number[][]> => {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += batchSize) {
      const input = texts.slice(i, i + batchSize).map((t) => t.slice(0, MAX_CHARS).trim() || ' ');
      for (const v of await request(input)) {
        if (dimensions && v.length !== dimensions) {
          throw new EmbeddingsError(
            `Embeddings endpoint returned ${v.length} dimensions, expected ${dimensions} (EMBEDDING_DIMENSIONS)`,
          );
        }
        out.push(v);
      }
    }
    return out;
  };
  if (!dimensions) dimensions = (await request(['dimension probe']))[0].length;
  return { embed, dimensions, model: options.model };
}
