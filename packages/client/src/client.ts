/**
 * The typed client: openapi-fetch over the generated types, with the envelope unwrapped (a call
 * returns `data`), every refusal thrown as a ParleyError, an Idempotency-Key on the writes that
 * honour one, multipart bodies sent as FormData, retries on 429/503, and cursor pagination as
 * async iterators.
 */
import createClient, { type Client, type FetchResponse, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import type { HttpMethod, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { errorFrom } from './errors.js';
import type { paths } from './generated/api.js';
import { IDEMPOTENT_WRITES, MULTIPART_WRITES } from './generated/operations.js';
import { retryingFetch, type RetryInfo, type RetryOptions } from './retry.js';

/** The paths under /api/v2. The OAuth endpoints sit at the site root and have their own helpers (deviceLogin). */
export type ApiPaths = { [P in keyof paths as P extends `/oauth/${string}` ? never : P]: paths[P] };

type Json = `${string}/${string}`;
type Envelope<P extends keyof ApiPaths, M extends HttpMethod> = NonNullable<
  FetchResponse<ApiPaths[P][M] & Record<string | number, unknown>, object, Json>['data']
>;
/** What a call returns: the envelope's `data`. */
export type ResponseData<P extends keyof ApiPaths, M extends HttpMethod> =
  Envelope<P, M> extends { data: infer D } ? D : Envelope<P, M>;

/** The second argument of a call, required only when the operation has required parameters or a body. */
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

type Call<M extends HttpMethod> = <
  P extends PathsWithMethod<ApiPaths, M>,
  Init extends MaybeOptionalInit<ApiPaths[P], M>,
>(
  path: P,
  ...init: InitParam<Init>
) => Promise<ResponseData<P, M>>;

type GetPath = PathsWithMethod<ApiPaths, 'get'>;
/** The lists paginated by cursor: their data carries `pagination`. */
export type ListPath = {
  [P in GetPath]: ResponseData<P, 'get'> extends { pagination: { nextCursor: string | null } } ? P : never;
}[GetPath];
/** The items of a list: its one array besides `pagination` (`chatbots`, `conversations`, `messages`…). */
export type ListItem<P extends ListPath> = {
  [K in keyof ResponseData<P, 'get'>]: K extends 'pagination'
    ? never
    : ResponseData<P, 'get'>[K] extends ReadonlyArray<infer I>
      ? I
      : never;
}[keyof ResponseData<P, 'get'>];

type ListInit<P extends ListPath> = InitParam<MaybeOptionalInit<ApiPaths[P], 'get'>>;

export interface ParleyClient {
  GET: Call<'get'>;
  POST: Call<'post'>;
  PUT: Call<'put'>;
  PATCH: Call<'patch'>;
  DELETE: Call<'delete'>;
  /** Each page of a list, following `pagination.nextCursor` until it is null. */
  pages<P extends ListPath>(path: P, ...init: ListInit<P>): AsyncGenerator<ResponseData<P, 'get'>, void, undefined>;
  /** Each item of a list across all its pages. */
  paginate<P extends ListPath>(path: P, ...init: ListInit<P>): AsyncGenerator<ListItem<P>, void, undefined>;
  /** The openapi-fetch client underneath (same headers, retries and keys): `{data, error, response}`, nothing thrown. */
  raw: Client<ApiPaths, Json>;
}

export interface ParleyClientOptions {
  /** The site's address, e.g. `https://chat.example.com` (the API is its `/api/v2`). */
  server: string;
  /** An API token (`tokens create`, POST /tokens, or deviceLogin), sent as `Authorization: Bearer`. */
  token?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Retries on 429 and 503 (default 2, waiting at most 30 s each); `false` for none. */
  retry?: RetryOptions | false;
  /** Told before each retry (status, attempt, wait). */
  onRetry?: (info: RetryInfo) => void;
  /**
   * An `Idempotency-Key` (a random UUID, the same on every retry) on the writes that honour one
   * (sending a visitor message: a retry never stores it twice). Default true; a key the caller
   * sets in `headers` of the call wins.
   */
  idempotencyKeys?: boolean;
  /** The fetch to send with (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
}

export function createParleyClient(options: ParleyClientOptions): ParleyClient {
  const server = options.server.replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(server)) throw new TypeError(`server must be an http(s) URL, not "${options.server}"`);
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const raw = createClient<ApiPaths, Json>({
    baseUrl: `${server}/api/v2`,
    headers: { ...options.headers, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
    fetch: options.retry === false ? send : retryingFetch(send, options.retry, options.onRetry),
  });
  if (options.idempotencyKeys !== false) raw.use(idempotencyKeys);

  const call =
    (method: Uppercase<HttpMethod>) =>
    async (path: string, init?: Record<string, unknown>): Promise<unknown> => {
      const multipart = MULTIPART_WRITES.has(`${method} ${path}`) && !init?.bodySerializer;
      const options = multipart ? { ...init, bodySerializer: formData } : init;
      const result = (await raw.request(method.toLowerCase() as never, path as never, options as never)) as {
        data?: unknown;
        error?: unknown;
        response: Response;
      };
      if (!result.response.ok) throw errorFrom(result.response, result.error);
      const body = result.data as { data?: unknown } | undefined;
      return body && typeof body === 'object' && 'data' in body ? body.data : body;
    };
  const GET = call('GET');

  async function* pages(path: string, init?: { params?: { query?: Record<string, unknown> } }) {
    let cursor = init?.params?.query?.cursor as string | null | undefined;
    do {
      const query = { ...init?.params?.query, ...(cursor ? { cursor } : {}) };
      const page = (await GET(path, { ...init, params: { ...init?.params, query } })) as {
        pagination: { nextCursor: string | null };
      };
      yield page;
      cursor = page.pagination.nextCursor;
    } while (cursor);
  }

  async function* paginate(path: string, init?: { params?: { query?: Record<string, unknown> } }) {
    for await (const page of pages(path, init)) {
      const key = Object.keys(page).find((k) => k !== 'pagination' && Array.isArray(page[k as keyof typeof page]));
      if (key) yield* page[key as keyof typeof page] as unknown as unknown[];
    }
  }

  return {
    GET,
    POST: call('POST'),
    PUT: call('PUT'),
    PATCH: call('PATCH'),
    DELETE: call('DELETE'),
    pages,
    paginate,
    raw,
  } as unknown as ParleyClient;
}

/** Only where the document says the operation reads the header: elsewhere a key would promise nothing. */
const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (IDEMPOTENT_WRITES.has(`${request.method} ${schemaPath}`) && !request.headers.has('idempotency-key'))
      request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
    return request;
  },
};

/**
 * A multipart body object as FormData, fields in the object's order (the icon upload reads `type`
 * before `file`); an array is one part per item. A Blob without a name is sent as `file`.
 */
function formData(body: Record<string, unknown>): FormData {
  const form = new FormData();
  const add = (name: string, value: unknown) => {
    if (value === undefined || value === null) return;
    if (value instanceof Blob) form.append(name, value, (value as Partial<File>).name ?? 'file');
    else form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  };
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value)) for (const item of value) add(name, item);
    else add(name, value);
  }
  return form;
}
