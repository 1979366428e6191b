/**
 * The guarded client against servers this test starts on loopback. Only 127.0.0.1 and ::1 are
 * real: a sandbox around net.connect refuses (and records) any other destination, so even a
 * broken guard could not send a packet to 10.x, 169.254.x and the like from this test.
 */
import { getEventListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_USER_AGENT,
  GuardedHttpClient,
  OutboundError,
  type Resolver,
} from '../../../server/outbound/guarded-client.js';

// ---------------------------------------------------------------- network sandbox
const REAL_ADDRESSES = new Set(['127.0.0.1', '::1']);
const violations: string[] = [];
/** Every net/tls connect the client attempted: host as given to net.connect. */
const connectAttempts: string[] = [];
const realNetConnect = net.connect;
const realTlsConnect = tls.connect;

type AnyLookup = (host: string, opts: object, cb: (err: Error | null, addr: unknown, family?: number) => void) => void;

function sandbox<T extends (...args: never[]) => unknown>(real: T): T {
  return function (this: unknown, ...args: unknown[]) {
    const options = (typeof args[0] === 'object' && args[0] !== null ? { ...(args[0] as object) } : {}) as {
      host?: string;
      lookup?: AnyLookup;
    };
    const host = options.host ?? 'localhost';
    connectAttempts.push(host);
    if (net.isIP(host) && !REAL_ADDRESSES.has(host)) {
      violations.push(host);
      throw new Error(`sandbox: refused to connect to ${host}`);
    }
    if (!net.isIP(host)) {
      const inner = options.lookup;
      if (!inner) {
        violations.push(`${host} (no guarded lookup)`);
        throw new Error(`sandbox: ${host} without a lookup`);
      }
      options.lookup = (h, o, cb) =>
        inner(h, o, (err, addr, family) => {
          if (!err) {
            const list = Array.isArray(addr) ? addr.map((a: { address: string }) => a.address) : [addr as string];
            const bad = list.find((a) => !REAL_ADDRESSES.has(a));
            if (bad) {
              violations.push(bad);
              cb(new Error(`sandbox: refused to connect to ${bad}`), '');
              return;
            }
          }
          cb(err, addr, family);
        });
    }
    return (real as unknown as (...a: unknown[]) => unknown).apply(this, [options, ...args.slice(1)]);
  } as unknown as T;
}

// ---------------------------------------------------------------- local servers
type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;
const routes = new Map<string, Handler>();
const hits = new Map<string, number>();
let connections = 0;
let lastRequest: { method: string; url: string; headers: IncomingMessage['headers']; body: string } | null = null;

let server: Server;
let other: Server; // a second origin, for cross-origin redirects
let v6: Server | null = null;
let port = 0;
let otherPort = 0;
let v6Port = 0;
let base = '';

function listen(s: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, host, () => resolve((s.address() as AddressInfo).port));
  });
}

function makeServer(): Server {
  const s = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const body = Buffer.concat(chunks);
      lastRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: body.toString() };
      const handler = routes.get(path);
      if (handler) handler(req, res, body);
      else res.writeHead(404).end('not found');
    });
  });
  s.on('connection', () => connections++);
  return s;
}

const echo: Handler = (req, res, body) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ method: req.method, headers: req.headers, body: body.toString() }));
};

/** Resolves when the response to the most recent request on `path` closes; tells how it ended. */
let bigSent: Promise<{ written: number; finished: boolean }>;
let declaredSent: Promise<{ written: number }>;
let streamGate: () => void = () => {};

const MB = 1024 * 1024;
const BOMB = gzipSync(Buffer.alloc(64 * MB));

