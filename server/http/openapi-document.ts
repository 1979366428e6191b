/**
 * The last pass over a generated OpenAPI document (both documents, openapi.ts), so that SDK
 * generators get readable, stable types and names:
 * - `X | null` is written as `type: [X, 'null']` where X is a plain type;
 * - a schema with a PascalCase `title` (`Type.Object({...}, { title: 'Chatbot' })`) becomes the
 *   component of that name, and every copy of it a `$ref` to it;
 * - every operation without an explicit `operationId` gets one derived from its method and path;
 * - the shared error responses and response headers are components, referenced by each operation;
 * - the tags the operations use are listed with their descriptions.
 */
import { isDeepStrictEqual } from 'node:util';

type Json = Record<string, unknown>;

export const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

/** A component name: the `title` of a schema that should be one. */
const COMPONENT_NAME = /^[A-Z][A-Za-z0-9]*$/;
/** Keywords whose values are data, not schemas: a `title` inside them names nothing. */
const DATA_KEYWORDS = new Set(['default', 'example', 'examples', 'const', 'enum']);

/** Copies `node`, replacing each titled schema by a $ref to the component of that name. */
function hoistNamed(node: unknown, schemas: Json): unknown {
  if (Array.isArray(node)) return node.map((n) => hoistNamed(n, schemas));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node))
    out[key] = DATA_KEYWORDS.has(key) ? value : hoistNamed(value, schemas);
  const name = out.title;
  if (
    typeof name !== 'string' ||
    !COMPONENT_NAME.test(name) ||
    !('type' in out || 'anyOf' in out || 'allOf' in out || 'oneOf' in out)
  )
    return out;
  if (!schemas[name]) schemas[name] = out;
  // A different shape under a taken name stays where it is (the OpenAPI test fails on it).
  return isDeepStrictEqual(schemas[name], out) ? { $ref: `#/components/schemas/${name}` } : out;
}

/**
 * `anyOf: [X, {type: 'null'}]` as `type: [X's type, 'null']` where X is a plain typed schema (not a
 * $ref): shorter, and X's description and constraints stay on the property.
 */
function nullableTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableTypes);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = DATA_KEYWORDS.has(key) ? value : nullableTypes(value);
  const anyOf = out.anyOf as Json[] | undefined;
  if (anyOf?.length !== 2) return out;
  const other = anyOf.find((s) => s.type !== 'null');
  if (
    !other ||
    !anyOf.some((s) => s.type === 'null' && Object.keys(s).length === 1) ||
    typeof other.type !== 'string' ||
    'title' in other
  )
    return out;
  const { anyOf: _, ...rest } = out;
  return {
    ...other,
    ...rest,
    type: [other.type, 'null'],
    ...(Array.isArray(other.enum) ? { enum: [...other.enum, null] } : {}),
  };
}

const IRREGULAR: Record<string, string> = { analytics: 'analytics', settings: 'settings', news: 'news' };
const isPlural = (word: string) => !(word in IRREGULAR) && /[^s]s$/.test(word);
const singular = (word: string) => IRREGULAR[word] ?? word.replace(/ies$/, 'y').replace(/([^s])s$/, '$1');
const words = (segment: string) =>
  segment
    .split(/[-_.]/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
const pascal = (list: string[]) => list.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
/** The words of a run of literal segments, each but the last singular ("webhooks/deliveries" -> webhook deliveries). */
const noun = (run: string[], lastSingular: boolean) =>
  run.flatMap((segment, i) => {
    const ws = words(segment);
    return i < run.length - 1 || lastSingular ? [...ws.slice(0, -1), singular(ws.at(-1)!)] : ws;
  });
/** Scopes every path sits in: they name no operation (`/chatbots/{chatbotId}/tags` -> listTags). */
const ROOT_SCOPES = new Set(['chatbots']);

/**
 * `operationId` from method and path: `GET /chatbots` listChatbots, `POST /chatbots` createChatbot,
 * `GET /chatbots/{chatbotId}` getChatbot, `PATCH .../conversations/{threadId}` updateConversation,
 * `GET .../conversations/{threadId}/messages` listConversationMessages, `POST .../jobs/{jobId}/cancel`
 * cancelJob. Versions in the path (`/v0`) are left out.
 */
export function deriveOperationId(method: string, path: string): string {
  const segments = path.split('/').filter((s) => s && !/^v\d+$/.test(s));
  const isParam = (s: string) => s.startsWith('{');
  const m = method.toLowerCase();
  const lastParam = segments.findLastIndex(isParam);
  // The literal run before index `end` (back to the previous parameter).
  const runBefore = (end: number) => {
    const start = segments.slice(0, end).findLastIndex(isParam) + 1;
    return segments.slice(start, end);
  };
  if (lastParam === segments.length - 1) {
    const verb = { get: 'get', put: 'replace', patch: 'update', delete: 'delete' }[m] ?? m;
    return verb + pascal(noun(runBefore(lastParam), true));
  }
  const run = segments.slice(lastParam + 1);
  const ownerRun = lastParam > 0 ? runBefore(lastParam) : [];
  const owner = ownerRun.length && !(ownerRun.length === 1 && ROOT_SCOPES.has(ownerRun[0])) ? noun(ownerRun, true) : [];
  const tail = words(run.at(-1)!).at(-1)!;
  if (m === 'get') return (isPlural(tail) ? 'list' : 'get') + pascal([...owner, ...noun(run, false)]);
  if (m === 'post') {
    if (isPlural(tail)) return 'create' + pascal([...owner, ...noun(run, true)]);
    // An action on the item or collection before it: `.../jobs/{jobId}/cancel` cancelJob, `/documents/delete` deleteDocuments.
    const action = words(run.at(-1)!);
    return action[0] + pascal([...action.slice(1), ...owner, ...noun(run.slice(0, -1), false)]);
  }
  const verb = { put: 'replace', patch: 'update', delete: 'delete' }[m] ?? m;
  return verb + pascal([...owner, ...noun(run, false)]);
}

/** Drops `required` from what the client may leave out because the server fills in its default. */
function withoutDefaulted(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const src = schema as Json;
  const properties = src.properties as Record<string, Json> | undefined;
  if (!properties) return src;
  const required = ((src.required as string[] | undefined) ?? []).filter((k) => properties[k]?.default === undefined);
  const { required: _, ...rest } = src;
  return {
    ...rest,
    ...(required.length ? { required } : {}),
    properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, withoutDefaulted(v)])),
  };
}

