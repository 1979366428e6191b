/**
 * endpoint(): a route's declared `data` schema serialises its success (fields it does not declare
 * never leave the server), its declared status is the reply's, and errors keep the error envelope.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import Type from 'typebox';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { AppError } from '../../../server/domain/errors.js';
import { installEnvelope } from '../../../server/http/envelope.js';
import { installErrorHandling } from '../../../server/http/errors.js';
import { ErrorEnvelope } from '../../../server/http/openapi.js';
import { endpoint } from '../../../server/http/route.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify({ logger: false });
  installErrorHandling(app, {});
  installEnvelope(app);
  app.addSchema(ErrorEnvelope);
  const Item = Type.Object({ id: Type.String(), note: Type.Union([Type.String(), Type.Null()]) });
  app.get('/item', endpoint({ access: { public: true }, data: Type.Object({ item: Item }) }), async () => ({
    item: { id: 'a', note: null, secretHash: 'never sent' },
    internal: true,
  }));
  app.get('/partial', endpoint({ access: { public: true }, data: Type.Object({ item: Item }) }), async () => ({
    item: { id: 'c' },
  }));
  app.post(
    '/item',
    endpoint({ access: { public: true }, status: 201, data: Type.Object({ item: Item }) }),
    async () => ({ item: { id: 'b', note: 'x' } }),
  );
  app.post(
    '/either',
    endpoint({ access: { public: true }, status: 201, alsoStatus: [200], data: Type.Object({}) }),
    async (_request, reply) => {
      reply.code(200);
      return {};
    },
  );
  app.get('/fails', endpoint({ access: { public: true }, data: Type.Object({}) }), async () => {
    throw new AppError('NOT_FOUND', 'Nothing here', { hint: 'Look elsewhere' });
  });
  await app.ready();
});
afterAll(() => app.close());

test('a success carries only what its data schema declares, in the envelope', async () => {
  const res = await app.inject({ method: 'GET', url: '/item' });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual({
    ok: true,
    data: { item: { id: 'a', note: null } },
    meta: { requestId: expect.any(String) },
  });
});

test('a declared field the reply leaves out is omitted, not a failure', async () => {
  const res = await app.inject({ method: 'GET', url: '/partial' });
  expect(res.statusCode).toBe(200);
  expect(res.json().data).toEqual({ item: { id: 'c' } });
});

test('the declared success status is the reply status without the handler setting it', async () => {
  const res = await app.inject({ method: 'POST', url: '/item' });
  expect(res.statusCode).toBe(201);
  expect(res.json().data).toEqual({ item: { id: 'b', note: 'x' } });
});

test('a handler may answer with another declared success status', async () => {
  const res = await app.inject({ method: 'POST', url: '/either' });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({ ok: true, data: {} });
});

test('an error keeps the error envelope with its hint', async () => {
  const res = await app.inject({ method: 'GET', url: '/fails' });
  expect(res.statusCode).toBe(404);
  expect(res.json()).toEqual({
    ok: false,
    error: { code: 'NOT_FOUND', message: 'Nothing here', hint: 'Look elsewhere' },
    meta: { requestId: expect.any(String) },
  });
});
