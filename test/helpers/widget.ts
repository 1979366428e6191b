/**
 * Visitors over real sockets: a listening test app, a chatbot with knowledge, visitor sessions
 * from the public route, and a WebSocket client that keeps every frame and waits for the ones a
 * test expects.
 */
import WebSocket from 'ws';
import type { ServerFrame } from '../../shared/protocol.js';
import { WS_SESSION_PROTOCOL_PREFIX, WS_SUBPROTOCOL } from '../../shared/protocol.js';
import { buildTestApp, type TestApp, type TestAppOptions } from './app.js';

export interface LiveApp extends TestApp {
  /** http://127.0.0.1:PORT */
  url: string;
  ownerToken: string;
}

export async function startLiveApp(options: TestAppOptions = {}): Promise<LiveApp> {
  const t = await buildTestApp(options);
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const ownerToken = (await t.token()).token;
  return Object.assign(t, { url: address, ownerToken });
}

/** A chatbot (settings optional) with one text of knowledge, indexed. */
export async function chatbotWithKnowledge(
  t: LiveApp,
  settings?: Record<string, Record<string, unknown>>,
): Promise<string> {
  const created = await t.call('POST', '/api/v2/chatbots', t.ownerToken, {
    title: 'Shop',
    ...(settings && { settings }),
  });
  if (created.status !== 201) throw new Error(`chatbot not created: ${JSON.stringify(created.body)}`);
  const id = created.body.data.chatbot.id as string;
  await t.call('POST', `/api/v2/chatbots/${id}/knowledge/text`, t.ownerToken, {
    title: 'Returns',
    text: '# Returns\n\nRefunds are paid within 5 business days. Items can be returned for 30 days. Shipping back is free for members.',
  });
  await t.app.services.queue.drain(30_000);
  return id;
}

export async function newSession(
  t: LiveApp,
  chatbotId: string,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  const res = await t.call('POST', `/api/widget/${chatbotId}/session`, null, body, headers);
  if (res.status !== 201) throw new Error(`no session: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { token: string; expiresAt: string; visitor: { id: string } };
}

export class Client {
  readonly frames: ServerFrame[] = [];
  closed: { code: number; reason: string } | null = null;
  private waiters: Array<() => void> = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)));
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) };
      this.wake();
    });
    ws.on('error', () => {});
  }

  private wake() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  send(frame: unknown) {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Resolves with the first frame (from `from`) that matches, or fails after `timeoutMs`. */
  async waitFor<T extends ServerFrame = ServerFrame>(
    match: (f: ServerFrame) => boolean,
    timeoutMs = 10_000,
    from = 0,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.slice(from).find(match);
      if (found) return found as T;
      if (this.closed)
        throw new Error(
          `socket closed (${this.closed.code} ${this.closed.reason}) while waiting; frames: ${JSON.stringify(this.frames)}`,
        );
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; frames: ${JSON.stringify(this.frames)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async waitClosed(timeoutMs = 10_000): Promise<{ code: number; reason: string }> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error('socket still open');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.closed;
  }

  of<T extends ServerFrame['type']>(type: T): Extract<ServerFrame, { type: T }>[] {
    return this.frames.filter((f) => f.type === type) as Extract<ServerFrame, { type: T }>[];
  }

  close() {
    this.ws.close();
  }
}

/** Opens `/api/widget/ws` with the session token as a subprotocol; resolves once open (or closed). */
export async function connect(
  url: string,
  token: string | null,
  options: { origin?: string; protocols?: string[]; headers?: Record<string, string> } = {},
): Promise<Client> {
  const protocols = options.protocols ?? [WS_SUBPROTOCOL, ...(token ? [WS_SESSION_PROTOCOL_PREFIX + token] : [])];
  const ws = new WebSocket(url.replace(/^http/, 'ws') + '/api/widget/ws', protocols, {
    ...(options.origin && { origin: options.origin }),
    ...(options.headers && { headers: options.headers }),
  });
  const client = new Client(ws);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('close', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
  return client;
}

/** Connects and says hello; resolves after `ready`. */
export async function visitor(
  url: string,
  token: string,
  resume?: Record<string, number>,
  origin?: string,
): Promise<Client> {
  const c = await connect(url, token, { origin });
  c.send({ type: 'hello', v: 1, ...(resume && { resume }) });
  await c.waitFor((f) => f.type === 'ready');
  return c;
}

/** Reads a text/event-stream response into frames as they arrive, and the server's `event: close`. */
export function readEvents(body: ReadableStream<Uint8Array>) {
  const frames: ServerFrame[] = [];
  const closes: Array<{ code: number; reason: string }> = [];
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  const done = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let i;
      while ((i = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (!data) continue;
        if (block.startsWith('event: close')) closes.push(JSON.parse(data.slice(6)));
        else if (!block.startsWith('event:')) frames.push(JSON.parse(data.slice(6)));
      }
    }
  })();
  return { frames, closes, done, cancel: () => reader.cancel().catch(() => {}) };
}
