/**
 * Provider A: any OpenAI-compatible chat completions endpoint (OpenAI, Azure-style proxies,
 * Ollama, vLLM, LM Studio, LiteLLM), through the openai SDK with the guarded outbound client's
 * fetch (address checks and limits apply to the model too). The only file importing the SDK.
 *
 * - `gptModel` (public names gpt-4.1 / gpt-4.1-mini) maps to the configured model name.
 * - Tokens stream to onToken as they arrive. The model ends its answer with META_MARKER and a
 *   JSON object ({answered, sources, followUps}): smart follow-ups come from the same call.
 *   The marker and the object are held back from the stream and parsed.
 * - Timeout: `timeoutMs` without progress (connecting, waiting for the first token, or between
 *   two chunks) ends the attempt; a hang is not retried, it would only double the wait.
 * - Retries: our own loop (the SDK's is off) on 408, 409, 429, 5xx and connection failures,
 *   at most `maxAttempts` attempts and only before any token arrived (a streamed answer cannot
 *   be taken back). The wait honours Retry-After / retry-after-ms up to `maxRetryWaitMs`
 *   (longer means give up now), else exponential backoff with jitter.
 * - Any failure ends in the locale's "assistant unavailable" reply (provider 'unavailable'),
 *   never in an exception, unless the caller itself aborted.
 */
import type OpenAI from 'openai';
import type { FollowUp } from '../domain/conversations/ports.js';
import type { AnswerProvider, GenerateInput, GenerateOutput, GptModel } from '../domain/answers/ports.js';
import { META_MARKER } from '../domain/answers/prompt.js';

export interface OpenAIProviderOptions {
  /** OPENAI_BASE_URL, e.g. https://api.openai.com/v1. */
  baseUrl: string;
  /** OPENAI_API_KEY; local servers often need none. */
  apiKey: string | null;
  /** Public model name -> the provider's model name (OPENAI_MODEL_GPT_4_1, OPENAI_MODEL_GPT_4_1_MINI). */
  models: Record<GptModel, string>;
  /** The guarded outbound client's fetch (`client.fetchWith({ timeoutMs })`). */
  fetch: typeof globalThis.fetch;
  /** ANSWER_TIMEOUT_MS: longest wait without progress. Default 30 s. */
  timeoutMs?: number;
  /** Attempts in all (first + retries). Default 3. */
  maxAttempts?: number;
  /** A Retry-After longer than this is not waited for. Default 10 s. */
  maxRetryWaitMs?: number;
  /** First backoff when the server names no wait; doubles per attempt. Default 500 ms. */
  backoffMs?: number;
  /** Hears failures (logging); the visitor gets the unavailable reply. */
  onError?: (err: unknown, context: { attempt: number; model: string }) => void;
}

/**
 * The outbound client's deadline for one streamed answer (connect to last byte): generous,
 * since progress is watched by timeoutMs; it only stops a stream that trickles forever.
 */
export const streamDeadlineMs = (timeoutMs: number) => Math.max(120_000, timeoutMs * 4);

/** The attempt saw no progress for timeoutMs. */
export class AnswerTimeoutError extends Error {
  constructor(ms: number) {
    super(`The language model sent nothing for ${ms} ms`);
    this.name = 'AnswerTimeoutError';
  }
}

const RETRY_STATUSES = new Set([408, 409, 429]);

/** Header value -> milliseconds: retry-after-ms, then retry-after (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | null | undefined, now = Date.now()): number | null {
  if (!headers) return null;
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get('retry-after');
  if (raw === null) return null;
  const seconds = Number(raw);
  if (raw.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The visible answer and the metadata object after the marker, split while streaming. */
export class MetaSplitter {
  private pending = '';
  private visible = '';
  private meta: string | null = null;

  constructor(private readonly emit: (text: string) => void) {}

