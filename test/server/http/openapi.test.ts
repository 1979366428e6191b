/**
 * The OpenAPI document is generated from the route schemas (server/http/openapi.ts); this checks
 * it is a valid OpenAPI 3 document and carries what clients rely on: scopes, error codes, enums.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { parse } from 'yaml';
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
  expect(Object.keys(res.body.paths)).toEqual(
    expect.arrayContaining(['/health', '/chatbots', '/chatbots/{chatbotId}/conversations']),
  );
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

/** Operations anyone may call: reachability, the OAuth endpoints (served at the site root) and signing in. */
const PUBLIC = new Set(['/health', '/oauth/device_authorization', '/oauth/token', '/oauth/revoke', '/oauth/register']);
const PUBLIC_OPERATIONS = new Set(['GET /session', 'POST /session', 'POST /session/setup']);

test("every operation but /health and OAuth needs a bearer token (or the device grant's) and names its scopes", () => {
  expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  const ops = operations();
  expect(ops.length).toBeGreaterThan(10);
  for (const [path, method, op] of ops) {
    const where = `${method.toUpperCase()} ${path}`;
    if (PUBLIC.has(path) || PUBLIC_OPERATIONS.has(where)) {
      expect(op.security ?? [], where).toEqual([]);
      continue;
    }
    expect(Array.isArray(op['x-required-scopes']), where).toBe(true);
    expect(op.security, where).toEqual([
      { bearerAuth: op['x-required-scopes'] },
      { oauth2: op['x-required-scopes'] },
      { sessionCookie: [] },
    ]);
  }
  const get = doc.paths['/chatbots/{chatbotId}'].get;
  expect(get['x-required-scopes']).toEqual(['chatbots:read']);
});

test('errors use the error envelope, which lists every error code', () => {
  const envelope = doc.components.schemas.ErrorEnvelope;
  const codes: string[] = envelope.properties.error.properties.code.enum;
  expect([...codes].sort()).toEqual([...ERROR_CODES].sort());
  for (const [path, method, op] of operations()) {
    if (PUBLIC.has(path)) continue;
    const where = `${method.toUpperCase()} ${path}`;
    expect(op.responses['4XX']?.content['application/json'].schema.$ref, where).toBe(
      '#/components/schemas/ErrorEnvelope',
    );
  }
});

test('successes are the envelope around data', () => {
  const ok = doc.paths['/health'].get.responses['200'].content['application/json'].schema;
  expect(ok.required).toEqual(expect.arrayContaining(['ok', 'data', 'meta']));
  expect(ok.properties.meta).toEqual({ $ref: '#/components/schemas/Meta' });
  expect(doc.components.schemas.Meta.properties.requestId).toMatchObject({ type: 'string' });
  expect(doc.paths['/chatbots'].post.responses).toHaveProperty('201');
});

test('enumeration members appear in the document', () => {
  const text = JSON.stringify(doc);
  for (const member of [...GPT_MODELS, ...CHAT_MODES]) expect(text, member).toContain(JSON.stringify(member));
  expect(
    doc.paths['/chatbots/{chatbotId}/settings/general'].patch.requestBody.content['application/json'].schema,
  ).toEqual({ $ref: '#/components/schemas/GeneralSettingsPatch' });
  const general = doc.components.schemas.GeneralSettingsPatch;
  expect(JSON.stringify(general.properties.gptModel)).toContain('"gpt-4.1-mini"');
});

test('every operation has a unique camelCase operationId, derived from method and path unless the route names one', () => {
  const ids = operations().map(([, , op]) => op.operationId);
  for (const id of ids) expect(id).toMatch(/^[a-z][a-zA-Z0-9]*$/);
  expect(new Set(ids).size).toBe(ids.length);
  const id = (method: string, path: string) => doc.paths[path][method].operationId;
  expect(id('get', '/chatbots')).toBe('listChatbots');
  expect(id('post', '/chatbots')).toBe('createChatbot');
  expect(id('get', '/chatbots/{chatbotId}')).toBe('getChatbot');
  expect(id('patch', '/chatbots/{chatbotId}/conversations/{threadId}')).toBe('updateConversation');
  expect(id('get', '/chatbots/{chatbotId}/conversations/{threadId}/messages')).toBe('listConversationMessages');
  expect(id('post', '/chatbots/{chatbotId}/ingest-jobs/{jobId}/cancel')).toBe('cancelIngestJob');
  expect(id('patch', '/chatbots/{chatbotId}/settings/chat-mode')).toBe('updateChatModeSettings');
  expect(id('post', '/oauth/token')).toBe('requestToken');
});

