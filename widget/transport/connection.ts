/**
 * The widget's one line to the gateway: a WebSocket that reconnects with jittered backoff and
 * resumes from the last sequence number, falling back to Server-Sent Events + POSTed frames when
 * the socket never opens. Frames sent while offline wait in order and go out once; a visitor
 * message stays pending until the server acknowledges its client id (a resend is a no-op there).
 */
import {
  CLOSE,
  WS_SESSION_PROTOCOL_PREFIX,
  WS_SUBPROTOCOL,
  type ClientFrame,
  type HelloFrame,
  type SendMessageFrame,
  type ServerFrame,
} from '../../shared/protocol.js';
import { backoffDelay } from './backoff.js';

export type ConnectionStatus = 'idle' | 'connecting' | 'online' | 'offline' | 'closed';

export interface ConnectionOptions {
  /** The server's origin, e.g. `https://chat.example.com`. */
  base: string;
  /** A valid session token; `fresh` asks for a new one (the server refused the last). */
  token(fresh: boolean): Promise<string>;
  /** The resume point per conversation, read at every (re)connect. */
  hello(): HelloFrame;
  onFrame(frame: ServerFrame): void;
  onStatus(status: ConnectionStatus): void;
  /** The server closed for good (logged out, origin refused). */
  onEnd?(code: number): void;
  random?: () => number;
  /** WebSocket attempts that never open before switching to SSE. */
  sseAfter?: number;
  /** A socket not open after this long counts as one that failed to open (default 5 s). */
  openTimeoutMs?: number;
}

interface Channel {
  send(frames: ClientFrame[]): void;
  close(): void;
}

export class Connection {
  status: ConnectionStatus = 'idle';
  private channel: Channel | null = null;
  private ready = false;
  private attempt = 0;
  private failedOpens = 0;
  private useSse = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private lastHeard = 0;
  private queue: ClientFrame[] = [];
  private pending = new Map<string, SendMessageFrame>();
  private stopped = false;
  private generation = 0;

  constructor(private readonly options: ConnectionOptions) {}

  start() {
    this.stopped = false;
    if (this.status === 'idle' || this.status === 'closed') this.connect(false);
  }

  /**
   * Sends now when online, else after the next `ready` (message.send until acknowledged; typing
   * is dropped while offline). Online, only this frame goes: the unacknowledged messages are
   * resent at the next `ready`, not with every keystroke's typing frame.
   */
  send(frame: ClientFrame) {
    if (frame.type === 'message.send') this.pending.set(frame.clientId, frame);
    if (this.ready) return this.flush([frame]);
    if (frame.type !== 'message.send' && frame.type !== 'typing') this.queue.push(frame);
  }

  /** Reconnect at once (the browser came back online, the token changed). */
  reconnect(fresh = false) {
    if (this.stopped) return;
    this.drop();
    this.connect(fresh);
  }

  /** Ends this visitor's line for good: what it had not sent yet is dropped, never sent for whoever comes next (reset, logout). */
  stop() {
    this.stopped = true;
    this.pending.clear();
    this.queue = [];
    this.drop();
    this.setStatus('closed');
  }

  /** Message frames sent but not yet acknowledged (tests, the offline banner). */
  get unacknowledged() {
    return this.pending.size;
  }

  private setStatus(status: ConnectionStatus) {
    if (this.status === status) return;
    this.status = status;
    this.options.onStatus(status);
  }

