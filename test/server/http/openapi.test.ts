/**
 * The OpenAPI document is generated from the route schemas (server/http/openapi.ts); this checks
 * it is a valid OpenAPI 3 document and carries what clients rely on: scopes, error codes, enums.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ERROR_CODES } from '../../../shared/errors.js';
import { CHAT_MODES, GPT_MODELS } from '../../../shared/settings.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await buildTestApp();
  const res = await t.call('GET', '/api/v2/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => t.close());

/** [path, method, operation] for every operation in the document. */
function operations(): [string, string, any][] {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]): [string, string, any] => [path, method, op]),
  );
}

test('is served without a token, raw (not in the envelope)', async () => {
  const res = await t.call('GET', '/api/v2/openapi.json');
  expect(res.status).toBe(200);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  expect(res.body.ok).toBeUndefined();
  expect(res.body.openapi).toMatch(/^3\./);
  expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/health', '/chatbots', '/chatbots/{chatbotId}/conversations']));
});

test('validates as an OpenAPI document', async () => {
  const validator = new Validator();
  const result = await validator.validate(doc);
  if (!result.valid) console.error(JSON.stringify(result.errors, null, 2));
  expect(result.valid).toBe(true);
});

test('every $ref points at something in the document', () => {
  const refs = new Set<string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') refs.add(value);
        else walk(value);
      }
    }
  };
  walk(doc);
  expect(refs.size).toBeGreaterThan(0);
  for (const ref of refs) {
    expect(ref, ref).toMatch(/^#\//);
    const target = ref
      .slice(2)
      .split('/')
      .reduce<any>((at, part) => at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    expect(target, `${ref} resolves`).toBeTypeOf('object');
  }
});

test('paths are relative to the server url, which ends in /api/v2', () => {
  expect(doc.servers).toHaveLength(1);
  expect(doc.servers[0].url).toBe(`${t.config.siteUrl}/api/v2`);
  const paths = Object.keys(doc.paths);
  expect(paths).toContain('/health');
  expect(paths).toContain('/chatbots/{chatbotId}');
  for (const path of paths) expect(path, path).not.toMatch(/^\/api\//);
  // The document itself is hidden from its own listing.
  expect(paths).not.toContain('/openapi.json');
});

test('every operation but /health needs a bearer token and names its scopes', () => {
  expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  const ops = operations();
  expect(ops.length).toBeGreaterThan(10);
  for (const [path, method, op] of ops) {
    const where = `${method.toUpperCase()} ${path}`;
    if (path === '/health') {
      expect(op.security ?? [], where).toEqual([]);
      continue;
    }
    expect(op.security, where).toHaveLength(1);
    expect(op.security[0], where).toHaveProperty('bearerAuth');
    expect(Array.isArray(op['x-required-scopes']), where).toBe(true);
    expect(op.security[0].bearerAuth, where).toEqual(op['x-required-scopes']);
  }
  const get = doc.paths['/chatbots/{chatbotId}'].get;
  expect(get['x-required-scopes']).toEqual(['chatbots:read']);
});

test('errors use the error envelope, which lists every error code', () => {
  const envelope = doc.components.schemas.ErrorEnvelope;
  const codes: string[] = envelope.properties.error.properties.code.enum;
  expect([...codes].sort()).toEqual([...ERROR_CODES].sort());
  for (const [path, method, op] of operations()) {
    if (path === '/health') continue;
    const where = `${method.toUpperCase()} ${path}`;
    expect(op.responses['4XX']?.content['application/json'].schema.$ref, where).toBe('#/components/schemas/ErrorEnvelope');
  }
});

test('successes are the envelope around data', () => {
  const ok = doc.paths['/health'].get.responses['200'].content['application/json'].schema;
  expect(ok.required).toEqual(expect.arrayContaining(['ok', 'data', 'meta']));
  expect(ok.properties.meta.properties.requestId).toMatchObject({ type: 'string' });
  expect(doc.paths['/chatbots'].post.responses).toHaveProperty('201');
});

test('enumeration members appear in the document', () => {
  const text = JSON.stringify(doc);
  for (const member of [...GPT_MODELS, ...CHAT_MODES]) expect(text, member).toContain(JSON.stringify(member));
  const general = doc.paths['/chatbots/{chatbotId}/settings/general'].patch.requestBody.content['application/json'].schema;
  expect(JSON.stringify(general.properties.gptModel)).toContain('"gpt-4.1-mini"');
});