/** A parameter or body field with a default is optional for the client (the request schemas list it as required). */
function optionalDefaults(op: Json) {
  const parameters = op.parameters as Json[] | undefined;
  if (parameters)
    op.parameters = parameters.map((p) =>
      p.required && (p.schema as Json | undefined)?.default !== undefined && p.in !== 'path'
        ? { ...p, required: false }
        : p,
    );
  const body = op.requestBody as { content?: Record<string, Json> } | undefined;
  if (body?.content) {
    op.requestBody = {
      ...body,
      content: Object.fromEntries(
        Object.entries(body.content).map(([type, media]) => [
          type,
          { ...media, schema: withoutDefaulted(media.schema) },
        ]),
      ),
    };
  }
}

export interface DocumentOptions {
  /** Descriptions of the tags operations use, listed in this order. */
  tags: Record<string, string>;
  /** Response headers every response of an operation may carry (`#/components/headers/...`). */
  headers: Record<string, Json>;
  /** Which of `headers` each response status range names. */
  headersBy: (status: string, operation: Json) => string[];
}

/** Applies the pass to a document made by @fastify/swagger (returns a new one). */
export function finishDocument(doc: Json, options: DocumentOptions): Json {
  const components = { ...(doc.components as Json) };
  const schemas: Json = { ...(components.schemas as Json) };
  for (const [name, schema] of Object.entries(schemas)) {
    // A component's own title is its name: hoist only what is inside it.
    const { title, ...rest } = schema as Json;
    schemas[name] = { ...(hoistNamed(rest, schemas) as Json), ...(title !== undefined ? { title } : {}) };
  }
  const paths = nullableTypes(hoistNamed(doc.paths, schemas)) as Record<string, Json>;
  for (const [name, schema] of Object.entries(schemas)) schemas[name] = nullableTypes(schema);

  const used = new Set<string>();
  const taken = new Set<string>();
  const operations: Array<[string, string, Json]> = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op) operations.push([path, method, op]);
    }
  }
  for (const [, , op] of operations) if (typeof op.operationId === 'string') taken.add(op.operationId);
  for (const [path, method, op] of operations) {
    if (typeof op.operationId !== 'string') {
      let id = deriveOperationId(method, path);
      // Two routes deriving the same name: the later one spells out its whole path.
      if (taken.has(id))
        id =
          method +
          pascal(
            path
              .split('/')
              .filter((s) => s && !s.startsWith('{'))
              .flatMap(words),
          );
      op.operationId = id;
      taken.add(id);
    }
    for (const tag of (op.tags as string[] | undefined) ?? []) used.add(tag);
    optionalDefaults(op);
    const responses = op.responses as Record<string, Json>;
    for (const [status, response] of Object.entries(responses)) {
      const names = options.headersBy(status, op);
      if (!names.length || '$ref' in response) continue;
      const headers = { ...(response.headers as Json | undefined) };
      for (const name of names) headers[name] = { $ref: `#/components/headers/${name}` };
      responses[status] = { ...response, headers };
    }
  }
  const tags = [...new Set([...Object.keys(options.tags), ...used])]
    .filter((tag) => used.has(tag))
    .map((name) => ({ name, description: options.tags[name] ?? name }));
  return {
    ...doc,
    tags,
    paths,
    components: {
      ...components,
      schemas,
      headers: { ...(components.headers as Json | undefined), ...options.headers },
    },
  };
}
