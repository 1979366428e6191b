/** A small website served by the test itself on 127.0.0.1, with per-path handlers. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Route = string | ((req: IncomingMessage, res: ServerResponse) => void);

export interface TestSite {
  url: string;
  hits: Map<string, number>;
  set(path: string, route: Route, contentType?: string): void;
  close(): Promise<void>;
}

export async function serveSite(
  routes: Record<string, Route> = {},
  types: Record<string, string> = {},
): Promise<TestSite> {
  const table = new Map(Object.entries(routes));
  const typeOf = new Map(Object.entries(types));
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('#')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = table.get(path) ?? table.get(path.split('?')[0]);
    if (route === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    } else if (typeof route === 'function') {
      route(req, res);
    } else {
      const p = path.split('?')[0];
      const type =
        typeOf.get(p) ??
        (p.endsWith('.xml') ? 'application/xml' : p === '/robots.txt' ? 'text/plain' : 'text/html; charset=utf-8');
      res.writeHead(200, { 'content-type': type }).end(route);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    set(path, route, contentType) {
      table.set(path, route);
      if (contentType) typeOf.set(path, contentType);
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export const page = (title: string, body: string, links: string[] = []) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><nav><a href="/">Home</a></nav><main><article><h1>${title}</h1>${body}${links
    .map((l) => `<p><a href="${l}">${l}</a></p>`)
    .join('')}</article></main></body></html>`;
