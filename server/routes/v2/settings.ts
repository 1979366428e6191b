import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { chatbotSettingsSchema, SECTION_FIELDS, SETTINGS_SECTIONS, sectionPatchSchema, settingsPatchSchema } from '../../../shared/settings.js';
import { endpoint } from '../../http/route.js';
import { ChatbotSchema } from './chatbots.js';
import { one } from './resource-schemas.js';
import { ChatbotParams } from './schemas.js';

const Settings = Type.Object({
  title: SECTION_FIELDS.general.title,
  description: SECTION_FIELDS.general.description,
  ...chatbotSettingsSchema.properties,
});

export default async function settings(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { chatbots } = app.services;
  const tags = ['settings'];

  app.get('/chatbots/:chatbotId/settings', endpoint({
    access: { scopes: ['settings:read'] }, data: one('settings', Settings),
    tags, summary: "The chatbot's settings, every field", params: ChatbotParams,
  }), async (request) => {
    const chatbot = await chatbots.get(request.auth, request.params.chatbotId);
    return { settings: { title: chatbot.title, description: chatbot.description, ...chatbot.settings } };
  });

  app.patch('/chatbots/:chatbotId/settings', endpoint({
    access: { scopes: ['settings:write'] }, data: one('chatbot', ChatbotSchema),
    tags, summary: 'Change several settings sections at once',
    description: `Body keys are section names (${SETTINGS_SECTIONS.join(', ')}); all change together or none does.`,
    params: ChatbotParams, body: settingsPatchSchema,
  }), async (request) => ({ chatbot: await chatbots.patchSettings(request.auth, request.params.chatbotId, request.body) }));

  for (const section of SETTINGS_SECTIONS) {
    app.patch(`/chatbots/:chatbotId/settings/${section}`, endpoint({
      access: { scopes: ['settings:write'] }, data: one('chatbot', ChatbotSchema),
      tags, summary: `Change the ${section} settings`,
      description:
        `Fields: ${Object.keys(SECTION_FIELDS[section]).join(', ')}. null clears a field.` +
        (section === 'webhooks' ? ' Needs the webhook add-on (403 WEBHOOKS_NOT_AVAILABLE); URLs must be HTTPS.' : ''),
      params: ChatbotParams, body: sectionPatchSchema(section),
    }), async (request) => ({
      chatbot: await chatbots.patchSettings(request.auth, request.params.chatbotId, { [section]: request.body }),
    }));
  }
}
