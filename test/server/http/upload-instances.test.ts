/**
 * The per-account cap on uploads at once holds across instances: two apps on one database (a
 * PostgreSQL schema, or one SQLite file), each listening on its own port. Uploads held open
 * half-sent on one instance fill the account's slots, the other instance refuses the next with
 * 429, and a finished upload frees its slot for either. In CI an unreachable PostgreSQL fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { multipart, waitFor } from '../../helpers/knowledge-http.js';
import { createPostgresSchema } from '../../helpers/postgres.js';
import { describeOnDialects } from '../../helpers/dialects.js';

describeOnDialects('two instances on %s', (dialect) => {
  let dataDir: string;
  let drop = async () => {};
  let one: TestApp;
  let two: TestApp;
  let token: string;
  let chatbotId: string;
  const ports: number[] = [];

  beforeAll(async () => {
    // One DATA_DIR (its secret key) and one database for both: two instances of one installation.
    dataDir = mkdtempSync(join(tmpdir(), 'parley-instances-'));
    let schema: string | undefined;
    if (dialect === 'postgres') ({ schema, drop } = await createPostgresSchema());
    const build = () => buildTestApp({ dialect, postgresSchema: schema, dataDir, env: { UPLOADS_PER_ACCOUNT: '2' } });
    one = await build();
    two = await build();
    token = (await one.token()).token;
    chatbotId = (await one.call('POST', '/api/v2/chatbots', token, { title: 'Files' })).body.data.chatbot.id;
    for (const t of [one, two]) {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      ports.push((t.app.server.address() as { port: number }).port);
    }
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const body = multipart([{ name: 'hours.txt', bytes: Buffer.from('The shop opens at eight and closes at six.') }]);
  const path = () => `/api/v2/chatbots/${chatbotId}/knowledge/files`;

  /** An upload to `port` that sends half its body and waits; `finish()` sends the rest. */
  function heldUpload(port: number) {
    let finish!: () => void;
    const status = new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: path(),
          headers: { ...body.headers, authorization: `Bearer ${token}`, 'content-length': body.payload.length },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      const half = Math.floor(body.payload.length / 2);
      req.write(body.payload.subarray(0, half));
      finish = () => req.end(body.payload.subarray(half));
    });
    return { status, finish: () => finish() };
  }

  async function upload(port: number) {
    const res = await fetch(`http://127.0.0.1:${port}${path()}`, {
      method: 'POST',
      headers: { ...body.headers, authorization: `Bearer ${token}` },
      body: body.payload,
    });
    return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
  }

  const leases = async () => (await one.database.db.selectFrom('upload_leases').select('id').execute()).length;

  test('two uploads held on one instance fill the slots: the other instance refuses the third; a finished one frees a slot there', async () => {
    const first = heldUpload(ports[0]);
    const second = heldUpload(ports[0]);
    await waitFor(async () => (await leases()) === 2, 10_000, 'two uploads in progress on the first instance');

    const refused = await upload(ports[1]);
    expect(refused.status).toBe(429);
    expect(refused.body.error?.code).toBe('RATE_LIMITED');

    first.finish();
    expect(await first.status).toBe(202);
    expect((await upload(ports[1])).status).toBe(202);
    second.finish();
    expect(await second.status).toBe(202);
    // Every lease is released with its request.
    expect(await leases()).toBe(0);
  });
});
