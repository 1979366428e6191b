/**
 * A local HTTPS webhook receiver with a self-signed certificate made at test time (openssl; no
 * key is committed). Each request is recorded with its exact body bytes and headers; `respond`
 * decides the answer: a status (with headers, e.g. a 302's Location), `hang` (never answers), or
 * `destroy` (drops the connection).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ReceivedWebhook {
  n: number;
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export type ReceiverAnswer = number | { status: number; headers?: Record<string, string> } | 'hang' | 'destroy';

export interface WebhookReceiver {
  url: string;
  /** PEM file of the certificate (its own CA): NODE_EXTRA_CA_CERTS for the app under test. */
  caFile: string;
  ca: string;
  received: ReceivedWebhook[];
  respond: (r: ReceivedWebhook) => ReceiverAnswer;
  /** Resolves when `predicate` holds over the received requests (checked on each arrival). */
  waitFor(predicate: (received: ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A certificate for 127.0.0.1 and localhost, valid one day, in a fresh directory. */
export function makeCertificate(): { dir: string; keyFile: string; certFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'parley-cert-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=parley-test-receiver',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  return { dir, keyFile, certFile };
}

export async function startReceiver(
  respond: WebhookReceiver['respond'] = () => 200,
  cert = makeCertificate(),
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiters = new Set<() => void>();
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer(
    { key: readFileSync(cert.keyFile), cert: readFileSync(cert.certFile) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
        const r: ReceivedWebhook = {
          n: received.length + 1,
          path: req.url ?? '/',
          headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        received.push(r);
        for (const w of waiters) w();
        const answer = receiver.respond(r);
        if (answer === 'hang') {
          hanging.add(res);
          return;
        }
        if (answer === 'destroy') {
          req.socket.destroy();
          return;
        }
        const { status, headers: extra } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
        res.writeHead(status, { 'content-type': 'text/plain', ...extra });
        res.end('ok');
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver: WebhookReceiver = {
    url: `https://127.0.0.1:${port}`,
    caFile: cert.certFile,
    ca: readFileSync(cert.certFile, 'utf8'),
    received,
    respond,
    waitFor(predicate, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(received)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`receiver: condition not met within ${timeoutMs} ms (${received.length} requests received)`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(cert.dir, { recursive: true, force: true });
    },
  };
  return receiver;
}

/**
 * HMAC-SHA256 computed by the openssl command line, an implementation independent of ours:
 * `key` is the secret's bytes (for `whsec_…`, the base64 after the prefix, decoded).
 */
export function opensslHmac(key: Buffer, data: string): Buffer {
  return execFileSync(
    'openssl',
    ['dgst', '-sha256', '-mac', 'HMAC', '-macopt', `hexkey:${key.toString('hex')}`, '-binary'],
    { input: Buffer.from(data, 'utf8') },
  );
}

/**
 * A receiver's verification, written from the Standard Webhooks specification and section 6
 * with openssl doing the HMAC: `standard` when one `v1,` entry of `webhook-signature` matches
 * `secret`; `service` when `X-SERVICE-SIGNATURE` is exactly `sha256=<hex>` of `secret` (section 6
 * defines one value, and a receiver following it compares the whole header).
 */
export function verifyWithOpenssl(
  secret: string,
  headers: Record<string, string>,
  body: string,
): { standard: boolean; service: boolean } {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = opensslHmac(key, `${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).toString(
    'base64',
  );
  const standard = (headers['webhook-signature'] ?? '').split(' ').some((s) => s === `v1,${expected}`);
  const hex = opensslHmac(key, body).toString('hex');
  const service = headers['x-service-signature'] === `sha256=${hex}`;
  return { standard, service };
}
