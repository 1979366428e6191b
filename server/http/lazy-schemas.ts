/**
 * Route schemas compiled on first use, not at start. Fastify compiles every route's request
 * validators (Ajv) and response serializers (fast-json-stringify) while routes register, a large
 * share of the start (bench/README.md, startup) spent on routes most processes never call. Each
 * compiler here hands fastify a function that compiles its schema on its first call and reuses
 * the result; what it compiles, and with which options, is unchanged.
 *
 * `compileAll()` compiles every pending schema at once: a test calls it, so a schema that does not
 * compile still fails CI rather than the first request to its route.
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { ValidateFunction } from 'ajv';

type Compile<T> = () => T;

export interface LazySchemas {
  /** Wraps a validator compiler: `(route schema) => validate`. */
  validators<R>(compile: (route: R) => ValidateFunction): (route: R) => ValidateFunction;
  /** fastify's `schemaController.compilersFactory.buildSerializer`: the default fast-json-stringify compiler, lazily. */
  buildSerializer: (
    externalSchemas?: unknown,
    options?: Parameters<ReturnType<typeof SerializerSelector>>[1],
  ) => (route: SerializerRoute) => (doc: unknown) => string;
  /** Compiles every schema not compiled yet; returns how many it compiled. */
  compileAll(): number;
}

type SerializerRoute = Parameters<ReturnType<ReturnType<typeof SerializerSelector>>>[0];

export function lazySchemas(): LazySchemas {
  const pending = new Set<() => unknown>();

  /** `compile` runs once, on the first call of `get` (or in compileAll). */
  function once<T>(compile: Compile<T>): () => T {
    let done: T | undefined;
    const get = () => {
      if (done === undefined) {
        done = compile();
        pending.delete(get);
      }
      return done;
    };
    pending.add(get);
    return get;
  }

  const serializers = SerializerSelector();
  return {
    validators: (compile) => (route) => {
      const get = once(() => compile(route));
      // Fastify reads `.errors` from the function it was given after a failed validation.
      const validate = ((data: unknown) => {
        const fn = get();
        const ok = fn(data);
        validate.errors = fn.errors;
        return ok;
      }) as ValidateFunction;
      return validate;
    },
    buildSerializer: (externalSchemas, options) => {
      const compile = serializers(externalSchemas, options);
      return (route) => {
        const get = once(() => compile(route));
        return (doc) => get()(doc);
      };
    },
    compileAll() {
      const all = [...pending];
      for (const get of all) get();
      return all.length;
    },
  };
}
