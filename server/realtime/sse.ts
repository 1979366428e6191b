/**
 * A reader's Server-Sent Events stream (the socket's fallback): server frames as `data:` events,
 * a close as an `event: close` carrying the protocol's code and reason, a comment line each
 * heartbeat, and the socket's backpressure rule (a reader that lets `bufferLimitBytes` pile up is
 * closed with 4008 to resume later).
 */
import type { ServerResponse } from 'node:http';
import { CLOSE, type ServerFrame } from '../../shared/protocol.js';
import type { Gateway } from './gateway.js';
import { roomIn } from './socket.js';
import type { Transport } from './visitor-connection.js';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
};

export class SseStream implements Transport {
  private ended = false;
  private readonly heartbeat: NodeJS.Timeout;

  /**
   * Writes the head (`headers` first: the reply's own, CORS included) and beats every heartbeat
   * (`beat`: what the reader's connection checks when idle). `onEnd` runs once, however it ends.
   */
  constructor(
    private readonly res: ServerResponse,
    private readonly gateway: Gateway,
    headers: Record<string, string>,
    beat: () => void,
    private readonly onEnd: () => void,
  ) {
    res.writeHead(200, { ...headers, ...SSE_HEADERS });
    // A comment line keeps proxies from timing the stream out.
    this.heartbeat = setInterval(() => {
      res.write(': ping\n\n');
      beat();
    }, gateway.limits.heartbeatMs);
    // The response's 'close' tells when the client goes (the request's is emitted once its body is read).
    res.on('close', () => this.end());
  }

  get open() {
    return !this.ended;
  }

  send(frame: ServerFrame) {
    if (this.ended) return;
    if (this.res.writableLength > this.gateway.limits.bufferLimitBytes) return this.tooSlow();
    this.res.write(`data: ${JSON.stringify(frame)}\n\n`);
  }

  close(code: number, reason: string) {
    if (!this.ended) this.res.write(`event: close\ndata: ${JSON.stringify({ code, reason })}\n\n`);
    this.end();
  }

  room() {
    return roomIn(
      () => this.res.writableLength,
      () => !this.ended,
      this.gateway,
      () => this.tooSlow(),
    );
  }

  /** The server is closing: the reader reconnects and resumes (on this instance once back, or another). */
  goAway() {
    this.close(CLOSE.goingAway, 'server restarting: reconnect and resume');
  }

  end() {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.heartbeat);
    this.onEnd();
    this.res.end();
  }

  private tooSlow() {
    this.close(CLOSE.slowConsumer, 'reader too slow: reconnect and resume');
  }
}