function defineRoutes(): void {
  routes.set('/hello', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('hello'));
  routes.set('/echo', echo);
  routes.set('/loop', (_req, res) => res.writeHead(302, { location: '/loop' }).end());
  routes.set('/rel', (_req, res) => res.writeHead(301, { location: 'hello' }).end());
  routes.set('/to-private', (_req, res) => res.writeHead(302, { location: 'http://10.0.0.1/' }).end());
  routes.set('/to-metadata', (_req, res) =>
    res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
  );
  routes.set('/to-127-2', (_req, res) => res.writeHead(302, { location: `http://127.0.0.2:${port}/hello` }).end());
  routes.set('/to-internal-name', (_req, res) =>
    res.writeHead(302, { location: `http://internal.test:${port}/hello` }).end(),
  );
  routes.set('/to-file', (_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end());
  routes.set('/form', (_req, res) => res.writeHead(303, { location: '/echo' }).end());
  routes.set('/temp', (_req, res) => res.writeHead(307, { location: '/echo' }).end());
  routes.set('/cross', (_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${otherPort}/echo` }).end());
  routes.set('/same', (_req, res) => res.writeHead(302, { location: '/echo' }).end());
  for (let n = 1; n <= 6; n++) {
    routes.set(`/chain/${n}`, (_req, res) =>
      res.writeHead(302, { location: n === 1 ? '/hello' : `/chain/${n - 1}` }).end(),
    );
  }
  routes.set('/big', (_req, res) => {
    let settle!: (v: { written: number; finished: boolean }) => void;
    bigSent = new Promise((r) => (settle = r));
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024, 97);
    const total = 50 * MB;
    let written = 0;
    const pump = () => {
      while (written < total) {
        if (res.destroyed) return;
        written += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    res.on('close', () => settle({ written, finished: res.writableFinished }));
    pump();
  });
  routes.set('/declared-big', (_req, res) => {
    let settle!: (v: { written: number }) => void;
    declaredSent = new Promise((r) => (settle = r));
    let written = 0;
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(50 * MB) });
    res.flushHeaders();
    // The body would start only later: a client that reads anything first is too late.
    const timer = setTimeout(() => {
      written += 1024;
      res.write(Buffer.alloc(1024));
    }, 1000);
    res.on('close', () => {
      clearTimeout(timer);
      settle({ written });
    });
  });
  routes.set('/drip', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    const timer = setInterval(() => res.write('a'), 200);
    res.on('close', () => clearInterval(timer));
  });
  routes.set('/stall', () => {
    /* never answers */
  });
  routes.set('/bomb', (_req, res) =>
    res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/html' }).end(BOMB),
  );
  const text = Buffer.from('compressed hello '.repeat(100));
  routes.set('/gzip', (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(text)));
  routes.set('/br', (_req, res) => res.writeHead(200, { 'content-encoding': 'br' }).end(brotliCompressSync(text)));
  routes.set('/deflate', (_req, res) => res.writeHead(200, { 'content-encoding': 'deflate' }).end(deflateSync(text)));
  routes.set('/deflate-raw', (_req, res) =>
    res.writeHead(200, { 'content-encoding': 'deflate' }).end(deflateRawSync(text)),
  );
  routes.set('/stream', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('first;');
    // The rest comes only after the client has read the first part: a buffering client hangs.
    streamGate = () => res.end('second');
  });
  routes.set('/stream-big', (_req, res) => {
    let settle!: (v: { written: number; finished: boolean }) => void;
    bigSent = new Promise((r) => (settle = r));
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    let written = 0;
    const chunk = Buffer.alloc(16 * 1024, 98);
    const pump = () => {
      while (written < 8 * MB) {
        if (res.destroyed) return;
        written += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    res.on('close', () => settle({ written, finished: res.writableFinished }));
    pump();
  });
}

// ---------------------------------------------------------------- clients
const toLoopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
const clients: GuardedHttpClient[] = [];
function client(options: ConstructorParameters<typeof GuardedHttpClient>[0]): GuardedHttpClient {
  const c = new GuardedHttpClient(options);
  clients.push(c);
  return c;
}

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof OutboundError) return err;
    throw new Error(`expected an OutboundError, got ${String(err)}`, { cause: err });
  }
  throw new Error('expected the request to fail');
}

let open: GuardedHttpClient; // allowPrivate: true, reaches the loopback servers
let strict: GuardedHttpClient; // allowPrivate: false, system resolver

beforeAll(async () => {
  net.connect = sandbox(realNetConnect);
  tls.connect = sandbox(realTlsConnect);
  defineRoutes();
  server = makeServer();
  other = makeServer();
  port = await listen(server, '127.0.0.1');
  otherPort = await listen(other, '127.0.0.1');
  try {
    v6 = makeServer();
    v6Port = await listen(v6, '::1');
  } catch {
    v6 = null; // no IPv6 loopback here; [::1] is still refused, just without a live target
  }
  base = `http://127.0.0.1:${port}`;
  open = client({ allowPrivate: true });
  strict = client({ allowPrivate: false });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  for (const s of [server, other, v6]) {
    if (!s) continue;
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  net.connect = realNetConnect;
  tls.connect = realTlsConnect;
});

beforeEach(() => {
  violations.length = 0;
  hits.clear();
  lastRequest = null;
});

afterEach(() => {
  expect(violations, 'the client tried to reach a non-loopback address').toEqual([]);
});

// ---------------------------------------------------------------- tests
describe('SSRF guard (ALLOW_PRIVATE_FETCH off)', () => {
  const matrix = () => [
    `http://127.0.0.1:${port}/hello`,
    `http://[::1]:${v6Port || port}/hello`,
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://[fc00::1]/',
    'http://[fe80::1]/',
    `http://[::ffff:127.0.0.1]:${port}/hello`,
    'http://[::ffff:a9fe:a9fe]/',
    `http://2130706433:${port}/hello`,
    `http://0x7f.1:${port}/hello`,
    `http://0177.0.0.1:${port}/hello`,
    `http://127.1:${port}/hello`,
    `http://0.0.0.0:${port}/hello`,
    `http://[::]:${port}/hello`,
    'http://255.255.255.255/',
    'http://224.0.0.1/',
    'http://[64:ff9b::a00:1]/',
    'http://[2002:a00:1::1]/',
    `http://localhost:${port}/hello`,
  ];

  it('refuses every internal address with BLOCKED_ADDRESS before connecting (request and fetch)', async () => {
    connectAttempts.length = 0;
    const before = connections;
    for (const url of matrix()) {
      const viaRequest = await failure(strict.request(url));
      expect(viaRequest.code, url).toBe('BLOCKED_ADDRESS');
      expect(viaRequest.hint).toContain('ALLOW_PRIVATE_FETCH');
      const viaFetch = await failure(strict.fetch(url));
      expect(viaFetch.code, url).toBe('BLOCKED_ADDRESS');
    }
    // Literal addresses never reach net.connect; `localhost` reaches it only to be refused in the
    // guarded lookup, before any socket connects.
    expect(connectAttempts.filter((h) => h !== 'localhost')).toEqual([]);
    expect(connections - before).toBe(0);
  });

  it('normalises odd encodings through WHATWG URL parsing before the check', async () => {
    const err = await failure(strict.request(`http://0x7f.1:${port}/hello`));
    expect(err.message).toContain('127.0.0.1');
  });

  it('refuses a public-looking name that resolves to a private address', async () => {
    const before = connections;
    const evil = client({ allowPrivate: false, lookup: toLoopback });
    const err = await failure(evil.request(`http://evil.example:${port}/hello`));
    expect(err.code).toBe('BLOCKED_ADDRESS');
    expect(err.address).toBe('127.0.0.1');
    expect(err.url).toBe(`http://evil.example:${port}/hello`);
    expect(err.message).toContain('evil.example is a private or reserved address');
    expect(err.message).not.toContain('127.0.0.1'); // what a name resolves to is not told back
    expect(connections - before).toBe(0);
  });

  it('checks every resolved address, not just the first', async () => {
    const mixed = client({
      allowPrivate: false,
      lookup: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
    });
    const err = await failure(mixed.request('http://mixed.example/'));
    expect(err.code).toBe('BLOCKED_ADDRESS');
    expect(err.address).toBe('10.0.0.1');
  });

  it('connects to the checked address, keeping the name in the Host header', async () => {
    const pinned = client({ allowPrivate: true, lookup: toLoopback });
    const res = await pinned.request(`http://evil.example:${port}/echo`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString()).headers.host).toBe(`evil.example:${port}`);
  });

  it('over https: SNI and certificate checks use the name, the socket uses the checked address', async () => {
    // Self-signed certificate for evil.example (fixtures/, valid until 2126).
    const cert = readFileSync(new URL('./fixtures/evil.example.cert.pem', import.meta.url), 'utf8');
    const key = readFileSync(new URL('./fixtures/evil.example.key.pem', import.meta.url), 'utf8');
    const seen: Array<{ sni: string | false | null; host?: string }> = [];
    const secure = createHttpsServer({ key, cert }, (req, res) => {
      seen.push({ sni: (req.socket as import('node:tls').TLSSocket).servername, host: req.headers.host });
      res.end('secret hello');
    });
    const tlsPort = await listen(secure, '127.0.0.1');
    try {
      const trusting = client({ allowPrivate: true, lookup: toLoopback, extraCaCertificates: [cert] });
      const res = await trusting.request(`https://evil.example:${tlsPort}/`);
      expect(res.body.toString()).toBe('secret hello');
      expect(seen).toEqual([{ sni: 'evil.example', host: `evil.example:${tlsPort}` }]);
      // Without the extra CA the certificate is rejected: verification is on.
      const plain = client({ allowPrivate: true, lookup: toLoopback });
      const err = await failure(plain.request(`https://evil.example:${tlsPort}/`));
      expect(err.code).toBe('NETWORK');
      // And the guard applies to https as to http.
      const guarded = client({ allowPrivate: false, lookup: toLoopback, extraCaCertificates: [cert] });
      expect((await failure(guarded.request(`https://evil.example:${tlsPort}/`))).code).toBe('BLOCKED_ADDRESS');
      expect((await failure(guarded.request(`https://127.0.0.1:${tlsPort}/`))).code).toBe('BLOCKED_ADDRESS');
      expect(seen).toHaveLength(1);
    } finally {
      secure.closeAllConnections();
      await new Promise((r) => secure.close(r));
    }
  });

  describe('redirects out of an allowed host', () => {
    // public.test "is public": it resolves to 127.0.0.1, which the test hook allows; nothing else is.
    const resolver: Resolver = async (name) => [
      { address: name === 'internal.test' ? '10.0.0.1' : '127.0.0.1', family: 4 },
    ];
    let hop: GuardedHttpClient;
    beforeAll(() => {
      hop = client({ allowPrivate: false, lookup: resolver, isAllowedAddress: (ip) => ip === '127.0.0.1' });
    });

    it('reaches the allowed host itself', async () => {
      const res = await hop.request(`http://public.test:${port}/hello`);
      expect(res.body.toString()).toBe('hello');
    });

    it.each([
      ['/to-private', 'http://10.0.0.1/'],
      ['/to-metadata', 'http://169.254.169.254/latest/meta-data/'],
      ['/to-127-2', () => `http://127.0.0.2:${port}/hello`],
      ['/to-internal-name', () => `http://internal.test:${port}/hello`],
    ])('refuses the hop %s', async (path, target) => {
      connectAttempts.length = 0;
      const err = await failure(hop.request(`http://public.test:${port}${path}`));
      expect(err.code).toBe('BLOCKED_ADDRESS');
      expect(err.url).toBe(typeof target === 'function' ? target() : target);
      expect(hits.get('/hello') ?? 0).toBe(0);
      // Only the allowed first hop opened a socket (later ones reuse or never connect).
      expect(connectAttempts.filter((h) => h !== 'public.test' && h !== 'internal.test')).toEqual([]);
    });

    it('refuses it through fetch as well', async () => {
      const err = await failure(hop.fetch(`http://public.test:${port}/to-private`));
      expect(err.code).toBe('BLOCKED_ADDRESS');
    });
  });

  it('refuses non-http schemes, also as a redirect target', async () => {
    expect((await failure(strict.request('file:///etc/passwd'))).code).toBe('UNSUPPORTED_PROTOCOL');
    expect((await failure(strict.request('ftp://example.com/'))).code).toBe('UNSUPPORTED_PROTOCOL');
    expect((await failure(open.request(`${base}/to-file`))).code).toBe('UNSUPPORTED_PROTOCOL');
  });

  it('refuses malformed URLs and URLs with credentials', async () => {
    expect((await failure(strict.request('not a url'))).code).toBe('INVALID_URL');
    expect((await failure(strict.request('http://user:pw@example.com/'))).code).toBe('INVALID_URL');
    expect((await failure(strict.fetch('http://'))).code).toBe('INVALID_URL');
  });
});

describe('redirects', () => {
  it('stops a redirect loop with TOO_MANY_REDIRECTS after the default 5', async () => {
    const err = await failure(open.request(`${base}/loop`));
    expect(err.code).toBe('TOO_MANY_REDIRECTS');
    expect(hits.get('/loop')).toBe(6);
  });

  it('follows up to maxRedirects and reports the chain', async () => {
    const res = await open.request(`${base}/chain/5`);
    expect(res.body.toString()).toBe('hello');
    expect(res.url).toBe(`${base}/hello`);
    expect(res.redirects).toEqual([5, 4, 3, 2, 1].map((n) => `${base}/chain/${n}`));
    expect((await failure(open.request(`${base}/chain/6`))).code).toBe('TOO_MANY_REDIRECTS');
    expect((await failure(open.request(`${base}/chain/1`, { limits: { maxRedirects: 0 } }))).code).toBe(
      'TOO_MANY_REDIRECTS',
    );
  });

  it('resolves a relative Location against the current URL', async () => {
    const res = await open.request(`${base}/rel`);
    expect(res.url).toBe(`${base}/hello`);
    expect(res.body.toString()).toBe('hello');
  });

  it('returns the 3xx when followRedirects is false', async () => {
    const res = await open.request(`${base}/loop`, { followRedirects: false });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/loop');
    expect(res.redirects).toEqual([]);
  });

  it('turns a POST into a GET on 303, dropping the body', async () => {
    const res = await open.request(`${base}/form`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    const seen = JSON.parse(res.body.toString());
    expect(seen.method).toBe('GET');
    expect(seen.body).toBe('');
    expect(seen.headers['content-type']).toBeUndefined();
  });

  it('keeps method and body on 307', async () => {
    const res = await open.request(`${base}/temp`, { method: 'POST', body: Buffer.from('payload') });
    const seen = JSON.parse(res.body.toString());
    expect(seen.method).toBe('POST');
    expect(seen.body).toBe('payload');
  });

  it('drops credentials when a redirect leaves the origin, keeps them within it', async () => {
    const headers = { authorization: 'Bearer secret', cookie: 'a=b', 'x-keep': 'yes' };
    const cross = JSON.parse((await open.request(`${base}/cross`, { headers })).body.toString());
    expect(cross.headers.authorization).toBeUndefined();
    expect(cross.headers.cookie).toBeUndefined();
    expect(cross.headers['x-keep']).toBe('yes');
    const same = JSON.parse((await open.request(`${base}/same`, { headers })).body.toString());
    expect(same.headers.authorization).toBe('Bearer secret');
  });
});

describe('limits (they hold with ALLOW_PRIVATE_FETCH on)', () => {
  it('aborts a 50 MB body mid-stream at the 10 MB default', async () => {
    // Sample external memory (where Buffers live) while the request runs.
    const baseline = process.memoryUsage().arrayBuffers;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)), 2);
    const err = await failure(open.request(`${base}/big`)).finally(() => clearInterval(sampler));
    expect(err.code).toBe('TOO_LARGE');
    expect(peak - baseline).toBeLessThan(25 * MB);
    const sent = await bigSent;
    expect(sent.finished).toBe(false);
    // 10 MB plus what socket buffers absorbed: the transfer was cut off, not completed.
    expect(sent.written).toBeLessThan(30 * MB);
  });

  it('refuses a Content-Length over the limit before reading the body', async () => {
    const started = Date.now();
    const err = await failure(open.request(`${base}/declared-big`));
    expect(err.code).toBe('TOO_LARGE');
    expect(err.message).toContain('declares');
    expect(Date.now() - started).toBeLessThan(900);
    expect((await declaredSent).written).toBe(0);
    expect((await failure(open.fetch(`${base}/declared-big`))).code).toBe('TOO_LARGE');
  });

  it('cuts off a slow-drip body at the total time limit', async () => {
    const started = Date.now();
    const err = await failure(open.request(`${base}/drip`, { limits: { timeoutMs: 1000 } }));
    expect(err.code).toBe('TIMEOUT');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(3000);
  });

  it('times out a server that never sends headers', async () => {
    const err = await failure(open.request(`${base}/stall`, { limits: { timeoutMs: 500 } }));
    expect(err.code).toBe('TIMEOUT');
  });

  it('refuses a gzip bomb by its decompressed size', async () => {
    expect(BOMB.length).toBeLessThan(1 * MB);
    const err = await failure(open.request(`${base}/bomb`));
    expect(err.code).toBe('TOO_LARGE');
    expect(err.message).toContain('decompresses');
  });

  it.each(['/gzip', '/br', '/deflate', '/deflate-raw'])('decodes %s', async (path) => {
    const res = await open.request(`${base}${path}`);
    expect(res.body.toString()).toBe('compressed hello '.repeat(100));
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(lastRequest?.headers['accept-encoding']).toBe('gzip, deflate, br');
  });
});

