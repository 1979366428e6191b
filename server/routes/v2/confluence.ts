/**
 * Confluence connections (spec 4.2 lists the spaces/pages routes; creating a connection and
 * importing a selection are ours). Disconnecting is DELETE /knowledge/sources/{connectionId}.
 * The static `confluence` segment wins over `:connectionId` in the router, and no connection id
 * can be "confluence" (ids are 22 random base64url characters).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { paged } from '../../http/envelope.js';
import { endpoint } from '../../http/route.js';
import { ConfluencePageSchema, ConfluenceSpaceSchema, SourceSchema, StartedJob } from './knowledge-schemas.js';
import { one, page } from './resource-schemas.js';
import { ChatbotParams, pageQuery } from './schemas.js';

const ConnectionId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'The Confluence connection (a source id from POST .../knowledge/sources/confluence)',
});
const SpaceKey = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[^/?#\\s]+$',
  description: 'A Confluence space key, e.g. DOCS or ~jane',
});
const PageId = Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9]+$', description: 'A Confluence page id' });
const SourceParams = Type.Object({ chatbotId: ChatbotParams.properties.chatbotId, connectionId: ConnectionId });

export default async function confluence(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { confluence: service } = app.services;
  const read = { access: { scopes: ['knowledge:read' as const] } };

  app.post(
    '/chatbots/:chatbotId/knowledge/sources/confluence',
    endpoint({
      access: { scopes: ['knowledge:write'] },
      status: 201,
      alsoStatus: [200],
      data: one('source', SourceSchema),
      tags: ['knowledge'],
      operationId: 'connectConfluence',
      summary: 'Connect a Confluence site (Cloud or Data Center)',
      description:
        'Tries the credentials once (GET /rest/api/user/current), then stores the connection with the token encrypted; no route ever returns it. ' +
        'Cloud (`deployment: "cloud"`, the default for *.atlassian.net): `email` + an Atlassian API token, Basic auth. Data Center (the default elsewhere): a personal access token, Bearer auth. ' +
        'One connection per site and account: connecting again updates its token, name and interval (200) instead of adding one (201). ' +
        'Refused credentials or a base URL without Confluence behind it: 400 VALIDATION_FAILED naming the field, nothing stored. ' +
        'Then list spaces and pages, and import a selection with POST .../knowledge/sources/{connectionId}/import. Disconnect with DELETE .../knowledge/sources/{connectionId}?confirm=true (its documents go too).',
      params: ChatbotParams,
      body: Type.Object(
        {
          baseUrl: Type.String({
            minLength: 1,
            maxLength: 2048,
            description:
              'The address Confluence opens at, e.g. https://example.atlassian.net or https://wiki.example.com/confluence',
          }),
          deployment: Type.Optional(
            Type.Enum(['cloud', 'datacenter'], { description: 'Default: cloud for *.atlassian.net, else datacenter' }),
          ),
          email: Type.Optional(
            Type.String({ maxLength: 320, description: 'The Atlassian account email (required for cloud)' }),
          ),
          apiToken: Type.String({
            minLength: 1,
            maxLength: 4096,
            description: 'Cloud API token or Data Center personal access token; stored encrypted, never returned',
          }),
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
          syncIntervalMinutes: Type.Optional(
            Type.Union([Type.Integer({ minimum: 60, maximum: 43_200 }), Type.Null()], {
              description: 'Re-sync the imported selection every N minutes (60 to 43200); null: only on demand',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    }),
    async (request, reply) => {
      const { source, created } = await service.connect(request.auth, request.params.chatbotId, request.body);
      if (!created) reply.code(200);
      return { source };
    },
  );

  app.get(
    '/chatbots/:chatbotId/knowledge/sources/confluence/spaces',
    endpoint({
      ...read,
      data: page('spaces', ConfluenceSpaceSchema),
      tags: ['knowledge'],
      operationId: 'listConfluenceSpaces',
      summary: 'Spaces the connected Confluence account can read',
      description:
        "Each with `imported` (already in the selection). Paginated over Confluence's own paging; 400 VALIDATION_FAILED when Confluence no longer accepts the stored token.",
      params: ChatbotParams,
      querystring: Type.Object(
        { ...pageQuery(20, 100).properties, connectionId: ConnectionId },
        { additionalProperties: false },
      ),
    }),
    async (request) => {
      const { connectionId, limit, cursor } = request.query;
      const page = await service.spaces(request.auth, request.params.chatbotId, connectionId, limit, cursor);
      return paged('spaces', page.spaces, limit, page.nextCursor);
    },
  );

  app.get(
    '/chatbots/:chatbotId/knowledge/sources/confluence/pages',
    endpoint({
      ...read,
      data: page('pages', ConfluencePageSchema),
      tags: ['knowledge'],
      operationId: 'listConfluencePages',
      summary: 'Current pages of a space (or of every readable space) to choose from',
      description:
        'Each with id, title, spaceKey, url, version, updatedAt and `imported`. 404 NOT_FOUND for a space Confluence does not know.',
      params: ChatbotParams,
      querystring: Type.Object(
        { ...pageQuery(20, 100).properties, connectionId: ConnectionId, spaceKey: Type.Optional(SpaceKey) },
        { additionalProperties: false },
      ),
    }),
    async (request) => {
      const { connectionId, spaceKey, limit, cursor } = request.query;
      const page = await service.pages(request.auth, request.params.chatbotId, connectionId, spaceKey, limit, cursor);
      return paged('pages', page.pages, limit, page.nextCursor);
    },
  );

  app.post(
    '/chatbots/:chatbotId/knowledge/sources/:connectionId/import',
    endpoint({
      access: { scopes: ['knowledge:write'] },
      status: 202,
      data: StartedJob,
      tags: ['knowledge'],
      operationId: 'importConfluence',
      summary: 'Import Confluence spaces and pages',
      description:
        "Adds the spaces (all their current pages) and pages to the connection's selection and imports them now as one ingest job (202, follow it with GET .../ingest-jobs/{jobId}). " +
        'The whole selection is fetched again by POST .../knowledge/sources/{connectionId}/sync and every syncIntervalMinutes; unchanged pages (same content hash) keep their chunks. ' +
        '429 CHATBOT_PAGES_LIMIT_REACHED when the page quota is used up.',
      params: SourceParams,
      body: Type.Object(
        {
          spaceKeys: Type.Optional(Type.Array(SpaceKey, { maxItems: 100 })),
          pageIds: Type.Optional(Type.Array(PageId, { maxItems: 500 })),
        },
        { additionalProperties: false },
      ),
    }),
    async (request) => {
      return service.importSelection(request.auth, request.params.chatbotId, request.params.connectionId, request.body);
    },
  );
}
