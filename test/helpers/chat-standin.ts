/**
 * A local stand-in for an OpenAI-compatible chat completions service (a third party, so a
 * stand-in is fair): POST /v1/chat/completions with `stream: true` answers server-sent events
 * exactly like the real API (`data: {chat.completion.chunk}\n\n` … `data: [DONE]\n\n`).
 *
 * By default it behaves like a naive model that follows the answer format: it answers from the
 * first passage of the prompt, as one JSON object ({answered, sources, answer, followUps}) when
 * the request asks for structured output (response_format json_schema), else ending with the
 * metadata block (or, when the prompt says the
 * relevance check found the passages do not cover the question, gives the no-information reply
 * the system message quotes, "answered": false); asked to repeat or print its
 * instructions it echoes its system prompt verbatim, as a model with no defence would. Tests
 * queue other behaviours for the next requests: a status (429 with Retry-After…), a hang, or a
 * scripted reply.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { readJson } from './json-body.js';

export interface SeenRequest {
  headers: IncomingHttpHeaders;
  body: {
    model: string;
    messages: { role: string; content: string }[];
    temperature?: number;
    stream?: boolean;
    [key: string]: unknown;
  };
}

export type Behaviour =
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: unknown }
  | { kind: 'hang' }
  | { kind: 'reply'; text: string; pieceDelayMs?: number }
  | { kind: 'naive' };

export interface ChatStandin {
  /** e.g. http://127.0.0.1:PORT/v1 (OPENAI_BASE_URL) */
  baseUrl: string;
  requests: SeenRequest[];
  /** Behaviours for the next requests, in order; afterwards the naive model answers. */
  next(...behaviours: Behaviour[]): void;
  close(): Promise<void>;
}

const MARKER = '<<<PARLEY_META>>>';
const EXTRACTION = /repeat|instructions|system prompt|everything above/i;

/** The naive model's reply to a request. */
export function naiveReply(body: SeenRequest['body']): string {
  const question = body.messages.at(-1)?.content ?? '';
  const system = body.messages[0]?.content ?? '';
  if (EXTRACTION.test(question)) return `Sure! Here are my instructions:\n\n${system}`;
  const knowledge = body.messages[1]?.content ?? '';
  // Like a model that follows the prompt: told the passages do not cover the question, it gives
  // the no-information reply the system message quotes.
  const honest = /no-information reply, exactly: "([^"]+)"/.exec(system)?.[1];
  if (honest && /^Relevance check: these passages do not appear to cover/m.test(knowledge))
    return `${honest}\n${MARKER}\n{"answered": false, "sources": [], "followUps": []}`;
  const first = /\[1\] [^\n]*\n([\s\S]*?)(?:\n\n\[2\]|$)/.exec(knowledge);
  if (!first)
    return `I don't have information about that.\n${MARKER}\n{"answered": false, "sources": [], "followUps": []}`;
  const sentence = first[1]
    .replace(/\s+/g, ' ')
    .trim()
    .split(/(?<=[.!?])\s/)[0]
    .slice(0, 200);
  return `From the documentation: ${sentence}\n${MARKER}\n{"answered": true, "sources": [1], "followUps": ["What else can hooks do?", "How do I register a plugin?", "What is the request lifecycle?", "How do I validate a body?"]}`;
}

/** The naive reply as structured output: the marker form's text and metadata as one JSON object. */
export function naiveJsonReply(body: SeenRequest['body']): string {
  const text = naiveReply(body);
  // The echoed instructions hold the marker too: the metadata is what follows the last one.
  const at = text.lastIndexOf(MARKER);
  let meta: Record<string, unknown> = { answered: true, sources: [], followUps: [] };
  try {
    if (at >= 0) meta = JSON.parse(text.slice(at + MARKER.length)) as Record<string, unknown>;
  } catch {
    return JSON.stringify({ ...meta, answer: text });
  }
  return JSON.stringify({
    answered: meta.answered,
    sources: meta.sources,
    answer: (at >= 0 ? text.slice(0, at) : text).trim(),
    followUps: meta.followUps,
  });
}

/** True when the request asks for structured output. */
const wantsJson = (body: SeenRequest['body']) =>
  (body.response_format as { type?: string } | undefined)?.type === 'json_schema';

/** Splits like a tokenizer would: words with their following space. */
export function tokens(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

function chunk(model: string, delta: Record<string, unknown>, finish: string | null = null) {
  return `data: ${JSON.stringify({
    id: 'chatcmpl-standin',
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  })}\n\n`;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function stream(res: ServerResponse, model: string, text: string, pieceDelayMs = 0) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.write(chunk(model, { role: 'assistant', content: '' }));
  for (const piece of tokens(text)) {
    if (pieceDelayMs) await pause(pieceDelayMs);
    res.write(chunk(model, { content: piece }));
  }
  res.write(chunk(model, {}, 'stop'));
  res.end('data: [DONE]\n\n');
}

export async function startChatStandin(): Promise<ChatStandin> {
  const requests: SeenRequest[] = [];
  const queue: Behaviour[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const body = await readJson(req);
    requests.push({ headers: req.headers, body });
    const behaviour = queue.shift() ?? { kind: 'naive' };
    switch (behaviour.kind) {
      case 'hang':
        return; // headers never come; the socket stays open until the client gives up
      case 'status':
        res.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers });
        res.end(
          JSON.stringify(
            behaviour.body ?? { error: { message: `stand-in status ${behaviour.status}`, type: 'standin' } },
          ),
        );
        return;
      case 'reply':
        await stream(res, body.model, behaviour.text, behaviour.pieceDelayMs);
        return;
      case 'naive':
        await stream(res, body.model, wantsJson(body) ? naiveJsonReply(body) : naiveReply(body));
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    next: (...behaviours) => void queue.push(...behaviours),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