  private drop() {
    this.generation++;
    this.ready = false;
    if (this.timer) clearTimeout(this.timer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.timer = this.heartbeat = null;
    const channel = this.channel;
    this.channel = null;
    channel?.close();
  }

  private async connect(fresh: boolean) {
    const generation = ++this.generation;
    this.setStatus(this.attempt ? 'offline' : 'connecting');
    let token: string;
    try {
      token = await this.options.token(fresh);
    } catch {
      if (generation === this.generation) this.retry();
      return;
    }
    if (generation !== this.generation || this.stopped) return;
    const handlers = {
      frame: (frame: ServerFrame) => generation === this.generation && this.receive(frame),
      lost: (code: number, opened: boolean) => generation === this.generation && this.lost(code, opened),
    };
    this.channel = this.useSse ? this.openSse(token, handlers) : this.openSocket(token, handlers);
  }

  private receive(frame: ServerFrame) {
    this.lastHeard = Date.now();
    if (frame.type === 'ready') {
      this.ready = true;
      this.attempt = 0;
      this.failedOpens = 0;
      this.setStatus('online');
      this.startHeartbeat(frame.heartbeatMs);
      this.flush(null);
    } else if (frame.type === 'ack') {
      this.pending.delete(frame.clientId);
    } else if (frame.type === 'error' && frame.ref?.clientId && frame.code !== 'RATE_LIMITED') {
      // Refused for good (too long, conversation closed): resending would be refused again.
      this.pending.delete(frame.ref.clientId);
    }
    this.options.onFrame(frame);
  }

  private flush(only: ClientFrame[] | null) {
    if (!this.channel) return;
    const frames = only ?? [...this.pending.values(), ...this.queue.splice(0)];
    if (frames.length) this.channel.send(frames);
  }

  private startHeartbeat(ms: number) {
    if (this.heartbeat) clearInterval(this.heartbeat);
    const every = Math.max(1000, ms || 25_000);
    this.heartbeat = setInterval(() => {
      if (Date.now() - this.lastHeard > every * 2) return this.reconnect();
      this.channel?.send([{ type: 'ping' }]);
    }, every);
  }

  private lost(code: number, opened: boolean) {
    this.drop();
    if (this.stopped) return;
    if (code === CLOSE.loggedOut || code === CLOSE.originRefused) {
      this.stopped = true;
      this.setStatus('closed');
      this.options.onEnd?.(code);
      return;
    }
    if (!opened && !this.useSse && ++this.failedOpens >= (this.options.sseAfter ?? 2)) this.useSse = true;
    if (code === CLOSE.sessionInvalid) return void this.connect(true);
    this.retry();
  }

  private retry() {
    this.setStatus('offline');
    const delay = backoffDelay(this.attempt++, this.options.random);
    this.timer = setTimeout(() => this.connect(false), delay);
  }

  private openSocket(
    token: string,
    on: { frame(f: ServerFrame): void; lost(code: number, opened: boolean): void },
  ): Channel {
    const url = this.options.base.replace(/^http/, 'ws') + '/api/widget/ws';
    let opened = false;
    let ws: WebSocket;
    try {
      ws = new WebSocket(url, [WS_SUBPROTOCOL, WS_SESSION_PROTOCOL_PREFIX + token]);
    } catch {
      queueMicrotask(() => on.lost(1006, false));
      return { send() {}, close() {} };
    }
    // A failure to open is reported once, however it shows: a close event, an error with no close
    // (chromium's only signal for a socket the page's CSP blocks), or no open in time.
    let failed = false;
    const fail = () => {
      if (failed || opened) return;
      failed = true;
      clearTimeout(openTimer);
      ws.onclose = ws.onerror = ws.onmessage = ws.onopen = null;
      try {
        ws.close();
      } catch {
        // Already closing.
      }
      on.lost(1006, false);
    };
    const openTimer = setTimeout(fail, this.options.openTimeoutMs ?? 5000);
    ws.onopen = () => {
      opened = true;
      clearTimeout(openTimer);
      ws.send(JSON.stringify(this.options.hello()));
    };
    ws.onmessage = (event) => {
      const frame = parse(event.data);
      if (frame) on.frame(frame);
    };
    ws.onclose = (event) => {
      clearTimeout(openTimer);
      if (opened) on.lost(event.code, true);
      else if (!failed) {
        failed = true;
        on.lost(event.code, false);
      }
    };
    // After an open, a failure is followed by a close event, handled there.
    ws.onerror = fail;
    return {
      send: (frames) => {
        if (ws.readyState === 1) for (const f of frames) ws.send(JSON.stringify(f));
      },
      close: () => {
        clearTimeout(openTimer);
        ws.onclose = ws.onerror = ws.onmessage = ws.onopen = null;
        ws.close(CLOSE.normal);
      },
    };
  }

  private openSse(
    token: string,
    on: { frame(f: ServerFrame): void; lost(code: number, opened: boolean): void },
  ): Channel {
    const base = this.options.base;
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const abort = new AbortController();
    let opened = false;
    let chain = Promise.resolve();
    let code = 1006;
    void (async () => {
      try {
        const res = await fetch(`${base}/api/widget/sse`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify(this.options.hello()),
          signal: abort.signal,
        });
        if (res.status === 401) code = CLOSE.sessionInvalid;
        if (!res.ok || !res.body) throw new Error(`sse ${res.status}`);
        opened = true;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          this.lastHeard = Date.now();
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = event
              .split('\n')
              .filter((l) => l.startsWith('data:'))
              .map((l) => l.slice(5).trim())
              .join('\n');
            if (!data) continue;
            if (/^event:\s*close$/m.test(event)) code = (JSON.parse(data) as { code?: number }).code ?? 1006;
            else {
              const frame = parse(data);
              if (frame) on.frame(frame);
            }
          }
        }
      } catch {
        if (abort.signal.aborted) return;
      }
      if (!abort.signal.aborted) on.lost(code, opened);
    })();
    return {
      send: (frames) => {
        for (const frame of frames) {
          if (frame.type === 'ping') continue;
          chain = chain.then(async () => {
            if (abort.signal.aborted) return;
            const res = await fetch(`${base}/api/widget/frames`, {
              method: 'POST',
              headers: auth,
              body: JSON.stringify(frame),
              signal: abort.signal,
            }).catch(() => null);
            if (abort.signal.aborted) return;
            // Not taken (network, rate limit, server): reconnect, which resends what is unacknowledged
            // on ready. A 400 is this frame's own fault and sending it again would not help.
            if (!res || (!res.ok && res.status !== 400)) {
              abort.abort();
              return on.lost(res?.status === 401 ? CLOSE.sessionInvalid : 1006, true);
            }
            const body = (await res.json().catch(() => null)) as { data?: { frames?: ServerFrame[] } } | null;
            for (const f of body?.data?.frames ?? []) on.frame(f);
          });
        }
      },
      close: () => abort.abort(),
    };
  }
}

function parse(data: unknown): ServerFrame | null {
  if (typeof data !== 'string') return null;
  try {
    const frame = JSON.parse(data) as ServerFrame;
    return frame && typeof frame.type === 'string' ? frame : null;
  } catch {
    return null;
  }
}