  push(delta: string): void {
    if (this.meta !== null) {
      this.meta += delta;
      return;
    }
    this.pending += delta;
    const at = this.pending.indexOf(META_MARKER);
    if (at >= 0) {
      this.meta = this.pending.slice(at + META_MARKER.length);
      this.pending = stripTrailingFence(this.pending.slice(0, at));
      return;
    }
    // Hold back what could be the start of the marker, and the whitespace or fence before it.
    let hold = 0;
    for (let k = Math.min(META_MARKER.length - 1, this.pending.length); k > 0; k--) {
      if (META_MARKER.startsWith(this.pending.slice(-k))) {
        hold = k;
        break;
      }
    }
    let cut = this.pending.length - hold;
    const tail = /\s*(?:`{1,3}[a-z]*\s*)?$/.exec(this.pending.slice(0, cut));
    if (tail) cut -= tail[0].length;
    this.out(this.pending.slice(0, cut));
    this.pending = this.pending.slice(cut);
  }

  /** The end of the stream: the visible text (trimmed) and the raw metadata (null: no marker). */
  finish(): { text: string; meta: string | null } {
    if (this.meta === null) this.pending = stripTrailingFence(this.pending);
    this.out(this.pending.trimEnd());
    this.pending = '';
    return { text: this.visible.trim(), meta: this.meta };
  }

  private out(text: string) {
    if (!text) return;
    // Leading whitespace of the answer is not worth a token event.
    if (!this.visible.trim()) {
      const trimmed = text.trimStart();
      this.visible += text;
      if (trimmed) this.emit(trimmed);
      return;
    }
    this.visible += text;
    this.emit(text);
  }
}

function stripTrailingFence(text: string): string {
  return text.replace(/\n[ \t]*`{3}[a-z]*\s*$/, '').trimEnd();
}

export interface AnswerMeta {
  answered: boolean | null;
  sources: number[] | null;
  followUps: string[];
}

/** The JSON after the marker, leniently: a fence around it or text after it is tolerated. */
export function parseMeta(raw: string | null): AnswerMeta | null {
  if (raw === null) return null;
  const start = raw.indexOf('{');
  const end = raw.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw.slice(start, end + 1));
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  const sources = Array.isArray(v.sources) ? v.sources.map(Number).filter((n) => Number.isInteger(n) && n > 0) : null;
  const followUps = Array.isArray(v.followUps)
    ? [...new Set(v.followUps.filter((f): f is string => typeof f === 'string').map((f) => f.trim()).filter((f) => f && f.length <= 300))]
    : [];
  return { answered: typeof v.answered === 'boolean' ? v.answered : null, sources, followUps };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export function createOpenAIProvider(options: OpenAIProviderOptions): AnswerProvider {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 10_000;
  const backoffMs = options.backoffMs ?? 500;
  // The SDK is loaded on the first answer, not at start (bench/README.md, startup).
  let sdk: Promise<{ OpenAI: typeof OpenAI; client: OpenAI }> | undefined;
  const loaded = () =>
    (sdk ??= import('openai').then(({ default: OpenAI }) => ({ OpenAI, client: newClient(OpenAI) })));
  const newClient = (OpenAI: typeof import('openai').default) => new OpenAI({
    apiKey: options.apiKey || 'unused',
    baseURL: options.baseUrl,
    fetch: options.fetch,
    maxRetries: 0,
    timeout: timeoutMs,
    // The guarded client names Parley as the User-Agent; no key means no Authorization header.
    defaultHeaders: { 'User-Agent': null, ...(options.apiKey ? {} : { Authorization: null }) },
  });

  /** Milliseconds to wait before the next attempt, or null when the failure is final. */
  function retryDelay(OpenAI: typeof import('openai').default, err: unknown, attempt: number): number | null {
    if (attempt >= maxAttempts) return null;
    if (err instanceof OpenAI.APIConnectionTimeoutError || err instanceof AnswerTimeoutError) return null;
    if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
      if (!RETRY_STATUSES.has(err.status) && err.status < 500) return null;
      const named = retryAfterMs(err.headers);
      if (named !== null) return named <= maxRetryWaitMs ? named : null;
    } else if (!(err instanceof OpenAI.APIConnectionError)) {
      return null;
    }
    const base = backoffMs * 2 ** (attempt - 1);
    return Math.min(maxRetryWaitMs, Math.round(base * (0.75 + Math.random() * 0.5)));
  }

  return {
    name: 'openai',
    seesInstructions: true,
    async generate(input: GenerateInput): Promise<GenerateOutput> {
      const model = options.models[input.settings.gptModel] ?? input.settings.gptModel;
      const unavailable = (streamed: boolean): GenerateOutput => {
        if (!streamed) input.onToken?.(input.strings.unavailable);
        return { text: input.strings.unavailable, answered: true, used: [], followUps: [], provider: 'unavailable', model };
      };
      for (let attempt = 1; ; attempt++) {
        const controller = new AbortController();
        const onAbort = () => controller.abort(input.signal!.reason);
        if (input.signal?.aborted) throw input.signal.reason;
        input.signal?.addEventListener('abort', onAbort, { once: true });
        let timer: NodeJS.Timeout | undefined;
        const arm = () => {
          clearTimeout(timer);
          timer = setTimeout(() => controller.abort(new AnswerTimeoutError(timeoutMs)), timeoutMs);
        };
        let received = false;
        const splitter = new MetaSplitter((text) => input.onToken?.(text));
        try {
          const { client } = await loaded();
          arm();
          const stream = await client.chat.completions.create(
            { model, messages: input.messages, temperature: input.temperature, stream: true },
            { signal: controller.signal },
          );
          for await (const chunk of stream) {
            arm();
            const delta = chunk.choices?.[0]?.delta?.content;
            if (delta) {
              received = true;
              splitter.push(delta);
            }
          }
          clearTimeout(timer);
          // The SDK ends the iteration quietly when the request is aborted: a timeout or the caller.
          if (controller.signal.aborted) throw controller.signal.reason;
          return finish(input, splitter.finish(), model);
        } catch (caught) {
          clearTimeout(timer);
          if (input.signal?.aborted) throw input.signal.reason;
          const err = controller.signal.aborted && controller.signal.reason instanceof AnswerTimeoutError ? controller.signal.reason : caught;
          const wait = received ? null : retryDelay((await loaded()).OpenAI, err, attempt);
          if (wait === null) {
            options.onError?.(err, { attempt, model });
            return unavailable(received);
          }
          await sleep(wait, input.signal);
        } finally {
          input.signal?.removeEventListener('abort', onAbort);
        }
      }
    },
  };
}

function finish(input: GenerateInput, result: { text: string; meta: string | null }, model: string): GenerateOutput {
  const meta = parseMeta(result.meta);
  const valid = new Set(input.passages.map((p) => p.n));
  let answered = meta?.answered ?? input.relevant;
  let text = result.text;
  if (!text) {
    // Only metadata (or nothing): nothing to show but the honest reply.
    text = input.strings.noInformation;
    input.onToken?.(text);
    answered = false;
  }
  const followUps: FollowUp[] = answered
    ? (meta?.followUps ?? []).slice(0, input.followUpCount).map((q) => ({ title: q, description: q, link: null, isEscalationPrompt: false }))
    : [];
  return {
    text,
    answered,
    used: meta?.sources ? meta.sources.filter((n) => valid.has(n)) : null,
    followUps,
    provider: 'openai',
    model,
  };
}