describe('User-Agent', () => {
  it('names Parley by default', async () => {
    await open.request(`${base}/hello`);
    expect(lastRequest?.headers['user-agent']).toBe(DEFAULT_USER_AGENT);
    expect(DEFAULT_USER_AGENT).toMatch(/^Parley\/\S+ \(\+https:\/\//);
    await open.fetch(`${base}/hello`).then((r) => r.text());
    expect(lastRequest?.headers['user-agent']).toBe(DEFAULT_USER_AGENT);
  });

  it('can be overridden per client and per request', async () => {
    const custom = client({ allowPrivate: true, userAgent: 'ParleyCrawler/2' });
    await custom.request(`${base}/hello`);
    expect(lastRequest?.headers['user-agent']).toBe('ParleyCrawler/2');
    await custom.request(`${base}/hello`, { headers: { 'User-Agent': 'Mine/1' } });
    expect(lastRequest?.headers['user-agent']).toBe('Mine/1');
  });
});

describe('fetch', () => {
  it('streams a chunked body as it arrives', { timeout: 10_000 }, async () => {
    const res = await open.fetch(`${base}/stream`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('first;');
    streamGate();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += decoder.decode(r.value);
    expect(rest).toBe('second');
  });

  it('errors the stream when the byte limit is passed mid-stream', async () => {
    const limited = open.fetchWith({ maxBytes: 256 * 1024 });
    const res = await limited(`${base}/stream-big`);
    expect(res.ok).toBe(true);
    const reader = res.body!.getReader();
    let received = 0;
    const err = await (async () => {
      try {
        for (let r = await reader.read(); !r.done; r = await reader.read()) received += r.value.byteLength;
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).code).toBe('TOO_LARGE');
    expect(received).toBeLessThanOrEqual(256 * 1024);
    const sent = await bigSent;
    expect(sent.finished).toBe(false);
  });

  it('leaves no listener on a long-lived caller signal once each response is read', async () => {
    // A dispatcher passes its one shutdown signal to every request; listeners kept on it until
    // garbage collection pile up by the thousand (MaxListenersExceededWarning) on a busy server.
    const shutdown = new AbortController();
    for (let i = 0; i < 20; i++) {
      const res = await open.fetch(`${base}/hello`, { signal: shutdown.signal });
      await res.arrayBuffer();
    }
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it('applies the deadline to the streamed body', async () => {
    const slow = open.fetchWith({ timeoutMs: 800 });
    const res = await slow(`${base}/drip`);
    const err = await res.text().then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as OutboundError).code).toBe('TIMEOUT');
  });

  it('accepts a Request with a JSON body (the way SDKs call it) and reports url/redirected', async () => {
    const res = await open.fetch(
      new Request(`${base}/temp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
        body: JSON.stringify({ model: 'm' }),
      }),
    );
    expect(res.url).toBe(`${base}/echo`);
    expect(res.redirected).toBe(true);
    const seen = (await res.json()) as { method: string; body: string; headers: Record<string, string> };
    expect(seen.method).toBe('POST');
    expect(JSON.parse(seen.body)).toEqual({ model: 'm' });
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers.authorization).toBe('Bearer k');
  });

  it('accepts a URL object and decodes gzip', async () => {
    const res = await open.fetch(new URL(`${base}/gzip`));
    expect(await res.text()).toBe('compressed hello '.repeat(100));
    expect(res.headers.get('content-encoding')).toBeNull();
  });

  it('honours redirect: "manual"', async () => {
    const res = await open.fetch(`${base}/loop`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/loop');
  });

  it("rejects with the caller's AbortError when the caller aborts", async () => {
    const controller = new AbortController();
    const pending = open.fetch(`${base}/stall`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
