/** `GET /api/widget/{chatbotId}/config`: what the widget draws with, cacheable. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { endpoint } from '../../http/route.js';
import { ChatbotParams, PUBLIC, Shaped } from './schemas.js';

export const CONFIG_URL = '/api/widget/:chatbotId/config';
/**
 * Fresh for a minute (an ETag makes the revalidation cheap); after that a returning visitor's
 * bubble is drawn at once from the cached copy while it is revalidated (stale-while-revalidate):
 * a change shows from the next page view instead of costing every view a round trip first.
 */
const CONFIG_CACHE = 'public, max-age=60, stale-while-revalidate=86400';

export default async function config(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const widget = app.services.widget;
  app.get(
    CONFIG_URL,
    endpoint({
      access: PUBLIC,
      config: { rateLimit: { max: 120, timeWindow: '1 minute' } },
      data: Shaped('WidgetConfig'),
      hide: true,
      tags: ['widget'],
      summary: "The widget's public configuration",
      description: 'Only what the widget draws with; cacheable (ETag, max-age 60 s, stale-while-revalidate a day).',
      params: ChatbotParams,
    }),
    async (request, reply) => {
      const chatbot = await widget.chatbot(request.params.chatbotId);
      widget.checkOrigin(chatbot, request.headers.origin);
      const data = await widget.config(chatbot);
      const etag = `"${createHash('sha256').update(JSON.stringify(data)).digest('base64url').slice(0, 27)}"`;
      reply.header('etag', etag).header('cache-control', CONFIG_CACHE).header('timing-allow-origin', '*');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return data;
    },
  );
}
