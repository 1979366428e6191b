/**
 * @parley/client, built from this checkout, against the live app on a real port: typed calls
 * with the envelope unwrapped, a refusal as a ParleyError, a list walked across pages, the
 * Idempotency-Key the message routes honour, a real 429 (an account's upload slots) retried after
 * its Retry-After, a real webhook delivery verified in both signature forms, and the device flow
 * approved on the /device page; and the README's example run as written.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { ParleyClient, RetryInfo } from '@parley/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { answerDeviceCode, fetchSend, FormBrowser } from '../../helpers/browser-form.js';
import { freePort } from '../../helpers/child-server.js';
import { multipart, waitFor } from '../../helpers/knowledge-http.js';
import { loadClient } from '../../helpers/parley-client.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const OWNER = 'owner@example.com';
const PASSWORD = 'correct horse battery staple';

let t: TestApp;
let receiver: WebhookReceiver;
let site: string;
let token: string;
let lib: Awaited<ReturnType<typeof loadClient>>;
let parley: ParleyClient;

beforeAll(async () => {
  lib = await loadClient();
  receiver = await startReceiver();
  const port = await freePort();
  site = `http://127.0.0.1:${port}`;
  t = await buildTestApp({
    env: {
      SITE_URL: site,
      OWNER_EMAIL: OWNER,
      DEVICE_FLOW_INTERVAL_SECONDS: '1',
      UPLOADS_PER_ACCOUNT: '1',
      ALLOW_PRIVATE_FETCH: '127.0.0.0/8',
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      WEBHOOK_POLL_MS: '20',
    },
  });
  const account = await t.app.services.accounts.resolve();
  await t.app.services.signIn.setPassword((await t.app.services.store.users.owner(account.id))!, PASSWORD);
  await t.app.listen({ port, host: '127.0.0.1' });
  token = (await t.token()).token;
  parley = lib.createParleyClient({ server: site, token });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

test('typed calls return the envelope data: create, read, start a conversation, list its messages', async () => {
  // Imported once the package is built: it imports @parley/client as an application does.
  const { tour } = await import('./typed-usage.js');
  const result = await tour(parley);
  expect(result).toMatchObject({ title: 'Typed tour', status: 'OPEN', missing: 'CHATBOT_NOT_FOUND' });
  expect(result.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  expect(result.texts[0]).toBe('Hello there');
  expect(result.authors[0]).toBe('visitor');
  expect(result.titles).toContain('Typed tour');
  // The answer the API stored is the one the call returned.
  expect(result.texts).toContain(result.answer);
});

test('a refusal is thrown as a ParleyError with code, status, request id, message and details', async () => {
  const error = await parley
    .POST('/chatbots', { body: { title: 5 as unknown as string }, headers: { 'x-request-id': 'client-test-1' } })
    .catch((err: unknown) => err);
  expect(error).toBeInstanceOf(lib.ParleyError);
  expect(error).toMatchObject({
    name: 'ParleyError',
    code: 'VALIDATION_FAILED',
    status: 400,
    requestId: 'client-test-1',
    details: [expect.objectContaining({ path: ['title'], in: 'body' })],
  });
  expect((error as Error).message).toMatch(/\S/);

  // A token without the scope: 403, and the details name the scope it needs.
  const narrow = (await t.token({ access: 'custom', scopes: ['chatbots:read'] })).token;
  const scoped = lib.createParleyClient({ server: site, token: narrow });
  const refused = await scoped.POST('/chatbots', { body: { title: 'No' } }).catch((err: unknown) => err);
  expect(refused).toMatchObject({
    code: 'TOKEN_SCOPE_NOT_ALLOWED',
    status: 403,
    details: { requiredScopes: ['chatbots:write'] },
  });
  expect((refused as { requestId: string }).requestId).toMatch(/\S/);
});

test('paginate walks a list across pages by its cursor, each item once', async () => {
  const made = new Set<string>();
  for (let i = 0; i < 5; i++) made.add((await parley.POST('/chatbots', { body: { title: `Paged ${i}` } })).chatbot.id);
  const total = (await parley.GET('/chatbots', { params: { query: { limit: 100 } } })).chatbots.length;

  const seen: string[] = [];
  for await (const chatbot of parley.paginate('/chatbots', { params: { query: { limit: 2 } } })) seen.push(chatbot.id);
  expect(seen).toHaveLength(total);
  expect(new Set(seen).size).toBe(total);
  for (const id of made) expect(seen).toContain(id);

  let pages = 0;
  for await (const page of parley.pages('/chatbots', { params: { query: { limit: 2 } } })) {
    pages++;
    expect(page.chatbots.length).toBeLessThanOrEqual(2);
  }
  expect(pages).toBe(Math.ceil(total / 2));
});

test('visitor messages carry an Idempotency-Key by default, which the API honours; other writes carry none', async () => {
  const sent: Array<{ method: string; path: string; key: string | null }> = [];
  const recording = lib.createParleyClient({
    server: site,
    token,
    fetch: (request) => {
      sent.push({
        method: request.method,
        path: new URL(request.url).pathname,
        key: request.headers.get('idempotency-key'),
      });
      return fetch(request);
    },
  });
  const { chatbot } = await recording.POST('/chatbots', { body: { title: 'Keys' } });
  const started = await recording.POST('/chatbots/{chatbotId}/messages', {
    params: { path: { chatbotId: chatbot.id } },
    body: { message: 'First' },
  });
  const path = { chatbotId: chatbot.id, threadId: started.conversation.threadId };
  const reply = await recording.POST('/chatbots/{chatbotId}/conversations/{threadId}/messages', {
    params: { path },
    body: { message: 'Second' },
  });
  expect(sent.map((s) => s.key === null)).toEqual([true, false, false]);
  const key = sent[2].key!;
  expect(key).toMatch(/^[0-9a-f-]{36}$/);
  expect(sent[1].key).not.toBe(key);

  // The same key again (a retry after a lost answer): the message stored the first time, nothing new.
  const again = await recording.POST('/chatbots/{chatbotId}/conversations/{threadId}/messages', {
    params: { path, header: { 'idempotency-key': key } },
    body: { message: 'Second' },
  });
  expect(again.message.id).toBe(reply.message.id);
  const texts: string[] = [];
  for await (const m of parley.paginate('/chatbots/{chatbotId}/conversations/{threadId}/messages', {
    params: { path },
  }))
    texts.push(m.text);
  expect(texts.filter((text) => text === 'Second')).toHaveLength(1);
});

test('verifyWebhook accepts a real delivery in both signature forms and refuses a tampered or stale one', async () => {
  const { chatbot } = await parley.POST('/chatbots', { body: { title: 'Hooks' } });
  const saved = await parley.PATCH('/chatbots/{chatbotId}/settings/webhooks', {
    params: { path: { chatbotId: chatbot.id } },
    body: { messagesWebhookUrl: `${receiver.url}/hook` },
  });
  const secret = saved.signingSecret!;
  await parley.POST('/chatbots/{chatbotId}/webhooks/test', {
    params: { path: { chatbotId: chatbot.id } },
    body: { event: 'message' },
  });
  await receiver.waitFor((all) => all.some((r) => r.path === '/hook'));
  const delivery = receiver.received.find((r) => r.path === '/hook')!;
  const { body, headers } = delivery;
  const { verifyWebhook, WebhookVerificationError } = lib;

  expect(verifyWebhook(body, headers, secret)).toEqual(JSON.parse(body));
  expect(verifyWebhook(Buffer.from(body), new Headers(headers), secret)).toEqual(JSON.parse(body));
  // X-SERVICE-SIGNATURE alone (a receiver that gets only the spec's header).
  const serviceOnly = { 'x-service-signature': headers['x-service-signature'] };
  expect(verifyWebhook(body, serviceOnly, secret)).toEqual(JSON.parse(body));
  expect(verifyWebhook(body, headers, secret, { scheme: 'service-signature' })).toEqual(JSON.parse(body));

  const tampered = body.replace(/"chatbotId":"[^"]+"/, '"chatbotId":"someone-else"');
  expect(tampered).not.toBe(body);
  for (const scheme of ['standard-webhooks', 'service-signature'] as const)
    expect(() => verifyWebhook(tampered, headers, secret, { scheme })).toThrow(WebhookVerificationError);
  const stranger = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  expect(() => verifyWebhook(body, headers, stranger)).toThrow(WebhookVerificationError);
  expect(() => verifyWebhook(body, serviceOnly, stranger)).toThrow(WebhookVerificationError);
  // Either secret of a rotation verifies.
  expect(verifyWebhook(body, headers, [stranger, secret])).toEqual(JSON.parse(body));
  // Replayed ten minutes later: outside the default five minutes' tolerance.
  const later = () => Number(headers['webhook-timestamp']) * 1000 + 600_000;
  expect(() => verifyWebhook(body, headers, secret, { now: later })).toThrow(/tolerance/);
  expect(() => verifyWebhook(body, {}, secret)).toThrow(/no signature/);
});

test('a multipart body is typed and sent as FormData: an icon, its type before the file', async () => {
  const { chatbot } = await parley.POST('/chatbots', { body: { title: 'Icons' } });
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'base64',
  );
  const { icon } = await parley.POST('/chatbots/{chatbotId}/icons', {
    params: { path: { chatbotId: chatbot.id } },
    body: { type: 'bubble', file: new Blob([png], { type: 'image/png' }) },
  });
  expect(icon).toMatchObject({ type: 'bubble', mime: 'image/png', size: png.length });
  const image = await fetch(icon.url.startsWith('http') ? icon.url : `${site}${icon.url}`);
  expect(Buffer.from(await image.arrayBuffer())).toEqual(png);
});

test("the README's typed client example runs as written", async () => {
  const readme = readFileSync(resolve('README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Typed client'));
  const code = /```js\n([\s\S]*?)```/.exec(section)![1];
  const dir = mkdtempSync(join(tmpdir(), 'parley-client-example-'));
  try {
    // An application folder: @parley/client resolves from the project's node_modules (the workspace link).
    symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'example.mjs'), code);
    const { stdout } = await promisify(execFile)(process.execPath, ['example.mjs'], {
      cwd: dir,
      env: { ...process.env, PARLEY_URL: site, PARLEY_TOKEN: token },
    });
    expect(stdout).toMatch(/^conversation \S+: \S/m);
    expect(stdout).toMatch(/^chatbot \S+ Client example$/m);
    expect(stdout).toMatch(/^refused: CHATBOT_NOT_FOUND \(404, request \S+\)$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the packed package installs in an application folder and runs from its exports alone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-client-pack-'));
  try {
    const run = promisify(execFile);
    const packed = await run('npm', ['pack', '--workspace', '@parley/client', '--pack-destination', dir, '--json'], {
      cwd: resolve('.'),
    });
    const [{ filename }] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
    // What `npm install parley-client-0.1.0.tgz` puts in place; its dependency comes from the project.
    const home = join(dir, 'node_modules', '@parley', 'client');
    mkdirSync(home, { recursive: true });
    await run('tar', ['-xzf', join(dir, filename), '-C', home, '--strip-components=1']);
    for (const dep of ['openapi-fetch', 'openapi-typescript-helpers'])
      symlinkSync(resolve('node_modules', dep), join(dir, 'node_modules', dep), 'dir');
    writeFileSync(
      join(dir, 'app.mjs'),
      [
        "import { createParleyClient } from '@parley/client';",
        "import { verifyWebhook } from '@parley/client/webhooks';",
        "import doc from '@parley/client/openapi.json' with { type: 'json' };",
        'const parley = createParleyClient({ server: process.env.PARLEY_URL, token: process.env.PARLEY_TOKEN });',
        "const me = await parley.GET('/me');",
        'console.log(doc.info.title, typeof verifyWebhook, me.account.id);',
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, ['app.mjs'], {
      cwd: dir,
      env: { ...process.env, PARLEY_URL: site, PARLEY_TOKEN: token },
    });
    const account = await t.app.services.accounts.resolve();
    expect(stdout.trim()).toBe(`Parley API function ${account.id}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe.concurrent('waiting on the server', () => {
  test('a real 429 (the account holds its one upload slot) is retried after its Retry-After; a longer wait than allowed is thrown', async () => {
    const { chatbot } = await parley.POST('/chatbots', { body: { title: 'Uploads' } });
    const body = multipart([{ name: 'hours.txt', bytes: Buffer.from('The shop opens at nine on weekdays.') }]);
    const half = Math.floor(body.payload.length / 2);
    const uploads = () => {
      try {
        return readdirSync(join(t.dataDir, 'uploads')).length;
      } catch {
        return 0;
      }
    };
    // Another upload of the account sends half its body and holds the slot.
    let finish!: () => void;
    const held = new Promise<number>((resolve) => {
      const req = httpRequest(
        `${site}/api/v2/chatbots/${chatbot.id}/knowledge/files`,
        {
          method: 'POST',
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
    await waitFor(() => uploads() === 1, 10_000, 'the held upload');

    const files = [new File(['Deliveries take two days.'], 'deliveries.txt', { type: 'text/plain' })];
    const path = { chatbotId: chatbot.id };
    const impatient = lib.createParleyClient({ server: site, token, retry: { maxDelayMs: 1000 } });
    const refused = await impatient
      .POST('/chatbots/{chatbotId}/knowledge/files', { params: { path }, body: { files } })
      .catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfter: 5 });

    const retries: RetryInfo[] = [];
    const patient = lib.createParleyClient({
      server: site,
      token,
      onRetry: (info) => {
        retries.push(info);
        finish();
      },
    });
    const accepted = await patient.POST('/chatbots/{chatbotId}/knowledge/files', { params: { path }, body: { files } });
    expect(retries).toEqual([expect.objectContaining({ status: 429, attempt: 1, delayMs: 5000, method: 'POST' })]);
    expect(accepted.job.id).toMatch(/\S/);
    expect(await held).toBe(202);
  });

  test('deviceLogin: code shown, approved on the /device page, polling slowed by slow_down, a working token, revoked on sign-out', async () => {
    // The client's polls as the server answered them. Before its first, another poller asks for the
    // same code, so that poll comes too soon and hears slow_down, as a busy server would say.
    const polls: string[] = [];
    let doubled = false;
    const recording = async (input: RequestInfo | URL, init?: RequestInit) => {
      const polling = String(input).endsWith('/oauth/token');
      if (polling && !doubled) {
        doubled = true;
        await fetch(input, init);
      }
      const res = await fetch(input, init);
      if (polling) polls.push(res.ok ? 'token' : ((await res.clone().json()) as { error: string }).error);
      return res;
    };
    const shown: unknown[] = [];
    const granting = lib.deviceLogin({
      server: site,
      scopes: ['chatbots:read', 'tokens:read'],
      fetch: recording,
      prompt: (p) => void shown.push(p),
    });
    await waitFor(() => polls.length > 0, 10_000, 'the first poll');
    expect(polls).toEqual(['slow_down']);
    const [prompt] = shown as Array<{ userCode: string; verificationUri: string; verificationUriComplete: string }>;
    expect(prompt.verificationUri).toBe(`${site}/device`);
    expect(prompt.verificationUriComplete).toContain(prompt.userCode.replace('-', ''));

    const approved = await answerDeviceCode(new FormBrowser(fetchSend(site)), {
      email: OWNER,
      password: PASSWORD,
      userCode: prompt.userCode,
    });
    expect(approved.body).toContain('Device approved');

    const granted = await granting;
    // One wait long enough after the slow_down: the next poll got the token, not another slow_down.
    expect(polls).toEqual(['slow_down', 'token']);
    expect(granted.scopes.sort()).toEqual(['chatbots:read', 'tokens:read']);
    const signedIn = lib.createParleyClient({ server: site, token: granted.accessToken });
    expect((await signedIn.GET('/me')).scopes.sort()).toEqual(['chatbots:read', 'tokens:read']);

    // Signing out revokes it at the server: the next call is refused.
    await lib.revokeToken({ server: site, token: granted.accessToken });
    expect(await signedIn.GET('/me').catch((err: unknown) => err)).toMatchObject({
      status: 401,
      code: 'TOKEN_NOT_VALID',
    });
  });
});
