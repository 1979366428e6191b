/**
 * Bounded resources on a real listening server: uploads streamed to disk with a per-request
 * total and a per-account number of uploads at once, slow-drip requests ended by
 * REQUEST_TIMEOUT_MS, Node-level refusals (431, malformed HTTP) in the envelope,
 * `X-Content-Type-Options: nosniff` on every response, database files readable by their owner only.
 */
import { readdirSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { multipart, waitFor } from '../../helpers/knowledge-http.js';

let t: TestApp;
let token: string;
let chatbotId: string;
let port: number;

beforeAll(async () => {
  t = await buildTestApp({
    env: {
      FILE_MAX_BYTES: String(48 * 1024),
      UPLOAD_MAX_TOTAL_BYTES: String(64 * 1024),
      UPLOADS_PER_ACCOUNT: '1',
      REQUEST_TIMEOUT_MS: '400',
    },
  });
  token = (await t.token()).token;
  chatbotId = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Files' })).body.data.chatbot.id;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(() => t.close());

/** Raw bytes to the server; resolves with what came back when the server closes the socket. */
function raw(chunks: (Buffer | string)[], dripMs = 0): Promise<{ text: string; sentAll: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let sentAll = false;
    let closed = false;
    socket.on('data', (d) => (text += d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      resolve({ text, sentAll });
    });
    void (async () => {
      for (const c of chunks) {
        if (closed) return;
        socket.write(c);
        if (dripMs) await new Promise((r) => setTimeout(r, dripMs));
      }
      sentAll = true;
      if (!dripMs) socket.end();
    })();
  });
}
const envelopeOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
const uploadsLeft = () => {
  try {
    return readdirSync(join(t.dataDir, 'uploads'));
  } catch {
    return [];
  }
};

describe('uploads', () => {
  test('files together past UPLOAD_MAX_TOTAL_BYTES: 413 while streaming, nothing stored, no temporary file left', async () => {
    const blobs = async () => (await t.database.db.selectFrom('blobs').select('id').execute()).length;
    const before = await blobs();
    const body = multipart([
      { name: 'a.txt', bytes: Buffer.alloc(40 * 1024, 'a') },
      { name: 'b.txt', bytes: Buffer.alloc(40 * 1024, 'b') },
    ]);
    const res = await t.call(
      'POST',
      `/api/v2/chatbots/${chatbotId}/knowledge/files`,
      token,
      body.payload,
      body.headers,
    );
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await blobs()).toBe(before);
    expect(uploadsLeft()).toEqual([]);
    // One file within both limits is taken.
    const one = multipart([{ name: 'a.txt', bytes: Buffer.from('Opening hours are nine to five on weekdays.') }]);
    expect(
      (await t.call('POST', `/api/v2/chatbots/${chatbotId}/knowledge/files`, token, one.payload, one.headers)).status,
    ).toBe(202);
    expect(uploadsLeft()).toEqual([]);
  });

  test("an account's second upload while one is in progress is 429 RATE_LIMITED; afterwards uploads go through", async () => {
    const body = multipart([{ name: 'slow.txt', bytes: Buffer.from('Parcels ship within two days of the order.') }]);
    const half = Math.floor(body.payload.length / 2);
    // The first upload sends half its body, then waits.
    let finish!: () => void;
    const first = new Promise<number>((resolve) => {
      const req = httpRequest(
        {
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: `/api/v2/chatbots/${chatbotId}/knowledge/files`,
          headers: { ...body.headers, authorization: `Bearer ${token}`, 'content-length': body.payload.length },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.write(body.payload.subarray(0, half));
      finish = () => req.end(body.payload.subarray(half));
    });
    await waitFor(() => uploadsLeft().length === 1, 5_000, 'the first upload in progress');
    const second = await t.call(
      'POST',
      `/api/v2/chatbots/${chatbotId}/knowledge/files`,
      token,
      body.payload,
      body.headers,
    );
    expect(second.status).toBe(429);
    expect(second.body.error.code).toBe('RATE_LIMITED');
    finish();
    expect(await first).toBe(202);
    expect(
      (await t.call('POST', `/api/v2/chatbots/${chatbotId}/knowledge/files`, token, body.payload, body.headers)).status,
    ).toBe(202);
  });
});

describe('slow and malformed requests', () => {
  test('a body dripping slower than REQUEST_TIMEOUT_MS allows is ended with 408 in the envelope', async () => {
    const head = `POST /api/v2/chatbots HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`;
    const drip = Array.from({ length: 200 }, () => ' ');
    const res = await raw([head, ...drip], 50);
    expect(res.sentAll).toBe(false); // the server closed the request long before the body could finish
    expect(res.text).toMatch(/^HTTP\/1\.1 408/);
    expect(envelopeOf(res.text)).toMatchObject({ ok: false, error: { code: 'REQUEST_TIMEOUT' } });
  });

  test('headers larger than Node reads: 431 in the envelope', async () => {
    const res = await raw([`GET /api/v2/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expect(res.text).toMatch(/^HTTP\/1\.1 431/);
    expect(res.text.toLowerCase()).toContain('x-content-type-options: nosniff');
    expect(envelopeOf(res.text)).toMatchObject({
      ok: false,
      error: { code: 'HEADERS_TOO_LARGE' },
      meta: { requestId: expect.any(String) },
    });
  });

  test('malformed HTTP: 400 MALFORMED_REQUEST in the envelope', async () => {
    const res = await raw(['GET /api/v2/me HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n']);
    expect(res.text).toMatch(/^HTTP\/1\.1 400/);
    expect(envelopeOf(res.text)).toMatchObject({ ok: false, error: { code: 'MALFORMED_REQUEST' } });
  });
});

describe('headers and files', () => {
  test('X-Content-Type-Options: nosniff on successes, errors, 404s and public files', async () => {
    const responses = [
      await t.call('GET', '/api/v2/health'),
      await t.call('GET', '/api/v2/me', token),
      await t.call('GET', '/api/v2/me'),
      await t.call('GET', '/api/v2/nowhere'),
      await t.call('GET', '/icons/missing.png'),
      await t.call('GET', '/api/v2/openapi.json'),
    ];
    for (const r of responses) expect(r.headers['x-content-type-options']).toBe('nosniff');
  });

  test('the SQLite database files and the secret key are readable by their owner only', async () => {
    const files = readdirSync(t.dataDir).filter((f) => f.startsWith('test.db') || f === 'secret.key');
    expect(files).toEqual(expect.arrayContaining(['test.db', 'secret.key']));
    for (const f of files) expect((statSync(join(t.dataDir, f)).mode & 0o777).toString(8), f).toBe('600');
  });
});
