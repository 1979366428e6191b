import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import {
  SECTION_FIELDS,
  SETTINGS_FIELDS,
  SETTINGS_SECTIONS,
  sectionPatchSchema,
  settingsPatchSchema,
} from '../../../shared/settings.js';
import type { ChatbotView } from '../../domain/chatbots.service.js';
import { endpoint } from '../../http/route.js';
import { ChatbotSchema } from './chatbots.js';
import { one } from './resource-schemas.js';
import { ChatbotParams } from './schemas.js';

/** A settings change answers the chatbot, and the webhook signing secret the first time a URL is saved. */
const Patched = Type.Object({
  chatbot: ChatbotSchema,
  signingSecret: Type.Optional(
    Type.String({ description: 'The webhook signing secret; only in the answer to the first save of a webhook URL' }),
  ),
});

const Settings = Type.Object(
  {
    title: SECTION_FIELDS.general.title,
    description: SECTION_FIELDS.general.description,
    ...SETTINGS_FIELDS,
  },
  {
    additionalProperties: false,
    title: 'SettingsView',
    description: 'Every setting, with the title and description; null when unset',
  },
);

export default async function settings(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { chatbots, webhooks } = app.services;
  const tags = ['settings'];
  // The first save of a webhook URL creates the chatbot's signing secret, shown in that answer only.
  const withFirstSecret = async (chatbot: ChatbotView, section: Record<string, unknown> | undefined) => {
    const setsUrl = !!section && Object.entries(section).some(([k, v]) => /Url$/.test(k) && typeof v === 'string');
    const signingSecret = setsUrl ? await webhooks.firstSecret(chatbot.id) : null;
    return { chatbot, ...(signingSecret && { signingSecret }) };
  };

  app.get(
    '/chatbots/:chatbotId/settings',
    endpoint({
      access: { scopes: ['settings:read'] },
      data: one('settings', Settings),
      tags,
      summary: "The chatbot's settings, every field",
      params: ChatbotParams,
    }),
    async (request) => {
      const chatbot = await chatbots.get(request.auth, request.params.chatbotId);
      return { settings: { title: chatbot.title, description: chatbot.description, ...chatbot.settings } };
    },
  );

  app.patch(
    '/chatbots/:chatbotId/settings',
    endpoint({
      access: { scopes: ['settings:write'] },
      data: Patched,
      tags,
      summary: 'Change several settings sections at once',
      description: `Body keys are section names (${SETTINGS_SECTIONS.join(', ')}); all change together or none does.`,
      params: ChatbotParams,
      body: settingsPatchSchema,
    }),
    async (request) =>
      withFirstSecret(
        await chatbots.patchSettings(request.auth, request.params.chatbotId, request.body),
        request.body.webhooks as Record<string, unknown> | undefined,
      ),
  );

  for (const section of SETTINGS_SECTIONS) {
    app.patch(
      `/chatbots/:chatbotId/settings/${section}`,
      endpoint({
        access: { scopes: ['settings:write'] },
        data: Patched,
        tags,
        summary: `Change the ${section} settings`,
        operationId: `update${section
          .split('-')
          .map((w) => w[0].toUpperCase() + w.slice(1))
          .join('')}Settings`,
        description:
          `Fields: ${Object.keys(SECTION_FIELDS[section]).join(', ')}. null clears a field.` +
          (section === 'webhooks'
            ? ' Needs the webhook add-on (403 WEBHOOKS_NOT_AVAILABLE). URLs must be HTTPS and may not point to internal addresses (400 VALIDATION_FAILED: "<host> is a private or reserved address", naming the host as written, never what it resolves to) unless ALLOW_PRIVATE_FETCH opens them. The first save of a URL answers the signing secret once in `signingSecret`.'
            : ''),
        params: ChatbotParams,
        body: sectionPatchSchema(section),
      }),
      async (request) =>
        withFirstSecret(
          await chatbots.patchSettings(request.auth, request.params.chatbotId, { [section]: request.body }),
          section === 'webhooks' ? (request.body as Record<string, unknown>) : undefined,
        ),
    );
  }
}
