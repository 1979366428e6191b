/** v0 links and custom content: v2 knowledge links and knowledge text, answering the started ingest job. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { endpoint, type EndpointSpec } from '../../http/route.js';
import { StartedJob } from '../v2/knowledge-schemas.js';
import { ChatbotParams } from '../v2/schemas.js';
import { v0 } from './legacy.js';

export const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'An absolute http(s) URL' });
export const ADDED =
  'Starts one ingest job (202), the same as v2; follow it in v2 (GET /api/v2/chatbots/{chatbotId}/ingest-jobs/{jobId}). 429 CHATBOT_PAGES_LIMIT_REACHED when the page quota is used up.';

/** A legacy route that starts one ingest job of the chatbot: 202 with the job, `message` in the legacy body. */
export const startsJob = (message: string) => ({
  ...v0(message, ['knowledge:write']),
  status: 202 as const,
  data: StartedJob,
  tags: ['knowledge'],
  params: ChatbotParams,
});

/**
 * `POST /chatbots/{chatbotId}/links` of v0 (`urls`) and of v1 (a source type): one legacy door
 * that answers 'Links added' and the started job; each version declares its body.
 */
export const LINKS_URL = '/chatbots/:chatbotId/links';
export const addsLinks = <S extends Pick<EndpointSpec, 'operationId' | 'summary' | 'description' | 'body'>>(spec: S) =>
  endpoint({ ...startsJob('Links added'), ...spec });

export default async function knowledge(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = app.services.knowledge;

  app.post(
    LINKS_URL,
    addsLinks({
      operationId: 'addLinks',
      summary: 'Add pages by URL (v2 POST .../knowledge/links)',
      description: `A URL already known updates its document. ${ADDED}`,
      body: Type.Object({ urls: Type.Array(Url, { minItems: 1, maxItems: 100 }) }, { additionalProperties: false }),
    }),
    async (request) => service.addLinks(request.auth, request.params.chatbotId, request.body.urls),
  );

  app.post(
    '/chatbots/:chatbotId/custom-content',
    endpoint({
      ...startsJob('Custom content added'),
      operationId: 'addCustomContent',
      summary: 'Add free text (v2 POST .../knowledge/text)',
      description: `Each call adds one text document (Markdown headings structure it); \`title\` defaults to "Custom content". The Chatbot's \`customContent\` shows the text while its document exists. ${ADDED}`,
      body: Type.Object(
        {
          content: Type.String({ minLength: 1, maxLength: 500_000, description: 'The text' }),
          title: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
        },
        { additionalProperties: false },
      ),
    }),
    async (request) =>
      service.addText(
        request.auth,
        request.params.chatbotId,
        { title: request.body.title ?? 'Custom content', text: request.body.content },
        true,
      ),
  );
}
