/**
 * Route schemas compile on first use (start-up no longer pays for every route), and every route's
 * schemas still compile: a schema that does not fails here, not at a user's first request.
 */
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { lazySchemas } from '../../../server/http/lazy-schemas.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

describe('lazySchemas', () => {
  test('a validator compiles on its first call, once, and reports the errors of the call that failed', () => {
    const lazy = lazySchemas();
    const ajv = new Ajv({ allErrors: true });
    let compiled = 0;
    const compiler = lazy.validators((schema: object) => {
      compiled++;
      return ajv.compile(schema);
    });
    const validate = compiler({
      type: 'object',
      required: ['title'],
      properties: { title: { type: 'string', minLength: 1 } },
    });
    expect(compiled).toBe(0);
    expect(validate({ title: '' })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ instancePath: '/title', keyword: 'minLength' });
    expect(validate({ title: 'Shop' })).toBe(true);
    expect(validate.errors).toBeNull();
    expect(compiled).toBe(1);
    expect(lazy.compileAll()).toBe(0);
  });

  test('a serializer compiles on its first call and writes what its schema declares', () => {
    const lazy = lazySchemas();
    const serialize = lazy.buildSerializer()({
      method: 'GET',
      url: '/x',
      httpStatus: '200',
      schema: { type: 'object', properties: { id: { type: 'string' } } },
    });
    expect(serialize({ id: 'a', secret: 'never written' })).toBe('{"id":"a"}');
  });

  test('compileAll compiles what is pending, and throws for a schema that does not compile', () => {
    const lazy = lazySchemas();
    const ajv = new Ajv();
    const compiler = lazy.validators((schema: object) => ajv.compile(schema));
    compiler({ type: 'string' });
    compiler({ type: 'no-such-type' });
    expect(() => lazy.compileAll()).toThrow(/schema is invalid/);
  });
});

describe('the app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  test('starts with its route schemas uncompiled, and every one of them compiles', () => {
    // Request validators and response serializers of every route: hundreds, none compiled yet.
    const compiled = t.app.compileRouteSchemas();
    expect(compiled).toBeGreaterThan(300);
    expect(t.app.compileRouteSchemas()).toBe(0);
  });

  test('a route answers the same with its schemas compiled on first use', async () => {
    const { token } = await t.token();
    const bad = await t.call('POST', '/api/v2/chatbots', token, { title: 42 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_FAILED' });
    const good = await t.call('POST', '/api/v2/chatbots', token, { title: 'Shop' });
    expect(good.status).toBe(201);
    expect(good.body.data.chatbot.title).toBe('Shop');
  });
});
