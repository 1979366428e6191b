/**
 * Provider A through the engine, against a local OpenAI-compatible stand-in that streams SSE
 * like the real API, over the real guarded outbound client (loopback allowed for the test).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnswerEngine } from '../../../server/domain/answers/engine.js';
import { ANSWER_MESSAGES } from '../../../server/domain/answers/messages.js';
import {
  createOpenAIProvider,
  MetaSplitter,
  OutputReader,
  parseMeta,
  retryAfterMs,
  type OpenAIProviderOptions,
} from '../../../server/adapters/openai-provider.js';
import type { AnswerContextStore } from '../../../server/domain/answers/ports.js';
import type { AnswerRequest } from '../../../server/domain/conversations/ports.js';
import { DEFAULT_USER_AGENT, GuardedHttpClient } from '../../../server/outbound/guarded-client.js';
import { startChatStandin, type ChatStandin } from '../../helpers/chat-standin.js';
import { fixedRetriever, hit, memoryContext } from '../domain/answers/fixtures.js';

let standin: ChatStandin;
let outbound: GuardedHttpClient;

beforeAll(async () => {
  standin = await startChatStandin();
  outbound = new GuardedHttpClient({ allowPrivate: true });
});
afterAll(async () => {
  await standin.close();
  await outbound.close();
});
beforeEach(() => {
  standin.requests.length = 0;
});

const HOOKS = [
  hit({
    title: 'Hooks',
    headingPath: ['Hooks', 'onRequest'],
    text: 'Hooks are registered with the addHook method and run at points of the request lifecycle. The onRequest hook runs first.',
  }),
  hit({
    title: 'Lifecycle',
    headingPath: ['Lifecycle'],
    text: 'Incoming requests go through routing, then the hooks, validation and the handler.',
    url: 'https://docs.example.com/lifecycle.pdf',
    location: { url: 'https://docs.example.com/lifecycle.pdf', headingPath: [], page: 3, textFragment: 'Incoming' },
  }),
];

function engineWith(options: Partial<OpenAIProviderOptions> = {}, context: AnswerContextStore = memoryContext()) {
  const provider = createOpenAIProvider({
    baseUrl: standin.baseUrl,
    apiKey: null,
    models: { 'gpt-4.1': 'standin-large', 'gpt-4.1-mini': 'standin-mini' },
    fetch: outbound.fetchWith({ timeoutMs: 20_000 }),
    timeoutMs: 2_000,
    backoffMs: 10,
    ...options,
  });
  return createAnswerEngine({ retriever: fixedRetriever(HOOKS), store: context, provider });
}

function request(over: Partial<AnswerRequest> = {}): AnswerRequest & { streamed: string[] } {
  const streamed: string[] = [];
  return {
    chatbotId: 'bot',
    accountId: 'acct',
    conversationId: 'conv',
    settings: {},
    question: 'How do I run code before every request handler?',
    history: [],
    onToken: (t) => streamed.push(t),
    ...over,
    streamed,
  };
}

describe('provider A (OpenAI-compatible) through the engine', () => {
  it('streams tokens in order; the final text is what was streamed, without the metadata block', async () => {
    const text = 'Use the onRequest hook: it runs before every handler. Register it with addHook.';
    standin.next({
      kind: 'reply',
      text: `${text}\n<<<PARLEY_META>>>\n{"answered": true, "sources": [2, 1], "followUps": ["What does preHandler do?", "Can a hook stop a request?", "How do I add a hook to one route?", "A fourth?"]}`,
    });
    const req = request({ settings: { smartFollowUpPromptsCount: 3 } });
    const answer = await engineWith().answer(req);
    expect(answer.text).toBe(text);
    expect(req.streamed.length).toBeGreaterThan(5); // token by token, not one piece
    expect(req.streamed.join('')).toBe(text);
    expect(req.streamed.join('')).not.toContain('PARLEY_META');
    expect(answer.provider).toBe('openai');
    expect(answer.model).toBe('standin-mini');
    expect(answer.unanswered).toBe(false);
    // The metadata: sources the model used (one per document, links to the place), 3 follow-ups.
    expect(answer.sources.map((s) => s.title)).toEqual(['Hooks', 'Lifecycle']);
    expect(answer.sources[1].link).toBe('https://docs.example.com/lifecycle.pdf#page=3');
    expect(answer.sources[0].link).toMatch(/^https:\/\/docs\.example\.com\/hooks#:~:text=/);
    expect(answer.followUps.map((f) => f.title)).toEqual([
      'What does preHandler do?',
      'Can a hook stop a request?',
      'How do I add a hook to one route?',
    ]);
    expect(answer.followUps.every((f) => f.description === f.title && !f.isEscalationPrompt)).toBe(true);
  });

  it('sends the request through the guarded client: Parley User-Agent, no Authorization without a key, the key when set', async () => {
    await engineWith().answer(request());
    expect(standin.requests[0].headers['user-agent']).toBe(DEFAULT_USER_AGENT);
    expect(standin.requests[0].headers.authorization).toBeUndefined();
    expect(standin.requests[0].body.stream).toBe(true);
    await engineWith({ apiKey: 'sk-test' }).answer(request());
    expect(standin.requests[1].headers.authorization).toBe('Bearer sk-test');
  });

  it('maps the public model name to the configured one', async () => {
    await engineWith().answer(request({ settings: { gptModel: 'gpt-4.1-mini' } }));
    await engineWith().answer(request({ settings: { gptModel: 'gpt-4.1' } }));
    await engineWith().answer(request({ settings: {} }));
    expect(standin.requests.map((r) => r.body.model)).toEqual(['standin-mini', 'standin-large', 'standin-mini']);
  });

  it('takes the temperature from the active instruction, else from creativity', async () => {
    const context = memoryContext({
      instructions: [{ id: 'i1', title: 'Precise', instructions: 'Answer precisely.', temperature: 0.2 }],
    });
    const engine = engineWith({}, context);
    await engine.answer(request({ settings: { promptId: 'i1', creativity: 'CREATIVE' } }));
    await engine.answer(request({ settings: { creativity: 'STRICT' } }));
    await engine.answer(request({ settings: { creativity: 'CREATIVE' } }));
    await engine.answer(request({ settings: { creativity: 'BALANCED' } }));
    await engine.answer(request({ settings: { creativity: 'CUSTOM', temperature: 1.3 } }));
    await engine.answer(request({ settings: { promptId: 'missing', creativity: 'STRICT' } }));
    expect(standin.requests.map((r) => r.body.temperature)).toEqual([0.2, 0, 1, 0.5, 1.3, 0]);
    expect(standin.requests[0].body.messages[0].content).toContain('Answer precisely.');
  });

  it('builds the prompt from persona, instruction, systemPrompt, userPrompt, history and numbered passages', async () => {
    const context = memoryContext({
      instructions: [{ id: 'i1', title: 'T', instructions: 'Mention the docs site when useful.', temperature: null }],
      personas: [{ id: 'p1', title: 'Pirate', instructions: 'Speak like a friendly pirate.' }],
    });
    await engineWith({}, context).answer(
      request({
        settings: {
          promptId: 'i1',
          personaId: 'p1',
          systemPrompt: 'Be brief.',
          userPrompt: 'Visitor asks: {{question}}',
          historyCount: 2,
          localization: { locale: 'de' },
        },
        history: [
          { author: 'visitor', text: 'first question' },
          { author: 'ai', text: 'first answer' },
          { author: 'system', text: 'conversation escalated' },
          { author: 'agent', text: 'a team reply' },
        ],
      }),
    );
    const { messages } = standin.requests[0].body;
    const system = messages[0].content;
    expect(system).toContain('Speak like a friendly pirate.');
    expect(system).toContain('Mention the docs site when useful.');
    expect(system).toContain('Be brief.');
    expect(system).toContain('reply in German');
    expect(system).toMatch(/confidential/);
    expect(messages[1].content).toContain('[1] Hooks — Hooks > onRequest\nHooks are registered');
    expect(messages[1].content).toContain('[2] Lifecycle');
    // historyCount 2: the last two messages; system notes are not sent.
    expect(messages.slice(2).map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['assistant', '(A team member replied:) a team reply'],
      ['user', 'Visitor asks: How do I run code before every request handler?'],
    ]);
  });

  it('asks for no follow-ups when they are disabled, and keeps the owner-defined ones', async () => {
    const context = memoryContext({
      followUps: [{ title: 'Talk to a person', description: 'I want a person', link: null, isEscalationPrompt: true }],
    });
    const answer = await engineWith({}, context).answer(request({ settings: { disableSmartFollowUpPrompts: true } }));
    expect(standin.requests[0].body.messages[0].content).toContain('"followUps": []');
    expect(answer.followUps).toEqual([
      { title: 'Talk to a person', description: 'I want a person', link: null, isEscalationPrompt: true },
    ]);
  });

  it('retries a 429 (Retry-After: 0) and then answers', async () => {
    standin.next(
      { kind: 'status', status: 429, headers: { 'retry-after': '0' } },
      {
        kind: 'reply',
        text: 'Second time lucky.\n<<<PARLEY_META>>>{"answered": true, "sources": [1], "followUps": []}',
      },
    );
    const req = request();
    const answer = await engineWith().answer(req);
    expect(standin.requests).toHaveLength(2);
    expect(answer.text).toBe('Second time lucky.');
    expect(answer.provider).toBe('openai');
    expect(req.streamed.join('')).toBe('Second time lucky.');
  });

  it('retries 5xx with backoff at most three attempts, then gives the unavailable reply (not a knowledge gap)', async () => {
    standin.next(...Array.from({ length: 3 }, () => ({ kind: 'status' as const, status: 503 })));
    const req = request();
    const answer = await engineWith().answer(req);
    expect(standin.requests).toHaveLength(3);
    expect(answer).toMatchObject({
      text: ANSWER_MESSAGES.en.unavailable,
      provider: 'unavailable',
      unanswered: false,
      sources: [],
      customResponseId: null,
    });
    expect(req.streamed.join('')).toBe(ANSWER_MESSAGES.en.unavailable);
  });

  it('does not wait for a Retry-After beyond reason, nor retry a client error', async () => {
    standin.next({ kind: 'status', status: 429, headers: { 'retry-after': '3600' } });
    const started = Date.now();
    expect((await engineWith().answer(request())).provider).toBe('unavailable');
    expect(Date.now() - started).toBeLessThan(2000);
    standin.next({ kind: 'status', status: 400, body: { error: { message: 'bad model' } } });
    expect((await engineWith().answer(request())).provider).toBe('unavailable');
    expect(standin.requests).toHaveLength(2);
  });

  it('a hang times out into the unavailable reply in the chatbot locale, without a retry', async () => {
    standin.next({ kind: 'hang' });
    const errors: unknown[] = [];
    const req = request({ settings: { localization: { locale: 'de' } } });
    const started = Date.now();
    const answer = await engineWith({ timeoutMs: 300, onError: (err) => errors.push(err) }).answer(req);
    const elapsed = Date.now() - started;
    expect(answer.text).toBe(ANSWER_MESSAGES.de.unavailable);
    expect(answer.provider).toBe('unavailable');
    expect(answer.unanswered).toBe(false);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(3000);
    expect(standin.requests).toHaveLength(1);
    expect(String(errors[0])).toMatch(/sent nothing for 300 ms/);
  });

  it('a stream that stalls after its first tokens times out too, and is not retried', async () => {
    standin.next({ kind: 'reply', text: 'one two three four five six seven eight', pieceDelayMs: 150 });
    const req = request({ settings: { localization: { locale: 'fr' } } });
    const answer = await engineWith({ timeoutMs: 100 }).answer(req);
    expect(answer.provider).toBe('unavailable');
    expect(answer.text).toBe(ANSWER_MESSAGES.fr.unavailable);
    expect(standin.requests).toHaveLength(1);
  });

  it('records a knowledge gap when the model says the passages did not answer', async () => {
    standin.next({
      kind: 'reply',
      text: 'I don\'t have that information.\n<<<PARLEY_META>>>\n{"answered": false, "sources": [], "followUps": ["x"]}',
    });
    const answer = await engineWith().answer(request({ question: 'What is the airspeed of a swallow?' }));
    expect(answer).toMatchObject({ unanswered: true, sources: [], followUps: [], provider: 'openai' });
  });

  it('without the metadata block, falls back to the relevance gate and cites the passages', async () => {
    standin.next({ kind: 'reply', text: 'Hooks run around the handler.' });
    const answer = await engineWith().answer(request({ question: 'When do hooks run for a request?' }));
    expect(answer.text).toBe('Hooks run around the handler.');
    expect(answer.unanswered).toBe(false);
    expect(answer.sources).toHaveLength(2);
  });

  it('hideSources leaves the sources out', async () => {
    const answer = await engineWith().answer(request({ settings: { hideSources: true } }));
    expect(answer.sources).toEqual([]);
    expect(answer.text).toMatch(/^From the documentation: Hooks are registered/);
  });

  it("the caller's abort rejects instead of producing a reply", async () => {
    standin.next({ kind: 'hang' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('visitor left')), 50);
    await expect(engineWith().answer(request({ signal: controller.signal }))).rejects.toThrow('visitor left');
  });

  it("the caller's abort in the middle of a stream rejects too, and nothing is retried", async () => {
    standin.next({ kind: 'reply', text: 'one two three four five six seven eight nine ten', pieceDelayMs: 40 });
    const controller = new AbortController();
    const req = request({
      signal: controller.signal,
      onToken: () => controller.abort(new Error('visitor left mid-answer')),
    });
    await expect(engineWith().answer(req)).rejects.toThrow('visitor left mid-answer');
    expect(standin.requests).toHaveLength(1);
  });
});

describe('provider A parts', () => {
  it('MetaSplitter holds back the marker across chunk boundaries and the whitespace or fence before it', () => {
    const out: string[] = [];
    const s = new MetaSplitter((t) => out.push(t));
    for (const piece of ['  Hello', ' world.', '\n\n```json\n<<<PARL', 'EY_META', '>>>{"answered":', 'true}\n```'])
      s.push(piece);
    const { text, meta } = s.finish();
    expect(text).toBe('Hello world.');
    expect(out.join('')).toBe('Hello world.');
    expect(parseMeta(meta)).toEqual({ answered: true, sources: null, followUps: [] });
  });

  it('OutputReader streams the answer string of structured output decoded, escapes split across chunks, and reads the rest at the end', () => {
    const emitted: string[] = [];
    const reader = new OutputReader((t) => emitted.push(t));
    const raw = JSON.stringify({
      answered: true,
      sources: [2],
      answer: 'Say "hi"\nthen go — café \\ done',
      followUps: ['Next?'],
    });
    for (let i = 0; i < raw.length; i += 3) reader.push(raw.slice(i, i + 3));
    const { text, meta } = reader.finish();
    expect(text).toBe('Say "hi"\nthen go — café \\ done');
    expect(emitted.join('')).toBe(text);
    expect(emitted.length).toBeGreaterThan(3);
    expect(meta).toEqual({ answered: true, sources: [2], followUps: ['Next?'] });
    // \u escapes cut in the middle, a fence around the object.
    const fenced = new OutputReader(() => {});
    for (const piece of [
      '```json\n{"answered": false, "sources": [], "answer": "caf\\u00',
      'e9", "followUps": []}\n```',
    ])
      fenced.push(piece);
    expect(fenced.finish()).toEqual({ text: 'café', meta: { answered: false, sources: [], followUps: [] } });
    // Not JSON at all: the marker form.
    const plain = new OutputReader(() => {});
    plain.push('Plain answer.\n<<<PARLEY_META>>>{"answered": true, "sources": [1], "followUps": []}');
    expect(plain.finish()).toEqual({ text: 'Plain answer.', meta: { answered: true, sources: [1], followUps: [] } });
  });

  it('MetaSplitter passes text with no marker through, lt signs and all', () => {
    const out: string[] = [];
    const s = new MetaSplitter((t) => out.push(t));
    for (const piece of ['a <', '< b', ' <<', '< c']) s.push(piece);
    expect(s.finish()).toEqual({ text: 'a << b <<< c', meta: null });
    expect(out.join('')).toBe('a << b <<< c');
  });

  it('parseMeta is lenient and ignores junk', () => {
    expect(parseMeta('not json')).toBeNull();
    expect(parseMeta(null)).toBeNull();
    expect(parseMeta(' {"answered": "yes", "sources": [1, "2", -1, 1.5], "followUps": ["a", "a", 3, " b "]}')).toEqual({
      answered: null,
      sources: [1, 2],
      followUps: ['a', 'b'],
    });
  });

  it('retryAfterMs reads retry-after-ms, seconds and HTTP dates', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(Date.now() + 5000).toUTCString() }))).toBeGreaterThan(
      3000,
    );
    expect(retryAfterMs(new Headers({}))).toBeNull();
  });
});
