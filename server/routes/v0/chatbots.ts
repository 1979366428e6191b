/**
 * v0 chatbots and their settings: GET/POST /chatbots, GET/DELETE /chatbots/{id}, PATCH
 * .../appearance and .../settings/{general, chat-mode, localization, user-data, advanced}. Each
 * calls the chatbots service as its v2 twin does and answers the v0 Chatbot.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { SECTION_FIELDS, sectionPatchSchema, type SettingsSection } from '../../../shared/settings.js';
import type { SettingsPatch } from '../../domain/chatbots.service.js';
import { endpoint } from '../../http/route.js';
import { CreateChatbot } from '../v2/chatbots.js';
import { ChatbotParams } from '../v2/schemas.js';
import { presentChatbot, v0, wholeList } from './legacy.js';
import { LegacyChatbot } from './shapes.js';

/** v0 `settings/advanced`: the global webhook pair (v2 settings/webhooks) and creativity/temperature (v2 settings/general). */
const ADVANCED = { webhooks: ['webhookUrl', 'webhookToken'], general: ['creativity', 'temperature'] } as const;
const AdvancedPatch = Type.Object(
  {
    webhookUrl: Type.Optional(SECTION_FIELDS.webhooks.webhookUrl),
    webhookToken: Type.Optional(SECTION_FIELDS.webhooks.webhookToken),
    creativity: Type.Optional(SECTION_FIELDS.general.creativity),
    temperature: Type.Optional(SECTION_FIELDS.general.temperature),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** The v0 path of each settings section it shares with v2 (appearance sits under the chatbot in v0). */
const SECTIONS: [string, SettingsSection][] = [
  ['appearance', 'appearance'],
  ['settings/general', 'general'],
  ['settings/chat-mode', 'chat-mode'],
  ['settings/localization', 'localization'],
  ['settings/user-data', 'user-data'],
];

export default async function chatbots(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = app.services.chatbots;
  const tags = ['chatbots'];
  const Chatbot = LegacyChatbot;

  app.get(
    '/chatbots',
    endpoint({
      ...v0('Chatbots fetched', ['chatbots:read']),
      data: Type.Array(Chatbot),
      tags,
      summary: 'Every chatbot the key reaches, newest first (not paginated)',
    }),
    async (request) => {
      const views = await wholeList(async (cursor) => {
        const page = await service.list(request.auth, 100, cursor);
        return { items: page.chatbots, nextCursor: page.nextCursor };
      });
      return Promise.all(views.map((view) => presentChatbot(app, request.auth, view)));
    },
  );

  app.post(
    '/chatbots',
    endpoint({
      ...v0('Chatbot created', ['chatbots:write']),
      status: 201,
      data: Chatbot,
      tags,
      summary: 'Create a chatbot',
      description:
        'The body of v2 POST /chatbots (`settings` takes the v2 sections). Past the plan limit: 403 CHATBOT_LIMIT_REACHED.',
      body: CreateChatbot,
    }),
    async (request) => presentChatbot(app, request.auth, await service.create(request.auth, request.body)),
  );

  app.get(
    '/chatbots/:chatbotId',
    endpoint({
      ...v0('Chatbot fetched', ['chatbots:read']),
      data: Chatbot,
      tags,
      summary: 'A chatbot with its quick prompts, prompts, follow-up prompts and settings',
      params: ChatbotParams,
    }),
    async (request) => presentChatbot(app, request.auth, await service.get(request.auth, request.params.chatbotId)),
  );

  app.delete(
    '/chatbots/:chatbotId',
    endpoint({
      ...v0('Chatbot deleted', ['chatbots:delete']),
      data: Chatbot,
      tags,
      summary: 'Delete a chatbot and everything in it',
      description: 'No confirmation in v0 (v2 needs ?confirm=true): the call deletes. Answers the chatbot as it was.',
      params: ChatbotParams,
    }),
    async (request) => {
      const before = await presentChatbot(app, request.auth, await service.get(request.auth, request.params.chatbotId));
      await service.delete(request.auth, request.params.chatbotId, true);
      return before;
    },
  );

  const patch = async (auth: Parameters<typeof service.patchSettings>[0], chatbotId: string, sections: SettingsPatch) =>
    presentChatbot(app, auth, await service.patchSettings(auth, chatbotId, sections));

  for (const [path, section] of SECTIONS) {
    app.patch(
      `/chatbots/:chatbotId/${path}`,
      endpoint({
        ...v0('Settings updated', ['settings:write']),
        data: Chatbot,
        tags: ['settings'],
        summary: `Change the ${section} settings (v2 PATCH /chatbots/{chatbotId}/settings/${section})`,
        description: `Fields: ${Object.keys(SECTION_FIELDS[section]).join(', ')}. null clears a field. The same rules as v2 (plan features, ranges).`,
        params: ChatbotParams,
        body: sectionPatchSchema(section),
      }),
      async (request) => patch(request.auth, request.params.chatbotId, { [section]: request.body }),
    );
  }

  app.patch(
    '/chatbots/:chatbotId/settings/advanced',
    endpoint({
      ...v0('Settings updated', ['settings:write']),
      data: Chatbot,
      tags: ['settings'],
      summary: 'Change the global webhook pair, creativity and temperature',
      description:
        'webhookUrl and webhookToken are v2 settings/webhooks (the webhook add-on: 403 WEBHOOKS_NOT_AVAILABLE; HTTPS, no internal addresses); creativity and temperature are v2 settings/general ' +
        '(temperature 0 to 2, used when creativity is CUSTOM; an active prompt with its own temperature takes precedence, as in v2). All change together or none does.',
      params: ChatbotParams,
      body: AdvancedPatch,
    }),
    async (request) => {
      const body = request.body as Record<string, unknown>;
      const sections: SettingsPatch = {};
      for (const [section, keys] of Object.entries(ADVANCED) as [SettingsSection, readonly string[]][]) {
        const fields = Object.fromEntries(keys.filter((k) => k in body).map((k) => [k, body[k]]));
        if (Object.keys(fields).length) sections[section] = fields;
      }
      return patch(request.auth, request.params.chatbotId, sections);
    },
  );
}
