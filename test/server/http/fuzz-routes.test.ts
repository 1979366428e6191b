/**
 * No input yields a 500: every operation of the OpenAPI document gets a generated corpus of bad
 * bodies, queries and path segments. Each answer is a 4xx in the envelope, nothing of the
 * database changes (row counts of every table), and no prototype is polluted. The corpus is kept
 * modest (about 20 requests per operation) so the suite stays quick on two cores.
 */
import { sql } from 'kysely';
import { parse } from 'yaml';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let token: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  ids.chatbotId = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Fuzz' })).body.data.chatbot.id;
  ids.threadId = (
    await t.call('POST', `/api/v2/chatbots/${ids.chatbotId}/conversations`, token, {})
  ).body.data.conversation.threadId;
});
afterAll(() => t.close());

const deep = (n: number): unknown => (n === 0 ? 'x' : { a: deep(n - 1) });
/** Bodies no operation accepts: wrong JSON types, unknown keys (also prototype names), bombs. */
const BODIES: { what: string; payload: string; type?: string }[] = [
  { what: 'null', payload: 'null' },
  { what: 'array', payload: '[]' },
  { what: 'string', payload: '"text"' },
  { what: 'number', payload: '12' },
  { what: 'invalid JSON', payload: '{"a":' },
  { what: 'unknown key', payload: JSON.stringify({ zzUnknownField: 1 }) },
  { what: '__proto__', payload: '{"__proto__":{"polluted":true}}' },
  { what: 'constructor', payload: JSON.stringify({ constructor: { prototype: { polluted: true } } }) },
  { what: 'deep nesting', payload: JSON.stringify({ zzUnknownField: deep(200) }) },
  { what: 'text/plain', payload: 'hello', type: 'text/plain' },
  { what: 'form', payload: 'a=1', type: 'application/x-www-form-urlencoded' },
  {
    what: 'bad multipart',
    payload: '--x\r\nContent-Disposition: form-data; name="type"\r\n\r\nconstructor\r\n--x--\r\n',
    type: 'multipart/form-data; boundary=x',
  },
];
const QUERIES = [
  'limit=-1',
  'limit=abc&cursor=%FF%FE',
  'cursor=' + 'A'.repeat(600),
  'confirm=maybe',
  'status=__proto__',
  'from=not-a-date&to=1',
  'type=constructor',
];
const SEGMENTS = ['%00', '..%2F..%2Fetc', 'x'.repeat(300), '__proto__', '%E0%A4%A'];

async function counts(): Promise<Record<string, number>> {
  const db = t.database.db;
  const tables = (
    await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '%fts%' and name not like 'kysely_%'`.execute(
      db,
    )
  ).rows.map((r) => r.name);
  const out: Record<string, number> = {};
  for (const name of tables)
    out[name] = Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(name)}`.execute(db)).rows[0].n);
  return out;
}

/** A 4xx body of the API's version: the v2 envelope, or the legacy body of v0/v1. */
const inEnvelope = (body: any) => body?.ok === false && typeof body?.error?.code === 'string';
const inLegacyBody = (body: any) =>
  body?.success === false &&
  body?.data === null &&
  typeof body?.error?.code === 'string' &&
  typeof body?.message === 'string';

/**
 * Sends the corpus to every operation of `doc` (paths relative to `prefix`) and returns the
 * number of requests and the answers that were not a 4xx error body.
 */