test('response schemas keep required, format and additionalProperties; shared shapes are named components', () => {
  const { schemas } = doc.components;
  for (const name of [
    'Chatbot',
    'Settings',
    'Conversation',
    'Message',
    'ChatUser',
    'Job',
    'Source',
    'Document',
    'Tag',
    'Lead',
    'Pagination',
    'Meta',
    'ErrorEnvelope',
  ]) {
    expect(schemas[name], name).toBeTypeOf('object');
  }
  expect(schemas.Chatbot.required).toEqual([
    'id',
    'title',
    'description',
    'createdById',
    'createdByEmail',
    'createdAt',
    'updatedAt',
    'settings',
  ]);
  expect(schemas.Chatbot.properties.createdAt).toMatchObject({ type: 'string', format: 'date-time' });
  expect(schemas.Chatbot.properties.settings).toEqual({ $ref: '#/components/schemas/Settings' });
  expect(schemas.Settings.additionalProperties).toBe(false);
  // Settings a token without settings:read does not get are the only optional ones.
  const optional = Object.keys(schemas.Settings.properties).filter((k) => !schemas.Settings.required.includes(k));
  expect(optional.sort()).toEqual([
    'escalationWebhookToken',
    'leadsWebhookToken',
    'messagesWebhookToken',
    'systemPrompt',
    'userPrompt',
    'webhookToken',
  ]);
  expect(schemas.Conversation.properties.chatUser).toEqual({
    anyOf: [{ $ref: '#/components/schemas/ChatUser' }, { type: 'null' }],
  });

  const data = (method: string, path: string, status = '200') =>
    doc.paths[path][method].responses[status].content['application/json'].schema.properties.data;
  expect(data('get', '/chatbots/{chatbotId}')).toEqual({
    type: 'object',
    required: ['chatbot'],
    properties: { chatbot: { $ref: '#/components/schemas/Chatbot' } },
  });
  expect(data('get', '/chatbots').properties.chatbots.items).toEqual({ $ref: '#/components/schemas/Chatbot' });
  expect(data('get', '/chatbots/{chatbotId}/conversations/{threadId}/messages').properties.messages.items).toEqual({
    $ref: '#/components/schemas/Message',
  });
  expect(data('get', '/chatbots/{chatbotId}/ingest-jobs/{jobId}').properties.job).toEqual({
    $ref: '#/components/schemas/Job',
  });
});

test('no titled shape is left inline: each title names one component and every copy of it is a $ref', () => {
  const inline: string[] = [];
  const walk = (node: unknown, at: string) => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`));
    if (!node || typeof node !== 'object') return;
    const n = node as Record<string, unknown>;
    if (typeof n.title === 'string' && (n.type || n.anyOf)) inline.push(`${at}: ${n.title}`);
    for (const [k, v] of Object.entries(n))
      if (!['default', 'example', 'examples', 'const', 'enum'].includes(k)) walk(v, `${at}/${k}`);
  };
  walk(doc.paths, '#/paths');
  for (const [name, schema] of Object.entries<any>(doc.components.schemas))
    for (const [k, v] of Object.entries(schema)) walk(v, `#/components/schemas/${name}/${k}`);
  expect(inline).toEqual([]);
});

test('every time of day in a response is a date-time', () => {
  const loose: string[] = [];
  const walk = (node: any, at: string) => {
    if (!node || typeof node !== 'object') return;
    for (const [name, prop] of Object.entries<any>(node.properties ?? {})) {
      const types = [prop, ...(prop.anyOf ?? [])].filter(
        (p) => p.type === 'string' || (Array.isArray(p.type) && p.type.includes('string')),
      );
      if (/At$/.test(name) && types.length && !types.every((p) => p.format === 'date-time'))
        loose.push(`${at}.${name}`);
    }
    for (const v of Object.values(node)) if (v && typeof v === 'object') walk(v, at);
  };
  for (const [name, schema] of Object.entries<any>(doc.components.schemas)) walk(schema, name);
  for (const [path, method, op] of operations())
    for (const [status, r] of Object.entries<any>(op.responses)) walk(r, `${method} ${path} ${status}`);
  // Confluence's own page times are passed on as Confluence writes them.
  expect(loose).toEqual(['ConfluencePage.updatedAt']);
});

