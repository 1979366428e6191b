/**
 * v0 quick prompts, follow-up prompts, prompts and personas (settings/prompts, settings/personas
 * with /assign): one factory over the same resource services as v2's starters, followups,
 * instructions and personas, answering the v0 shapes. Lists are whole; deletes need no confirm.
 */
import type { FastifyInstance } from 'fastify';
import type { Scope } from '../../../shared/scopes.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TObject, TSchema } from 'typebox';
import Type from 'typebox';
import { endpoint } from '../../http/route.js';
import type { ResourceService } from '../v2/resource-routes.js';
import { itemParams } from '../v2/resource-schemas.js';
import { ChatbotParams } from '../v2/schemas.js';
import { FollowupCreate, FollowupPatch } from '../v2/followups.js';
import { InstructionCreate, InstructionPatch } from '../v2/instructions.js';
import { PersonaCreate, PersonaPatch } from '../v2/personas.js';
import { StarterCreate, StarterPatch } from '../v2/starters.js';
import { v0 } from './legacy.js';

const scopesOf = (resource: 'starters' | 'followups' | 'instructions' | 'personas') =>
  ({ read: `${resource}:read`, write: `${resource}:write`, delete: `${resource}:delete` }) as const;
import {
  ChatbotPersona,
  ChatbotPrompt,
  chatbotPersona,
  chatbotPrompt,
  FollowUpPrompt,
  followUpPrompt,
  QuickPrompt,
  quickPrompt,
} from './shapes.js';

interface LegacyResource {
  /** Path under /chatbots/{chatbotId}/ and the OpenAPI tag. */
  path: string;
  idParam: string;
  /** The v0 name, for summaries and messages ("Quick prompt"). */
  name: string;
  /** Its v2 twin, for descriptions. */
  twin: string;
  schema: TSchema;
  present: (item: never) => unknown;
  create: TObject;
  patch: TObject;
  service: ResourceService<unknown, never, never>;
  /** Its v2 twin's scopes. */
  scopes: { read: Scope; write: Scope; delete: Scope };
  /** `/assign` makes it the active one (v2 `/use`). */
  assign?: boolean;
}

function legacyResource(spec: LegacyResource) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const { service, name, twin } = spec;
    const present = spec.present as (item: unknown) => unknown;
    const tags = [spec.path.replace('settings/', '')];
    const collection = `/chatbots/:chatbotId/${spec.path}`;
    const member = `${collection}/:${spec.idParam}`;
    const Params = itemParams(spec.idParam);
    const idOf = (params: Record<string, string>) => params[spec.idParam];

    app.get(
      collection,
      endpoint({
        ...v0(`${name}s fetched`, [spec.scopes.read]),
        data: Type.Array(spec.schema),
        tags,
        summary: `Every ${name.toLowerCase()} of the chatbot (v2 GET /chatbots/{chatbotId}/${twin}; not paginated)`,
        params: ChatbotParams,
      }),
      async (request) => ((await service.list(request.auth, request.params.chatbotId)) as unknown[]).map(present),
    );

    app.post(
      collection,
      endpoint({
        ...v0(`${name} created`, [spec.scopes.write]),
        status: 201,
        data: spec.schema,
        tags,
        summary: `Add a ${name.toLowerCase()} (v2 POST /chatbots/{chatbotId}/${twin}, same body and limits)`,
        params: ChatbotParams,
        body: spec.create,
      }),
      async (request) => present(await service.create(request.auth, request.params.chatbotId, request.body as never)),
    );

    app.get(
      member,
      endpoint({
        ...v0(`${name} fetched`, [spec.scopes.read]),
        data: spec.schema,
        tags,
        summary: `One ${name.toLowerCase()}`,
        params: Params,
      }),
      async (request) => present(await service.get(request.auth, request.params.chatbotId, idOf(request.params))),
    );

    app.patch(
      member,
      endpoint({
        ...v0(`${name} updated`, [spec.scopes.write]),
        data: spec.schema,
        tags,
        summary: `Change a ${name.toLowerCase()} (v2 PATCH; send only the fields to change)`,
        params: Params,
        body: spec.patch,
      }),
      async (request) =>
        present(
          await service.update(request.auth, request.params.chatbotId, idOf(request.params), request.body as never),
        ),
    );

    app.delete(
      member,
      endpoint({
        ...v0(`${name} deleted`, [spec.scopes.delete]),
        data: spec.schema,
        tags,
        summary: `Delete a ${name.toLowerCase()}`,
        description: 'No confirmation in v0 (v2 needs ?confirm=true): the call deletes. Answers the item as it was.',
        params: Params,
      }),
      async (request) =>
        present(await service.delete(request.auth, request.params.chatbotId, idOf(request.params), true)),
    );

    if (spec.assign && service.use) {
      const use = service.use.bind(service);
      app.post(
        `${member}/assign`,
        endpoint({
          ...v0(`${name} assigned`, [spec.scopes.write]),
          data: spec.schema,
          tags,
          summary: `Make it the chatbot's active ${name.toLowerCase()} (v2 POST .../${twin}/{id}/use)`,
          params: Params,
        }),
        async (request) => present(await use(request.auth, request.params.chatbotId, idOf(request.params))),
      );
    }
  };
}

export default async function prompts(app: FastifyInstance) {
  const { starters, followups, instructions, personas } = app.services.resources;
  const as = <T>(s: T) => s as unknown as ResourceService<unknown, never, never>;
  await app.register(
    legacyResource({
      path: 'quick-prompts',
      idParam: 'promptId',
      name: 'Quick prompt',
      twin: 'starters',
      scopes: scopesOf('starters'),
      schema: QuickPrompt,
      present: quickPrompt,
      create: StarterCreate,
      patch: StarterPatch,
      service: as(starters),
    }),
  );
  await app.register(
    legacyResource({
      path: 'follow-up-prompts',
      idParam: 'followUpPromptId',
      name: 'Follow-up prompt',
      twin: 'followups',
      scopes: scopesOf('followups'),
      schema: FollowUpPrompt,
      present: followUpPrompt,
      create: FollowupCreate,
      patch: FollowupPatch,
      service: as(followups),
    }),
  );
  await app.register(
    legacyResource({
      path: 'settings/prompts',
      idParam: 'promptId',
      name: 'Prompt',
      twin: 'instructions',
      scopes: scopesOf('instructions'),
      assign: true,
      schema: ChatbotPrompt,
      present: chatbotPrompt,
      create: InstructionCreate,
      patch: InstructionPatch,
      service: as(instructions),
    }),
  );
  await app.register(
    legacyResource({
      path: 'settings/personas',
      idParam: 'personaId',
      name: 'Persona',
      twin: 'personas',
      scopes: scopesOf('personas'),
      assign: true,
      schema: ChatbotPersona,
      present: chatbotPersona,
      create: PersonaCreate,
      patch: PersonaPatch,
      service: as(personas),
    }),
  );
}
