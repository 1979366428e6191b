/**
 * Provider A: any OpenAI-compatible chat completions endpoint (OpenAI, Azure-style proxies,
 * Ollama, vLLM, LM Studio, LiteLLM), through the openai SDK with the guarded outbound client's
 * fetch (address checks and limits apply to the model too). The only file importing the SDK.
 *
 * - `gptModel` (public names gpt-4.1 / gpt-4.1-mini) maps to the configured model name.
 * - Structured output: the request asks for one JSON object ({answered, sources, answer,
 *   followUps}, response_format json_schema); the `answer` string streams to onToken as it
 *   arrives, decoded. A server that refuses response_format (a 400 naming it) is asked again in
 *   the marker form, and so is every later request of this provider; a model that ignores it
 *   (output not starting with `{`) is read in the marker form too.
 * - Marker form: the model ends its answer with META_MARKER and a JSON object ({answered,
 *   sources, followUps}), held back from the stream and parsed.
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
import { ANSWER_SCHEMA, META_MARKER, outputFormat } from '../domain/answers/prompt.js';

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
  /** Ask for structured output (response_format json_schema). Default true; a server refusing it is asked in the marker form. */
  structuredOutput?: boolean;
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

/**
 * The model's output, whichever form it took: JSON (structured output) when its first visible
 * character is `{`, else the marker form (MetaSplitter). In JSON, the `answer` string is decoded
 * and streamed as it arrives; the whole object is parsed at the end.
 */
export class OutputReader {
  private mode: 'undecided' | 'json' | 'marker' = 'undecided';
  private raw = '';
  private readonly marker: MetaSplitter;
  // JSON mode: where the answer string is (seeking its key, inside it, or past it) and what was decoded.
  private at = 0;
  private state: 'seek' | 'string' | 'done' = 'seek';
  private decoded = '';

  constructor(private readonly emit: (text: string) => void) {
    this.marker = new MetaSplitter(emit);
  }