test('responses of the live app validate against the published schemas, required fields and formats included', async () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...doc, $id: 'doc' }, 'doc');
  const check = (method: string, path: string, res: { status: number; body: unknown }) => {
    const pointer = ['paths', path, method, 'responses', String(res.status), 'content', 'application/json', 'schema']
      .map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1'))
      .join('/');
    const validate = ajv.getSchema(`doc#/${pointer}`)!;
    expect(validate(res.body), `${method} ${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
  };
  const { token } = await t.token();
  const created = await t.call('POST', '/api/v2/chatbots', token, { title: 'Checked' });
  check('post', '/chatbots', created);
  const id = created.body.data.chatbot.id;
  check('get', '/chatbots', await t.call('GET', '/api/v2/chatbots', token));
  check('get', '/chatbots/{chatbotId}', await t.call('GET', `/api/v2/chatbots/${id}`, token));
  check('get', '/chatbots/{chatbotId}/settings', await t.call('GET', `/api/v2/chatbots/${id}/settings`, token));
  const started = await t.call('POST', `/api/v2/chatbots/${id}/messages`, token, { message: 'Hello' });
  check('post', '/chatbots/{chatbotId}/messages', started);
  const threadId = started.body.data.conversation.threadId;
  check(
    'get',
    '/chatbots/{chatbotId}/conversations/{threadId}/messages',
    await t.call('GET', `/api/v2/chatbots/${id}/conversations/${threadId}/messages`, token),
  );
  check(
    'get',
    '/chatbots/{chatbotId}/conversations',
    await t.call('GET', `/api/v2/chatbots/${id}/conversations`, token),
  );
  check('get', '/me', await t.call('GET', '/api/v2/me', token));
  // A token without settings:read gets the chatbot without the private settings: still valid.
  const { token: reader } = await t.token({ access: 'custom', scopes: ['chatbots:read'] });
  check('get', '/chatbots/{chatbotId}', await t.call('GET', `/api/v2/chatbots/${id}`, reader));
});

test('tags are listed with descriptions; the license is named', () => {
  expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  const listed = doc.tags.map((tag: { name: string }) => tag.name);
  const used = new Set(operations().flatMap(([, , op]) => op.tags ?? []));
  expect([...used].sort()).toEqual([...listed].sort());
  for (const tag of doc.tags) expect(tag.description, tag.name).toEqual(expect.any(String));
});

test('response headers are documented: X-Request-Id everywhere, Idempotent-Replayed, Retry-After, Allow and WWW-Authenticate', () => {
  const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
  for (const [path, method, op] of operations()) {
    for (const [status, response] of Object.entries<any>(op.responses))
      expect(response.headers?.['X-Request-Id'], `${method} ${path} ${status}`).toEqual(ref('X-Request-Id'));
  }
  const start = doc.paths['/chatbots/{chatbotId}/messages'].post.responses;
  expect(start['201'].headers['Idempotent-Replayed']).toEqual(ref('Idempotent-Replayed'));
  expect(doc.paths['/chatbots'].get.responses['200'].headers['Idempotent-Replayed']).toBeUndefined();
  const errors = doc.paths['/chatbots'].get.responses;
  expect(Object.keys(errors['4XX'].headers).sort()).toEqual([
    'Allow',
    'Retry-After',
    'WWW-Authenticate',
    'X-Request-Id',
  ]);
  expect(Object.keys(errors['5XX'].headers).sort()).toEqual(['Retry-After', 'X-Request-Id']);
  expect(doc.paths['/health'].get.responses['4XX'].headers['WWW-Authenticate']).toBeUndefined();
  for (const name of ['X-Request-Id', 'Idempotent-Replayed', 'Retry-After', 'WWW-Authenticate', 'Allow']) {
    expect(doc.components.headers[name].description, name).toEqual(expect.any(String));
  }
});

test('the OAuth device grant: an oauth2 scheme naming the grant and its endpoints, which are in the document at the site root', () => {
  const scheme = doc.components.securitySchemes.oauth2;
  expect(scheme.type).toBe('oauth2');
  expect(scheme.description).toContain('urn:ietf:params:oauth:grant-type:device_code');
  expect(scheme.flows['x-deviceAuthorization']).toMatchObject({
    deviceAuthorizationUrl: 'http://parley.test/oauth/device_authorization',
    tokenUrl: 'http://parley.test/oauth/token',
    grantType: 'urn:ietf:params:oauth:grant-type:device_code',
    scopes: expect.objectContaining({ 'chatbots:read': 'Read chatbots' }),
  });
  expect(scheme['x-oauth2MetadataUrl']).toBe('http://parley.test/.well-known/oauth-authorization-server');
  const token = doc.paths['/oauth/token'].post;
  expect(token.servers).toEqual([{ url: 'http://parley.test' }]);
  expect(Object.keys(token.requestBody.content)).toEqual(['application/x-www-form-urlencoded', 'application/json']);
  expect(token.requestBody.content['application/x-www-form-urlencoded'].schema.properties.grant_type).toEqual({
    type: 'string',
    enum: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'],
  });
  // The code grant for clients that open a browser (MCP clients), with its endpoints in the document.
  expect(scheme.flows.authorizationCode).toMatchObject({
    authorizationUrl: 'http://parley.test/oauth/authorize',
    tokenUrl: 'http://parley.test/oauth/token',
  });
  expect(doc.paths['/oauth/register'].post.responses['201'].content['application/json'].schema).toEqual({
    $ref: '#/components/schemas/OAuthClient',
  });
  expect(doc.components.schemas.OAuthToken.required).toEqual(['access_token', 'token_type', 'scope']);
  expect(token.responses['400'].content['application/json'].schema).toEqual({
    $ref: '#/components/schemas/OAuthError',
  });
  expect(doc.paths['/oauth/device_authorization'].post.responses['200'].content['application/json'].schema).toEqual({
    $ref: '#/components/schemas/DeviceAuthorization',
  });
});

test('a parameter with a default is optional for the client', () => {
  const limit = doc.paths['/chatbots'].get.parameters.find((p: { name: string }) => p.name === 'limit');
  expect(limit).toMatchObject({ in: 'query', required: false, schema: { default: 50 } });
});

test('v2 is also served as YAML, the same document', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/v2/openapi.yaml' });
  expect(res.statusCode).toBe(200);
  expect(String(res.headers['content-type'])).toMatch(/^application\/yaml/);
  expect(parse(res.body)).toEqual(doc);
});