async function fuzz(doc: any, prefix: string, credential: string, isErrorBody: (body: any) => boolean) {
  const failures: string[] = [];
  let sent = 0;
  const send = async (method: string, url: string, payload?: string, type = 'application/json') => {
    sent++;
    const res = await t.app.inject({
      method: method as never,
      url,
      headers: { authorization: `Bearer ${credential}`, ...(payload !== undefined && { 'content-type': type }) },
      ...(payload !== undefined && { payload }),
    });
    let body: any = null;
    try {
      body = res.json();
    } catch {
      /* reported below */
    }
    const ok = res.statusCode >= 400 && res.statusCode < 500 && isErrorBody(body);
    if (!ok)
      failures.push(
        `${method} ${url.slice(0, 120)} ${payload?.slice(0, 40) ?? ''} -> ${res.statusCode} ${res.body.slice(0, 200)}`,
      );
  };
  for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
    // Operations with a server of their own (the OAuth endpoints at the site root) speak OAuth errors: their tests cover them.
    if (Object.values(ops).some((op) => (op as { servers?: unknown }).servers)) continue;
    const real = prefix + path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? 'unknown-id');
    for (const method of Object.keys(ops).map((m) => m.toUpperCase())) {
      // Bad bodies go to operations that read one (actions without a body ignore it).
      const takesBody = !!(ops[method.toLowerCase()] as { requestBody?: unknown }).requestBody;
      if (takesBody) for (const b of BODIES) await send(method, real, b.payload, b.type);
      const takesQuery = ((ops[method.toLowerCase()] as { parameters?: { in: string }[] }).parameters ?? []).some(
        (p) => p.in === 'query',
      );
      // Operations that take a query refuse one they do not know, and bad values of their own.
      if (takesQuery) for (const q of QUERIES.slice(0, 4)) await send(method, `${real}?${q}&zzUnknown=1`);
      if (path.includes('{')) {
        for (const seg of SEGMENTS) {
          const url =
            prefix +
            path.replace(/\{(\w+)\}/g, (_, name: string) =>
              name === 'chatbotId' && path.split('{').length > 2 ? ids.chatbotId : seg,
            );
          if (url !== real) await send(method, url, takesBody ? '{"zzUnknownField":1}' : undefined);
        }
      }
    }
  }
  return { sent: () => sent, failures, send };
}

test('every operation of the OpenAPI document answers bad bodies, queries and paths with a 4xx in the envelope and changes nothing', async () => {
  const doc = (await t.call('GET', '/api/v2/openapi.json')).body;
  const before = await counts();
  const { sent, failures, send } = await fuzz(doc, '/api/v2', token, inEnvelope);
  for (const q of QUERIES) await send('GET', `/api/v2/chatbots/${ids.chatbotId}/conversations?${q}`);
  expect(sent()).toBeGreaterThan(500);
  expect(failures).toEqual([]);
  expect(await counts()).toEqual(before);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}, 120_000);

test('every operation of the legacy document (/openapi.yaml) answers the same corpus with a 4xx in the legacy body and changes nothing', async () => {
  const doc = parse((await t.app.inject({ method: 'GET', url: '/openapi.yaml' })).body);
  const owner = await t.app.services.store.users.owner((await t.app.services.accounts.resolve()).id);
  const key = (await t.app.services.tokens.createLegacyKey(owner!)).token;
  const before = await counts();
  const { sent, failures } = await fuzz(doc, '/api', key, inLegacyBody);
  expect(sent()).toBeGreaterThan(300);
  expect(failures).toEqual([]);
  // Legacy deletes need no confirmation; none of the corpus reaches one with a real id and a valid request.
  expect(await counts()).toEqual(before);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}, 120_000);

test('free-form objects past their depth or size, prototype names as icon types and blank titles are 400 naming the field', async () => {
  const base = `/api/v2/chatbots/${ids.chatbotId}`;
  const deepMeta = await t.call('PATCH', `${base}/settings/general`, token, { metadata: { a: deep(10) } });
  expect(deepMeta.status).toBe(400);
  expect(deepMeta.body.error.details[0].path).toEqual(['general', 'metadata']);
  const bigMeta = await t.call('PATCH', `${base}/settings/general`, token, { metadata: { a: 'x'.repeat(20_000) } });
  expect(bigMeta.status).toBe(400);
  const before = (await t.call('GET', `${base}/conversations?limit=100`, token)).body.data.conversations.length;
  const deepVisitor = await t.call('POST', `${base}/messages`, token, {
    message: 'Hi',
    visitor: { email: 'v@example.com', customFields: { a: deep(10) } },
  });
  expect(deepVisitor.status).toBe(400);
  expect(deepVisitor.body.error.details[0].path).toEqual(['visitor', 'customFields']);
  expect((await t.call('GET', `${base}/conversations?limit=100`, token)).body.data.conversations.length).toBe(before);
  for (const type of ['constructor', '__proto__', 'toString']) {
    const body = `--b\r\nContent-Disposition: form-data; name="type"\r\n\r\n${type}\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nxx\r\n--b--\r\n`;
    const res = await t.call('POST', `${base}/icons`, token, body, {
      'content-type': 'multipart/form-data; boundary=b',
    });
    expect(res.status, type).toBe(400);
    expect(res.body.error.details[0].path).toEqual(['type']);
  }
  const blank = await t.call('PATCH', `${base}/settings/general`, token, { title: '   ' });
  expect(blank.status).toBe(400);
  expect((await t.call('GET', base, token)).body.data.chatbot.title).toBe('Fuzz');
});
