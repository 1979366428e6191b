/** The connection as the models see it: its status, and one start however many actions ask for it. */
import { signal } from '@preact/signals';
import type { ClientFrame } from '../../shared/protocol.js';
import type { ConnectionStatus } from '../transport/connection.js';

export interface Transport {
  start(): void;
  send(frame: ClientFrame): void;
  reconnect(fresh?: boolean): void;
  stop(): void;
}

export class ConnectionModel {
  readonly status = signal<ConnectionStatus>('idle');
  private started = false;

  constructor(private readonly transport: Transport) {}

  send(frame: ClientFrame) {
    this.transport.send(frame);
  }

  /** Connects once; later calls change nothing. */
  connect() {
    if (this.started) return;
    this.started = true;
    this.transport.start();
  }

  /** Reconnects (the hello then carries the new resume point), or connects when not started. */
  restart() {
    if (this.started) this.transport.reconnect();
    else this.connect();
  }

  reconnect() {
    this.transport.reconnect();
  }

  stop() {
    this.transport.stop();
    this.started = false;
  }

  setStatus(status: ConnectionStatus) {
    this.status.value = status;
  }
}