  push(delta: string): void {
    if (this.mode === 'marker') return this.marker.push(delta);
    this.raw += delta;
    if (this.mode === 'undecided') {
      const start = this.raw.replace(/^\s*(```(?:json)?\s*)?/, '');
      if (!start) return;
      this.mode = start.startsWith('{') ? 'json' : 'marker';
      if (this.mode === 'marker') return this.marker.push(this.raw);
    }
    this.scan();
  }

  private scan() {
    if (this.state === 'seek') {
      const m = /"answer"\s*:\s*"/.exec(this.raw);
      if (!m) return;
      this.at = m.index + m[0].length;
      this.state = 'string';
    }
    if (this.state !== 'string') return;
    let out = '';
    while (this.at < this.raw.length) {
      const c = this.raw[this.at];
      if (c === '"') {
        this.state = 'done';
        this.at++;
        break;
      }
      if (c !== '\\') {
        out += c;
        this.at++;
        continue;
      }
      // An escape: wait for all of it.
      const next = this.raw[this.at + 1];
      if (next === undefined) break;
      if (next === 'u') {
        const hex = this.raw.slice(this.at + 2, this.at + 6);
        if (hex.length < 4) break;
        out += String.fromCharCode(parseInt(hex, 16));
        this.at += 6;
        continue;
      }
      out += ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' } as Record<string, string>)[next] ?? next;
      this.at += 2;
    }
    if (!out) return;
    // Leading whitespace of the answer is not worth a token event.
    if (!this.decoded.trim()) out = out.trimStart();
    this.decoded += out;
    if (out) this.emit(out);
  }

  /** The end of the stream: the visible text and the metadata (null: none given). */
  finish(): { text: string; meta: AnswerMeta | null } {
    if (this.mode !== 'json') {
      const { text, meta } = this.marker.finish();
      return { text, meta: parseMeta(meta) };
    }
    const meta = parseMeta(this.raw);
    let text = this.decoded.trim();
    if (!text) {
      // No answer string streamed (another key, a broken object): whatever the object holds.
      const parsed = parseAnswer(this.raw);
      if (parsed) {
        text = parsed.trim();
        if (text) this.emit(text);
      }
    }
    return { text, meta };
  }
}

function parseAnswer(raw: string): string | null {
  try {
    const v = JSON.parse(raw.slice(raw.indexOf('{'), raw.lastIndexOf('}') + 1)) as Record<string, unknown>;
    return typeof v.answer === 'string' ? v.answer : null;
  } catch {
    return null;
  }
}

/** A 400 refusing structured output (servers and models without json_schema support). */
function refusesStructuredOutput(OpenAI: typeof import('openai').default, err: unknown): boolean {
  return (
    err instanceof OpenAI.APIError &&
    err.status === 400 &&
    /response_format|json_schema|structured|schema/i.test(err.message)
  );
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
    ? [
        ...new Set(
          v.followUps
            .filter((f): f is string => typeof f === 'string')
            .map((f) => f.trim())
            .filter((f) => f && f.length <= 300),
        ),
      ]
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
  let structured = options.structuredOutput ?? true;
  // The SDK is loaded on the first answer, not at start (bench/README.md, startup).
  let sdk: Promise<{ OpenAI: typeof OpenAI; client: OpenAI }> | undefined;
  const loaded = () =>
    (sdk ??= import('openai').then(({ default: OpenAI }) => ({ OpenAI, client: newClient(OpenAI) })));
  const newClient = (OpenAI: typeof import('openai').default) =>
    new OpenAI({
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
    get outputFormat() {
      return structured ? ('json' as const) : ('marker' as const);
    },
    async generate(input: GenerateInput): Promise<GenerateOutput> {
      const model = options.models[input.settings.gptModel] ?? input.settings.gptModel;
      const unavailable = (streamed: boolean): GenerateOutput => {
        if (!streamed) input.onToken?.(input.strings.unavailable);
        return {
          text: input.strings.unavailable,
          answered: true,
          used: [],
          followUps: [],
          provider: 'unavailable',
          model,
        };
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
        const reader = new OutputReader((text) => input.onToken?.(text));
        // The prompt was built for the form asked for when the engine built it; after a refusal, the marker form.
        const json = structured;
        const messages = json ? input.messages : withMarkerFormat(input);
        try {
          const { client } = await loaded();
          arm();
          const stream = await client.chat.completions.create(
            {
              model,
              messages,
              temperature: input.temperature,
              stream: true,
              ...(json && {
                response_format: {
                  type: 'json_schema' as const,
                  json_schema: {
                    name: 'parley_answer',
                    strict: true,
                    schema: ANSWER_SCHEMA as unknown as Record<string, unknown>,
                  },
                },
              }),
            },
            { signal: controller.signal },
          );
          for await (const chunk of stream) {
            arm();
            const delta = chunk.choices?.[0]?.delta?.content;
            if (delta) {
              received = true;
              reader.push(delta);
            }
          }
          clearTimeout(timer);
          // The SDK ends the iteration quietly when the request is aborted: a timeout or the caller.
          if (controller.signal.aborted) throw controller.signal.reason;
          return finish(input, reader.finish(), model);
        } catch (caught) {
          clearTimeout(timer);
          if (input.signal?.aborted) throw input.signal.reason;
          const err =
            controller.signal.aborted && controller.signal.reason instanceof AnswerTimeoutError
              ? controller.signal.reason
              : caught;
          if (json && !received && refusesStructuredOutput((await loaded()).OpenAI, err)) {
            // Not an attempt lost: the same question in the form this server understands, now and from now on.
            structured = false;
            attempt--;
            continue;
          }
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

/** The messages with the system message's output format in the marker form. */
function withMarkerFormat(input: GenerateInput) {
  const json = outputFormat('json', input.followUpCount);
  return input.messages.map((m, i) =>
    i === 0 && m.content.includes(json)
      ? { ...m, content: m.content.replace(json, outputFormat('marker', input.followUpCount)) }
      : m,
  );
}

function finish(
  input: GenerateInput,
  result: { text: string; meta: AnswerMeta | null },
  model: string,
): GenerateOutput {
  const meta = result.meta;
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
    ? (meta?.followUps ?? [])
        .slice(0, input.followUpCount)
        .map((q) => ({ title: q, description: q, link: null, isEscalationPrompt: false }))
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
