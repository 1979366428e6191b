/**
 * A visitor's WebSocket: limits on top of the protocol (frame rate, backpressure, heartbeat,
 * hello within a deadline) and the close codes of shared/protocol.ts CLOSE.
 */
import type { WebSocket } from 'ws';
import { CLOSE, type ServerFrame } from '../../shared/protocol.js';
import type { Gateway } from './gateway.js';

export interface Socketed {
  receive(raw: string): Promise<void>;
  dispose(): void;
  readonly greeted: boolean;
  /** Each heartbeat (an idle connection checks what it acts with). */
  beat?(): void;
}

/** The token offered as the subprotocol `<prefix><token>` (a browser cannot set Authorization on a socket). */
export function subprotocolToken(header: string | string[] | undefined, prefix: string): string | null {
  if (typeof header !== 'string') return null;
  const offered = header
    .split(',')
    .map((p) => p.trim())
    .find((p) => p.startsWith(prefix));
  return offered ? offered.slice(prefix.length) : null;
}

/** Sends JSON frames; a reader that lets `bufferLimitBytes` pile up is closed to resume later. */
export function socketTransport(socket: WebSocket, gateway: Gateway) {
  // Frames sent in one turn of the event loop (a group commit's acks and events, a replay's
  // page) leave in one write: the TCP socket is corked at the first and uncorked once the
  // turn's promise callbacks have run, one system call instead of one per frame.
  const tcp = (socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
  let corked = false;
  const uncork = () => {
    corked = false;
    tcp!.uncork();
  };
  return {
    send(frame: ServerFrame) {
      if (socket.readyState !== socket.OPEN) return;
      if (socket.bufferedAmount > gateway.limits.bufferLimitBytes) {
        socket.close(CLOSE.slowConsumer, 'reader too slow: reconnect and resume');
        return;
      }
      if (tcp && !corked) {
        corked = true;
        tcp.cork();
        process.nextTick(uncork);
      }
      socket.send(JSON.stringify(frame));
    },
    close(code: number, reason: string) {
      if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(code, reason);
    },
    room: () =>
      roomIn(
        () => socket.bufferedAmount,
        () => socket.readyState === socket.OPEN,
        gateway,
        () => socket.close(CLOSE.slowConsumer, 'reader too slow: reconnect and resume'),
      ),
  };
}

/**
 * Resolves once less than half the buffer limit is queued for the reader; after a heartbeat
 * without that, `slow()` closes it (4008: reconnect and resume).
 */
export async function roomIn(
  queued: () => number,
  open: () => boolean,
  gateway: Gateway,
  slow: () => void,
): Promise<void> {
  const low = gateway.limits.bufferLimitBytes / 2;
  if (queued() <= low) return;
  const deadline = Date.now() + gateway.limits.heartbeatMs;
  while (open() && queued() > low) {
    if (Date.now() >= deadline) return slow();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A connection whose frames wait for `admission` (the socket limits, counted in Redis with
 * several instances) and are dropped when it is refused; they keep their order meanwhile.
 */
export function afterAdmission(connection: Socketed, admission: Promise<boolean>): Socketed {
  return {
    receive: (raw) => admission.then((admitted) => (admitted ? connection.receive(raw) : undefined)),
    dispose: () => connection.dispose(),
    beat: () => connection.beat?.(),
    get greeted() {
      return connection.greeted;
    },
  };
}

/**
 * The releases of one socket's slots: a slot granted after the socket ended (admission awaits
 * Redis) is given back at once, and one granted twice (two hellos) counts once.
 */
export class Holdings {
  // Named fields rather than a map: one of these lives per idle socket. `token`: a team stream's.
  private ip: (() => void) | null = null;
  private visitor: (() => void) | null = null;
  private token: (() => void) | null = null;
  private gone = false;

  keep(name: 'ip' | 'visitor' | 'token', release: () => void) {
    if (this.gone || this[name]) return release();
    this[name] = release;
  }

  releaseAll() {
    this.gone = true;
    this.ip?.();
    this.visitor?.();
    this.token?.();
    this.ip = this.visitor = this.token = null;
  }
}

/** Wires a socket to a connection with the per-socket limits; `release` runs once it is gone. */
export function runSocket(socket: WebSocket, gateway: Gateway, connection: Socketed, release: () => void) {
  const { heartbeatMs, framesPerWindow, rateWindowMs, helloTimeoutMs } = gateway.limits;
  let alive = true;
  let windowStart = Date.now();
  let frames = 0;
  const heartbeat = setInterval(() => {
    // No pong since the last ping. With frames still waiting to leave, the ping sits behind them:
    // the reader is slow rather than gone, and is told to reconnect and resume (4008).
    if (!alive && socket.bufferedAmount > 0)
      return socket.close(CLOSE.slowConsumer, 'reader too slow: reconnect and resume');
    if (!alive) return socket.terminate();
    alive = false;
    socket.ping();
    connection.beat?.();
  }, heartbeatMs);
  // Once the server decides to close, nothing more is handled: frames the client wrote meanwhile
  // (they arrive during the close handshake) are dropped, and frames still waiting or in flight
  // find the connection disposed.
  const refuse = (code: number, reason: string) => {
    socket.close(code, reason);
    connection.dispose();
  };
  const helloDeadline = setTimeout(() => {
    if (!connection.greeted) refuse(CLOSE.policy, 'no hello in time');
  }, helloTimeoutMs);
  socket.on('pong', () => (alive = true));
  socket.on('message', (data, isBinary) => {
    if (socket.readyState !== socket.OPEN) return;
    alive = true;
    const now = Date.now();
    if (now - windowStart >= rateWindowMs) {
      windowStart = now;
      frames = 0;
    }
    if (++frames > framesPerWindow)
      return refuse(CLOSE.policy, `too many frames: at most ${framesPerWindow} per ${rateWindowMs / 1000} s`);
    if (isBinary) return refuse(CLOSE.policy, 'frames are JSON text');
    void connection.receive(String(data));
  });
  socket.on('close', () => {
    clearInterval(heartbeat);
    clearTimeout(helloDeadline);
    connection.dispose();
    release();
  });
}
