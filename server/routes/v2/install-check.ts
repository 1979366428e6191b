/**
 * "Check my site": loads a page of the owner's site through the guarded outbound client (SSRF
 * guard, size and time limits) and reports whether the chatbot's widget snippet is on it.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { findSnippet } from '../../domain/install-check.js';
import { endpoint } from '../../http/route.js';
import { nullable, one } from './resource-schemas.js';
import { ChatbotParams } from './schemas.js';

const MAX_BYTES = 2 * 1024 * 1024;
const Check = Type.Object({
  url: Type.String({ description: 'The page asked for' }),
  finalUrl: nullable(Type.String({ description: 'Where redirects ended; null when the page could not be loaded' })),
  status: nullable(Type.Integer({ description: "The page's HTTP status; null when it could not be loaded" })),
  found: Type.Boolean({ description: "The chatbot's widget snippet (or an iframe of its /chat page) is in the HTML" }),
  otherChatbotIds: Type.Array(Type.String(), {
    description: 'widget.js snippets on the page that name other chatbots',
  }),
  error: nullable(
    Type.Object({
      code: Type.String({
        description:
          'Why the page could not be read: the outbound refusal (BLOCKED_ADDRESS, TIMEOUT, TOO_LARGE, NETWORK, …), HTTP_ERROR or NOT_HTML',
      }),
      message: Type.String(),
    }),
  ),
});

export default async function installCheck(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/chatbots/:chatbotId/install-check',
    endpoint({
      access: { scopes: ['settings:read'] },
      data: one('check', Check),
      tags: ['install'],
      operationId: 'checkInstall',
      summary: "Check a page of the site for the chatbot's widget",
      description:
        'Loads `url` as a browser would (GET, redirects followed, through the same guard as every outbound request: internal addresses are refused) and looks for the snippet in the HTML as served. A page that cannot be loaded is not an error of this call: `found` is false and `error` says why.',
      params: ChatbotParams,
      body: Type.Object(
        { url: Type.String({ pattern: '^https?://', maxLength: 2048, description: 'An http(s) page of the site' }) },
        { additionalProperties: false },
      ),
    }),
    async (request) => {
      const chatbot = await app.services.chatbots.reach(request.auth, request.params.chatbotId);
      const { url } = request.body as { url: string };
      const base = { url, finalUrl: null, status: null, found: false, otherChatbotIds: [] as string[] };
      try {
        const page = await app.outbound.request(url, {
          headers: { accept: 'text/html,application/xhtml+xml' },
          limits: { maxBytes: MAX_BYTES },
        });
        const loaded = { ...base, finalUrl: page.url, status: page.status };
        if (page.status >= 400)
          return {
            check: { ...loaded, error: { code: 'HTTP_ERROR', message: `The page answered HTTP ${page.status}` } },
          };
        if (!/html/i.test(page.contentType ?? ''))
          return {
            check: { ...loaded, error: { code: 'NOT_HTML', message: `The page is ${page.contentType || 'not HTML'}` } },
          };
        return { check: { ...loaded, ...findSnippet(page.body.toString('utf8'), chatbot.id), error: null } };
      } catch (err) {
        const e = err as { code?: unknown; message?: unknown };
        if (typeof e.code !== 'string') throw err;
        return { check: { ...base, error: { code: e.code, message: String(e.message) } } };
      }
    },
  );
}
