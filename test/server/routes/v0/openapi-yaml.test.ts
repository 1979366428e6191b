/**
 * {site_url}/openapi.yaml describes the legacy API from the same route schemas as v2's document:
 * a valid OpenAPI document holding exactly the v0 and v1 routes, with the legacy bodies and key.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { parse } from 'yaml';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
let doc: any;
let raw: { statusCode: number; headers: Record<string, unknown>; body: string };
beforeAll(async () => {
  t = await buildTestApp();
  raw = await t.app.inject({ method: 'GET', url: '/openapi.yaml' });
  doc = parse(raw.body);
});
afterAll(() => t.close());

const METHODS = ['get', 'post', 'patch', 'delete', 'put'];
const operations = () =>
  Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([m, op]) => [path, m, op] as [string, string, any]),
  );

test('is served as YAML without a key and validates as an OpenAPI 3.1 document', async () => {
  expect(raw.statusCode).toBe(200);
  expect(String(raw.headers['content-type'])).toMatch(/^application\/yaml/);
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.servers).toEqual([{ url: 'http://parley.test/api' }]);
  const result = await new Validator().validate(doc);
  if (!result.valid) console.error(JSON.stringify(result.errors, null, 2));
  expect(result.valid).toBe(true);
});

test('holds exactly the legacy routes of the app, and v2 holds none of them', async () => {
  const legacy = t.app.routeTable
    .filter((r) => r.method !== 'HEAD' && !r.access.public && r.access.legacyKey)
    .map((r) => `${r.method.toLowerCase()} ${r.url.replace(/^\/api/, '').replace(/:(\w+)/g, '{$1}')}`)
    .sort();
  expect(
    operations()
      .map(([p, m]) => `${m} ${p}`)
      .sort(),
  ).toEqual(legacy);
  expect(legacy).toEqual(
    expect.arrayContaining([
      'get /v0/chatbots',
      'post /v1/chatbots/{chatbotId}/links',
      'post /v0/chatbots/{chatbotId}/settings/prompts/{promptId}/assign',
      'patch /v0/chatbots/{chatbotId}/settings/advanced',
    ]),
  );
  const v2 = (await t.call('GET', '/api/v2/openapi.json')).body;
  expect(Object.keys(v2.paths).filter((p) => /^\/(api\/)?v[01]\//.test(p))).toEqual([]);
  expect(Object.keys(v2.components.schemas)).not.toContain('LegacyErrorBody');
  expect(Object.keys(doc.components.schemas)).not.toContain('ErrorEnvelope');
});

test('every operation: the legacy key, the legacy success body around its data, the legacy error body for 4XX and 5XX', () => {
  for (const [path, method, op] of operations()) {
    const where = `${method} ${path}`;
    expect(op.security, where).toEqual([{ legacyKey: [] }]);
    const ok = Object.entries<any>(op.responses).filter(([status]) => /^2/.test(status));
    expect(ok.length, where).toBe(1);
    const body = ok[0][1].content['application/json'].schema;
    expect(body.required, where).toEqual(['success', 'message', 'data']);
    expect(body.properties.data, where).toBeTypeOf('object');
    for (const status of ['4XX', '5XX'])
      expect(op.responses[status].content['application/json'].schema.$ref, where).toBe(
        '#/components/schemas/LegacyErrorBody',
      );
    expect(op.summary, where).toEqual(expect.any(String));
  }
  expect(doc.components.securitySchemes.legacyKey).toMatchObject({ type: 'http', scheme: 'bearer' });
});

test('states the choices the spec leaves open: the v0 shapes, no pagination, no confirmation, v2 tokens refused', () => {
  const text = raw.body;
  expect(doc.info.description).toMatch(/no pagination/);
  expect(doc.info.description).toMatch(/v2 tokens are refused/);
  expect(doc.info.description).toMatch(/Deletes need no confirmation/);
  const chatbot =
    doc.paths['/v0/chatbots/{chatbotId}'].get.responses['200'].content['application/json'].schema.properties.data;
  expect(Object.keys(chatbot.properties)).toEqual([
    'id',
    'title',
    'description',
    'createdById',
    'createdByEmail',
    'customContent',
    'suggestions',
    'prompts',
    'nextSuggestions',
    'settings',
  ]);
  expect(chatbot.properties.customContent.description).toMatch(/custom-content.*documents/);
  expect(text).toMatch(/ThreadMessage/);
});

test('is also served as JSON at /openapi.json, the same document; every operation has a unique operationId', async () => {
  const res = await t.call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  expect(res.body).toEqual(doc);
  const ids = operations().map(([, , op]) => op.operationId);
  for (const id of ids) expect(id).toMatch(/^[a-z][a-zA-Z0-9]*$/);
  expect(new Set(ids).size).toBe(ids.length);
  expect(doc.paths['/v0/chatbots'].get.operationId).toBe('listChatbots');
  expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
});
