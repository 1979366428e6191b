/**
 * What an MCP tool takes from the v2 route it stands for: the route's declared scopes and its
 * request schemas (params, query string and body merged into one object), so a tool accepts
 * exactly what the route accepts and needs exactly the scopes the route needs.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Scope } from '../../shared/scopes.js';
import { validationFailed } from '../domain/errors.js';
import { scopesOf, type RouteAccess } from '../http/access.js';
import { fieldErrors } from '../http/errors.js';

/** `METHOD /path` of a v2 route, as registered under /api/v2 (`GET /chatbots/:chatbotId`). */
export type RouteKey = `${'GET' | 'POST' | 'PATCH' | 'DELETE'} /${string}`;

export interface JsonObjectSchema {
  type: 'object';
  properties: Record<string, object>;
  required?: string[];
  additionalProperties?: boolean;
}

export interface MirroredRoute {
  scopes: Scope[];
  /** The merged request schema, as a tool's `inputSchema`. */
  input: JsonObjectSchema;
  /** Checks (and completes with defaults) a tool's arguments; throws VALIDATION_FAILED. */
  check(args: Record<string, unknown>): void;
}

type Part = 'params' | 'querystring' | 'body';

/** What a tool adds to or takes from its route's request. */
export interface MirrorOptions {
  /** The request parts taken (default all three). */
  parts?: Part[];
  /** Properties of the route's request the tool does not offer. */
  omit?: string[];
  /** Properties the tool adds (JSON schemas), optional unless listed in `required`. */
  extra?: Record<string, object>;
  required?: string[];
}

/** Bodies are checked strictly, as the routes check them (app.ts validators): no coercion, defaults filled. */
const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false, coerceTypes: false, multipleOfPrecision: 9 });
addFormats.default(ajv);

/** A plain JSON copy: TypeBox's own markers (`~kind` and symbols) are not JSON Schema. */
const plain = (schema: unknown): Record<string, unknown> =>
  JSON.parse(JSON.stringify(schema, (key, value) => (key.startsWith('~') || key === '$id' ? undefined : value)));

export class RouteMirror {
  private readonly byKey = new Map<string, RouteAccess>();

  constructor(routeTable: readonly RouteAccess[]) {
    for (const route of routeTable) this.byKey.set(`${route.method} ${route.url}`, route);
  }

  private route(key: RouteKey): RouteAccess {
    const [method, path] = key.split(' ');
    const route = this.byKey.get(`${method} /api/v2${path}`);
    // A tool naming a route that is gone must stop the start, not fail on its first call.
    if (!route) throw new Error(`The MCP tools name ${key}, which is not a v2 route`);
    return route;
  }

  scopes(key: RouteKey): Scope[] {
    return scopesOf(this.route(key).access);
  }

  mirror(key: RouteKey, options: MirrorOptions = {}): MirroredRoute {
    const route = this.route(key);
    const schema = (route.schema ?? {}) as Partial<Record<Part, unknown>>;
    const properties: Record<string, object> = {};
    const required = new Set<string>(options.required ?? []);
    for (const part of options.parts ?? (['params', 'querystring', 'body'] as const)) {
      if (!schema[part]) continue;
      const s = plain(schema[part]) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        if (options.omit?.includes(name)) continue;
        properties[name] = prop;
        // A property with a default is filled in when left out: not required of the caller.
        if (s.required?.includes(name) && !('default' in prop)) required.add(name);
      }
    }
    Object.assign(properties, options.extra ?? {});
    const input: JsonObjectSchema = {
      type: 'object',
      properties,
      ...(required.size ? { required: [...required] } : {}),
      additionalProperties: false,
    };
    const validate: ValidateFunction = ajv.compile(input);
    return {
      scopes: scopesOf(route.access),
      input,
      check(args) {
        if (!validate(args)) throw validationFailed(fieldErrors(validate.errors ?? [], undefined));
      },
    };
  }
}
