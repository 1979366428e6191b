/**
 * A TCP proxy whose replies can be held back: what a client sees of a server that is slow for a
 * moment (the requests arrive and are carried out at once; their answers come `delayMs` later,
 * in order). Tests point an app's REDIS_URL here to make Redis late without touching it.
 */
import { createServer, connect, type Socket } from 'node:net';

export interface DelayProxy {
  /** host:port to connect to. */
  address: string;
  /** Replies read from now on are held this long (0: passed on at once). */
  delayMs: number;
  /** Resolves once every reply held so far has been passed on. */
  drained(): Promise<void>;
  /** Replies read but not passed on yet (a test's proof that Redis was still late at some point). */
  held(): number;
  close(): Promise<void>;
}

export async function startDelayProxy(target: { host: string; port: number }): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const pending = new Set<Promise<void>>();
  const proxy: DelayProxy = {
    address: '',
    delayMs: 0,
    async drained() {
      while (pending.size) await Promise.all([...pending]);
    },
    held: () => pending.size,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    // Each reply is due `delayMs` after it was read, never before the one read before it.
    let chain = Promise.resolve();
    upstream.on('data', (chunk) => {
      const due = Date.now() + proxy.delayMs;
      const sent = (chain = chain.then(async () => {
        const wait = due - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        if (!client.destroyed) client.write(chunk);
      }));
      pending.add(sent);
      void sent.then(() => pending.delete(sent));
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', () => void chain.then(end)).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  proxy.address = `127.0.0.1:${port}`;
  return proxy;
}
