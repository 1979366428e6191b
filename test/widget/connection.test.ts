/**
 * The widget's connection against a WebSocket server speaking the gateway's protocol (set up in
 * this test, so each failure can be staged): subprotocols, hello and resume, the offline queue,
 * acknowledgements, reconnecting after drops, a refused session, and logging out.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { CLOSE, type ClientFrame, type ServerFrame } from '../../shared/protocol.js';
import { backoffDelay } from '../../widget/transport/backoff.js';
import { Connection, type ConnectionStatus } from '../../widget/transport/connection.js';
import { waitFor } from '../helpers/knowledge-http.js';

beforeAll(() => {
  (globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
});

interface Server {
  base: string;
  sockets: WebSocket[];
  received: Array<{ socket: number; frame: ClientFrame }>;
  protocols: string[][];
  close(): Promise<void>;
}

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

/** Answers hello with ready and acknowledges each message.send once per client id. */
async function server(onFrame?: (frame: ClientFrame, ws: WebSocket, s: Server) => void): Promise<Server> {
  const wss = new WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    handleProtocols: (p) => (p.has('parley.v1') ? 'parley.v1' : false),
  });
  await once(wss, 'listening');
  const s: Server = {
    base: `http://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    sockets: [],
    received: [],
    protocols: [],
    close: () =>
      new Promise((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        wss.close(() => resolve());
      }),
  };
  const acked = new Set<string>();
  let seq = 0;
  wss.on('connection', (ws, req) => {
    const index = s.sockets.push(ws) - 1;
    s.protocols.push(String(req.headers['sec-websocket-protocol']).split(/,\s*/));
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as ClientFrame;
      s.received.push({ socket: index, frame });
      const send = (f: ServerFrame) => ws.send(JSON.stringify(f));
      onFrame?.(frame, ws, s);
      if (ws.readyState !== WebSocket.OPEN) return;
      if (frame.type === 'hello')
        send({
          type: 'ready',
          v: 1,
          heartbeatMs: 25_000,
          visitor: { id: 'v1', email: null, name: null, phone: null, verified: false },
        });
      if (frame.type === 'message.send' && !acked.has(frame.clientId)) {
        acked.add(frame.clientId);
        seq++;
        send({ type: 'ack', clientId: frame.clientId, conversationId: 'c1', messageId: `m${seq}`, seq });
      }
    });
  });
  servers.push(s);
  return s;
}

function connect(
  s: Server,
  options: { resume?: () => Record<string, number>; tokens?: boolean[]; random?: () => number } = {},
) {
  const frames: ServerFrame[] = [];
  const statuses: ConnectionStatus[] = [];
  const ended: number[] = [];
  const tokens = options.tokens ?? [];
  const connection = new Connection({
    base: s.base,
    token: async (fresh) => {
      tokens.push(fresh);
      return fresh ? 'fresh-token' : 'token-1';
    },
    hello: () => ({ type: 'hello', v: 1, ...(options.resume ? { resume: options.resume() } : {}) }),
    onFrame: (f) => void frames.push(f),
    onStatus: (st) => void statuses.push(st),
    onEnd: (code) => void ended.push(code),
    random: options.random ?? (() => 0),
  });
  return { connection, frames, statuses, ended, tokens };
}

const until = (check: () => boolean, what: string) => waitFor(check, 4_000, what);

describe('widget connection', () => {
  it('offers parley.v1 and the session subprotocol, says hello, and sends what was queued before ready exactly once', async () => {
    const s = await server();
    const c = connect(s);
    c.connection.send({ type: 'message.send', clientId: 'k1', text: 'hi' });
    c.connection.start();
    await until(() => c.frames.some((f) => f.type === 'ack'), 'ack');
    expect(s.protocols[0]).toEqual(['parley.v1', 'parley.session.token-1']);
    expect(s.received.map((r) => r.frame.type)).toEqual(['hello', 'message.send']);
    expect(c.statuses).toEqual(['connecting', 'online']);
    expect(c.connection.unacknowledged).toBe(0);
    c.connection.stop();
  });

  it('reconnects after a drop, resumes from the last seq, and resends only what was not acknowledged', async () => {
    let lastSeq = 0;
    let dropNext = true;
    const s = await server((frame, ws) => {
      // The first message is lost with the connection before it is acknowledged.
      if (frame.type === 'message.send' && frame.clientId === 'k2' && dropNext) {
        dropNext = false;
        ws.terminate();
      }
    });
    const c = connect(s, { resume: () => ({ c1: lastSeq }) });
    c.connection.start();
    c.connection.send({ type: 'message.send', clientId: 'k1', conversationId: 'c1', text: 'one' });
    await until(() => c.frames.some((f) => f.type === 'ack'), 'first ack');
    lastSeq = 7;
    c.connection.send({ type: 'message.send', clientId: 'k2', conversationId: 'c1', text: 'two' });
    await until(() => c.frames.filter((f) => f.type === 'ack').length === 2, 'second ack after reconnect');
    expect(c.statuses).toContain('offline');
    expect(c.statuses.at(-1)).toBe('online');
    const second = s.received.filter((r) => r.socket === 1).map((r) => r.frame);
    expect(second[0]).toEqual({ type: 'hello', v: 1, resume: { c1: 7 } });
    // k1 was acknowledged before the drop: only k2 goes again.
    expect(second.filter((f) => f.type === 'message.send').map((f) => (f as { clientId: string }).clientId)).toEqual([
      'k2',
    ]);
    c.connection.stop();
  });

  it('online, a typing frame goes alone: a message awaiting its ack is not sent again with it', async () => {
    // The typing frames leave in the same turn as the message, before its ack can arrive.
    const s = await server();
    const c = connect(s);
    c.connection.start();
    await until(() => c.frames.some((f) => f.type === 'ready'), 'ready');
    const before = s.received.length;
    c.connection.send({ type: 'message.send', clientId: 'k1', conversationId: 'c1', text: 'one' });
    c.connection.send({ type: 'typing', conversationId: 'c1', typing: true });
    c.connection.send({ type: 'typing', conversationId: 'c1', typing: false });
    await until(() => s.received.length >= before + 3, 'three frames');
    await new Promise((r) => setTimeout(r, 50));
    expect(s.received.slice(before).map((r) => r.frame.type)).toEqual(['message.send', 'typing', 'typing']);
    c.connection.stop();
  });

  it('asks for a fresh session when the server refuses the token', async () => {
    let refused = false;
    const s = await server((frame, ws) => {
      if (frame.type === 'hello' && !refused) {
        refused = true;
        ws.close(CLOSE.sessionInvalid, 'expired');
      }
    });
    const c = connect(s);
    c.connection.start();
    await until(() => s.protocols.length === 2 && c.statuses.at(-1) === 'online', 'second connection');
    expect(c.tokens).toEqual([false, true]);
    expect(s.protocols[1]).toContain('parley.session.fresh-token');
    c.connection.stop();
  });

  it('stops for good when logged out', async () => {
    const s = await server((frame, ws) => {
      if (frame.type === 'logout') ws.close(CLOSE.loggedOut, 'logged out');
    });
    const c = connect(s);
    c.connection.start();
    await until(() => c.statuses.at(-1) === 'online', 'online');
    c.connection.send({ type: 'logout' });
    await until(() => c.ended.length === 1, 'end');
    expect(c.ended).toEqual([CLOSE.loggedOut]);
    expect(c.connection.status).toBe('closed');
    await new Promise((r) => setTimeout(r, 100));
    expect(s.sockets).toHaveLength(1);
  });

  it('starts its backoff over after a connection that reached ready: the next drop waits the first delay again', async () => {
    // Three sockets closed before ready, then one that is ready and later drops, then one for good.
    const s = await server((frame, ws, srv) => {
      if (frame.type === 'hello' && srv.sockets.length <= 3) ws.close(1011, 'not now');
    });
    // The delay each retry asks for: the random source is drawn once per retry, whose timer follows at once.
    const delays: number[] = [];
    let drawn = false;
    const realSetTimeout = globalThis.setTimeout;
    const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      if (drawn) delays.push(ms ?? 0);
      drawn = false;
      return realSetTimeout(fn, ms);
    }) as typeof setTimeout);
    try {
      const c = connect(s, {
        random: () => {
          drawn = true;
          return 0.1;
        },
      });
      c.connection.start();
      await until(() => c.statuses.at(-1) === 'online', 'online after three refusals');
      expect(delays).toEqual([50, 100, 200]);
      s.sockets[3].terminate();
      await until(() => s.sockets.length === 5 && c.statuses.at(-1) === 'online', 'online again');
      // 0.1 of 500 ms (attempt 0), not 0.1 of 4 s (attempt 3).
      expect(delays).toEqual([50, 100, 200, 50]);
      c.connection.stop();
    } finally {
      spy.mockRestore();
    }
  });

  it('waits a jittered, growing, capped delay between attempts', () => {
    expect(backoffDelay(0, () => 0.999)).toBeLessThan(500);
    expect(backoffDelay(3, () => 0.999)).toBeLessThan(4000);
    expect(backoffDelay(3, () => 0.999)).toBeGreaterThan(3900);
    expect(backoffDelay(30, () => 0.999)).toBeLessThan(30_000);
    expect(backoffDelay(5, () => 0)).toBe(0);
    expect(new Set([0.1, 0.5, 0.9].map((r) => backoffDelay(4, () => r))).size).toBe(3);
  });
});
