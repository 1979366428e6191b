/**
 * The widget's connection on a network that strips the WebSocket upgrade, against the real
 * server: after two sockets that never open it talks Server-Sent Events + POSTed frames, with the
 * same acknowledgements, streamed answers and resume. (The language model is a local stand-in, so
 * an answer can be cut in the middle of its stream.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AckFrame, ClientFrame, ServerFrame } from '../../shared/protocol.js';
import { Connection, type ConnectionStatus } from '../../widget/transport/connection.js';
import { startChatStandin, type ChatStandin } from '../helpers/chat-standin.js';
import { chatbotWithKnowledge, type LiveApp, newSession, startLiveApp } from '../helpers/widget.js';
import { waitFor } from '../helpers/knowledge-http.js';

/**
 * A socket that never opens, the way each obstacle shows it: `close` (a proxy that drops the
 * upgrade), `error` with no close (chromium, when the page's CSP blocks ws:), or nothing at all
 * (a middlebox that holds the upgrade).
 */
class NoUpgrade {
  static opened = 0;
  static failure: 'close' | 'error' | 'silent' = 'close';
  readyState = 0;
  onopen: (() => void) | null = null;
  onmessage: ((e: { data: unknown }) => void) | null = null;
  onerror: (() => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  constructor() {
    NoUpgrade.opened++;
    if (NoUpgrade.failure === 'close') setTimeout(() => this.onclose?.({ code: 1006 }), 0);
    if (NoUpgrade.failure === 'error') setTimeout(() => this.onerror?.(), 0);
  }
  send() {}
  close() {}
}

let model: ChatStandin;
let t: LiveApp;
let chatbotId: string;
const realWebSocket = (globalThis as { WebSocket?: unknown }).WebSocket;

beforeAll(async () => {
  (globalThis as { WebSocket?: unknown }).WebSocket = NoUpgrade;
  model = await startChatStandin();
  t = await startLiveApp({ env: { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'test-key' } });
  chatbotId = await chatbotWithKnowledge(t);
}, 60_000);
afterAll(async () => {
  (globalThis as { WebSocket?: unknown }).WebSocket = realWebSocket;
  await t?.close();
  await model?.close();
});

/** A widget-like client: it resumes from the highest seq it saw per conversation. */
async function client(options: { openTimeoutMs?: number } = {}) {
  const { token } = await newSession(t, chatbotId);
  const frames: ServerFrame[] = [];
  const statuses: ConnectionStatus[] = [];
  const hellos: ClientFrame[] = [];
  const lastSeq: Record<string, number> = {};
  const connection = new Connection({
    base: t.url,
    token: async () => token,
    hello: () => {
      const hello: ClientFrame = { type: 'hello', v: 1, resume: { ...lastSeq } };
      hellos.push(hello);
      return hello;
    },
    onFrame: (f) => {
      frames.push(f);
      if ('seq' in f && 'conversationId' in f && f.type !== 'ack')
        lastSeq[f.conversationId] = Math.max(lastSeq[f.conversationId] ?? 0, f.seq);
    },
    onStatus: (s) => void statuses.push(s),
    random: () => 0,
    ...options,
  });
  return { connection, frames, statuses, hellos };
}

const until = (check: () => boolean, what: string) => waitFor(check, 10_000, what);

describe('widget connection without WebSocket', () => {
  it('falls back to Server-Sent Events: a message queued before ready is sent once, acknowledged, and its answer streams in', async () => {
    const c = await client();
    const before = NoUpgrade.opened;
    model.next({ kind: 'reply', text: 'Items can be returned for 30 days.' });
    c.connection.send({ type: 'message.send', clientId: 'sse-w1', text: 'Can I return items?' });
    c.connection.start();
    await until(() => c.frames.some((f) => f.type === 'answer.done'), 'the answer');
    expect(NoUpgrade.opened - before).toBe(2);
    expect(c.statuses.at(-1)).toBe('online');
    expect(c.frames.filter((f) => f.type === 'ack')).toHaveLength(1);
    expect(c.frames.some((f) => f.type === 'answer.delta')).toBe(true);
    const done = c.frames.find((f) => f.type === 'answer.done') as Extract<ServerFrame, { type: 'answer.done' }>;
    expect(done.message.text).toBe('Items can be returned for 30 days.');
    expect(c.connection.unacknowledged).toBe(0);
    c.connection.stop();
  });

  for (const failure of ['error', 'silent'] as const) {
    it(`falls back to SSE when the socket fails to open with ${failure === 'error' ? 'an error and no close (a CSP-blocked ws:)' : 'no event at all'}`, async () => {
      NoUpgrade.failure = failure;
      try {
        const c = await client({ openTimeoutMs: 300 });
        const before = NoUpgrade.opened;
        model.next({ kind: 'reply', text: 'Items can be returned for 30 days.' });
        c.connection.send({ type: 'message.send', clientId: `sse-${failure}`, text: 'Can I return items?' });
        c.connection.start();
        await until(() => c.frames.some((f) => f.type === 'answer.done'), 'the answer');
        expect(NoUpgrade.opened - before).toBe(2);
        expect(c.frames.filter((f) => f.type === 'ack')).toHaveLength(1);
        c.connection.stop();
      } finally {
        NoUpgrade.failure = 'close';
      }
    });
  }

  it('a stream cut in the middle of an answer resumes over SSE: every event once, the offline message sent once', async () => {
    const c = await client();
    model.next({
      kind: 'reply',
      text: 'Refunds are paid within five business days of the return arriving at our warehouse.',
      pieceDelayMs: 40,
    });
    c.connection.start();
    await until(() => c.statuses.at(-1) === 'online', 'online');
    c.connection.send({ type: 'message.send', clientId: 'sse-w2', text: 'When are refunds paid?' });
    const ack = await (async () => {
      await until(() => c.frames.some((f) => f.type === 'ack'), 'ack');
      return c.frames.find((f) => f.type === 'ack') as AckFrame;
    })();
    await until(() => c.frames.some((f) => f.type === 'answer.delta'), 'a delta');
    // The network drops every open connection, the event stream among them.
    t.app.server.closeAllConnections();
    await until(() => c.statuses.includes('offline'), 'offline');
    model.next({ kind: 'reply', text: 'Shipping back is free for members.' });
    c.connection.send({
      type: 'message.send',
      clientId: 'sse-w3',
      conversationId: ack.conversationId,
      text: 'Is shipping back free?',
    });
    await until(() => c.frames.filter((f) => f.type === 'answer.done').length === 2, 'both answers');
    expect(c.hellos.at(-1)).toMatchObject({ resume: { [ack.conversationId]: expect.any(Number) } });
    const stored = c.frames.filter(
      (f) =>
        'seq' in f &&
        f.type !== 'ack' &&
        f.type !== 'synced' &&
        !(f.type === 'condition' && !('change' in f && f.change)),
    );
    const seqs = stored.map((f) => (f as { seq: number }).seq);
    // Each stored event of the conversation reached the client once, in order.
    expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
    const events = await t.app.services.conversations.reads.events(ack.conversationId, 0);
    expect(Math.max(...seqs)).toBe(events.at(-1)!.seq);
    const messages = (await t.app.services.store.conversations.messages.page(ack.conversationId, 50, null)).items;
    // Both stored once; the cut answer, still streaming while the second was asked, may land after it.
    expect(messages.map((m) => [m.author, m.text]).sort()).toEqual([
      ['ai', 'Refunds are paid within five business days of the return arriving at our warehouse.'],
      ['ai', 'Shipping back is free for members.'],
      ['visitor', 'Is shipping back free?'],
      ['visitor', 'When are refunds paid?'],
    ]);
    c.connection.stop();
  });
});
