/**
 * A local website served by the test (node:http on 127.0.0.1:0) and a plain node:http Fetcher
 * for it, so the crawl policy is exercised over real HTTP without the guarded client.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Fetcher, FetchResult } from '../../../../../server/domain/knowledge/crawl/fetcher.js';

export interface RouteSpec {
  status?: number;
  type?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}
export type Route = RouteSpec | ((req: http.IncomingMessage, res: http.ServerResponse) => void);

export interface TestSite {
  origin: string;
  port: number;
  url(path: string): string;
  /** Path (with query, or without to match any query) -> response; changeable while the site runs. */
  routes: Map<string, Route>;
  /** Paths requested, in order, with the User-Agent that asked. */
  hits: { path: string; userAgent: string }[];
  close(): Promise<void>;
}

export async function startSite(routes: Record<string, Route> = {}): Promise<TestSite> {
  const table = new Map<string, Route>(Object.entries(routes));
  const hits: TestSite['hits'] = [];
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    hits.push({ path, userAgent: String(req.headers['user-agent'] ?? '') });
    const route = table.get(path) ?? table.get(path.split('?')[0]);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (typeof route === 'function') return route(req, res);
    const headers: Record<string, string> = { ...(route.headers ?? {}) };
    if (route.type) headers['content-type'] = route.type;
    res.writeHead(route.status ?? 200, headers).end(route.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    url: (path) => origin + path,
    routes: table,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const html = (body: string, head = ''): RouteSpec => ({
  type: 'text/html; charset=utf-8',
  body: `<!doctype html><html><head><title>t</title>${head}</head><body>${body}</body></html>`,
});
export const redirect = (location: string, status = 302): RouteSpec => ({ status, headers: { location } });

/** A Fetcher over node's http.get: follows up to 5 redirects, bounds the body, never decodes gzip. */
export function httpFetcher(
  userAgent = 'Parley/0.1 (+https://github.com/parley-chat/parley)',
): Fetcher & { requests: string[] } {
  const requests: string[] = [];
  const once = (url: string, accept: string | undefined, maxBytes: number) =>
    new Promise<FetchResult & { location?: string }>((resolve, reject) => {
      requests.push(url);
      const req = http.get(url, { headers: { 'user-agent': userAgent, ...(accept ? { accept } : {}) } }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) {
            req.destroy(Object.assign(new Error(`more than ${maxBytes} bytes`), { code: 'TOO_LARGE' }));
            return;
          }
          chunks.push(c);
        });
        res.on('error', reject);
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
          resolve({
            url,
            status: res.statusCode ?? 0,
            contentType: headers['content-type'] ?? null,
            body: Buffer.concat(chunks),
            headers,
            location: headers.location,
          });
        });
      });
      req.on('error', (err) =>
        reject(Object.assign(err, { code: (err as { code?: string }).code === 'TOO_LARGE' ? 'TOO_LARGE' : 'NETWORK' })),
      );
    });
  return {
    requests,
    async get(url, opts = {}) {
      let current = url;
      for (let hop = 0; ; hop++) {
        const res = await once(current, opts.accept, opts.maxBytes ?? 10 * 1024 * 1024);
        if (res.status >= 300 && res.status < 400 && res.location) {
          if (hop >= 5)
            throw Object.assign(new Error(`${url} redirected more than 5 times`), { code: 'TOO_MANY_REDIRECTS' });
          current = new URL(res.location, current).href;
          continue;
        }
        const { location: _location, ...result } = res;
        return result;
      }
    },
  };
}
