/**
 * The route factory the look-alike resources of a chatbot share (starters, follow-ups,
 * instructions, personas, custom responses, tags): list, create, get, change, delete and, for the
 * ones of which one is active, `/use`. Each resource states only its names, scopes, schemas and
 * texts; the routes, their access and their response schemas are written once, here.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static, TObject, TSchema } from 'typebox';
import type { Scope } from '../../../shared/scopes.js';
import type { AuthContext } from '../../domain/auth.js';
import { paged } from '../../http/envelope.js';
import { endpoint } from '../../http/route.js';
import { all, CONFIRM_NOTE, itemParams, NOT_FOUND_NOTE, one, page } from './resource-schemas.js';
import { ChatbotParams, ConfirmQuery, pageQuery } from './schemas.js';

/** What the factory calls; every resource service has these (`use` for the ones with an active item). */
export interface ResourceService<Item, Create, Patch> {
  list(
    auth: AuthContext,
    chatbotId: string,
    limit?: number,
    cursor?: string,
  ): Promise<Item[] | ({ nextCursor: string | null } & Record<string, unknown>)>;
  create(auth: AuthContext, chatbotId: string, input: Create): Promise<Item>;
  get(auth: AuthContext, chatbotId: string, id: string): Promise<Item>;
  update(auth: AuthContext, chatbotId: string, id: string, patch: Patch): Promise<Item>;
  delete(auth: AuthContext, chatbotId: string, id: string, confirmed: boolean): Promise<Item>;
  use?(auth: AuthContext, chatbotId: string, id: string): Promise<Item>;
}

interface Texts {
  summary: string;
  description?: string;
}

export interface ResourceRoutes<C extends TObject, P extends TObject> {
  /** Path segment under /chatbots/{chatbotId}/ and the OpenAPI tag, e.g. `custom-responses`. */
  path: string;
  /** The item's key in `data` (`starter`); the list's is `plural`, the deleted one's `deleted<Item>`. */
  item: string;
  plural: string;
  /** Path parameter of one item, e.g. `starterId`. */
  idParam: string;
  scopes: { read: Scope; write: Scope; delete: Scope };
  schema: TSchema;
  create: C;
  patch: P;
  /** `all`: the whole list (small, capped lists); `page`: keyset pages (limit 1-100, default 50). */
  list: 'all' | 'page';
  texts: { list: Texts; create: Texts; get?: Texts; update: Texts; delete: Texts; use?: Texts };
  service: ResourceService<unknown, Static<C>, Static<P>>;
}

const capital = (s: string) => s[0].toUpperCase() + s.slice(1);

export function resourceRoutes<C extends TObject, P extends TObject>(spec: ResourceRoutes<C, P>) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const { service, scopes, texts, item, plural } = spec;
    const tags = [spec.path];
    const collection = `/chatbots/:chatbotId/${spec.path}`;
    const member = `${collection}/:${spec.idParam}`;
    const Params = itemParams(spec.idParam);
    const idOf = (params: Record<string, string>) => params[spec.idParam];

    if (spec.list === 'all') {
      app.get(
        collection,
        endpoint({
          access: { scopes: [scopes.read] },
          data: all(plural, spec.schema),
          tags,
          ...texts.list,
          params: ChatbotParams,
        }),
        async (request) => ({ [plural]: await service.list(request.auth, request.params.chatbotId) }),
      );
    } else {
      app.get(
        collection,
        endpoint({
          access: { scopes: [scopes.read] },
          data: page(plural, spec.schema),
          tags,
          ...texts.list,
          params: ChatbotParams,
          querystring: pageQuery(50, 100),
        }),
        async (request) => {
          const { limit, cursor } = request.query;
          const result = (await service.list(request.auth, request.params.chatbotId, limit, cursor)) as {
            nextCursor: string | null;
          } & Record<string, unknown[]>;
          return paged(plural, result[plural], limit, result.nextCursor);
        },
      );
    }

    app.post(
      collection,
      endpoint({
        access: { scopes: [scopes.write] },
        status: 201,
        data: one(item, spec.schema),
        tags,
        ...texts.create,
        params: ChatbotParams,
        body: spec.create,
      }),
      async (request) => ({
        [item]: await service.create(request.auth, request.params.chatbotId, request.body as Static<C>),
      }),
    );

    app.get(
      member,
      endpoint({
        access: { scopes: [scopes.read] },
        data: one(item, spec.schema),
        tags,
        ...(texts.get ?? { summary: `One ${item}` }),
        description: [NOT_FOUND_NOTE, texts.get?.description].filter(Boolean).join(' '),
        params: Params,
      }),
      async (request) => ({ [item]: await service.get(request.auth, request.params.chatbotId, idOf(request.params)) }),
    );

    app.patch(
      member,
      endpoint({
        access: { scopes: [scopes.write] },
        data: one(item, spec.schema),
        tags,
        ...texts.update,
        params: Params,
        body: spec.patch,
      }),
      async (request) => ({
        [item]: await service.update(
          request.auth,
          request.params.chatbotId,
          idOf(request.params),
          request.body as Static<P>,
        ),
      }),
    );

    if (texts.use && service.use) {
      const use = service.use.bind(service);
      app.post(
        `${member}/use`,
        endpoint({
          access: { scopes: [scopes.write] },
          data: one(item, spec.schema),
          tags,
          ...texts.use,
          params: Params,
        }),
        async (request) => ({ [item]: await use(request.auth, request.params.chatbotId, idOf(request.params)) }),
      );
    }

    const deleted = `deleted${capital(item)}`;
    app.delete(
      member,
      endpoint({
        access: { scopes: [scopes.delete] },
        data: one(deleted, spec.schema),
        tags,
        ...texts.delete,
        description: [CONFIRM_NOTE, texts.delete.description].filter(Boolean).join(' '),
        params: Params,
        querystring: ConfirmQuery,
      }),
      async (request) => ({
        [deleted]: await service.delete(
          request.auth,
          request.params.chatbotId,
          idOf(request.params),
          request.query.confirm === true,
        ),
      }),
    );
  };
}
