import multipart from '@fastify/multipart';
import { join } from 'node:path';
import { Uploads } from '../../http/uploads.js';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { validationFailed } from '../../domain/errors.js';
import { paged } from '../../http/envelope.js';
import { multipartBody } from '../../http/openapi-parts.js';
import { endpoint } from '../../http/route.js';
import {
  ChunkSchema,
  DocumentSchema,
  JobSchema,
  PassageSchema,
  SourceSchema,
  StartedJob,
  UploadLimitsSchema,
} from './knowledge-schemas.js';
import { all, one, page } from './resource-schemas.js';
import { ChatbotParams, ConfirmQuery, pageQuery, Pagination } from './schemas.js';

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'An absolute http(s) URL' });
const Interval = Type.Optional(
  Type.Union([Type.Integer({ minimum: 60, maximum: 43_200 }), Type.Null()], {
    description: 'Re-sync every N minutes (60 to 43200); null: only on demand',
  }),
);
const SourceParams = Type.Object({
  chatbotId: ChatbotParams.properties.chatbotId,
  connectionId: Type.String({ minLength: 1, maxLength: 64 }),
});
const JobParams = Type.Object({
  chatbotId: ChatbotParams.properties.chatbotId,
  jobId: Type.String({ minLength: 1, maxLength: 64 }),
});
const DocumentParams = Type.Object({
  chatbotId: ChatbotParams.properties.chatbotId,
  documentId: Type.String({ minLength: 1, maxLength: 64 }),
});
const DeletedDocuments = Type.Object({
  deletedDocuments: Type.Array(DocumentSchema),
  notFound: Type.Array(Type.String()),
});
const ADDED =
  'Starts one ingest job (202); follow it with GET /chatbots/{chatbotId}/ingest-jobs/{jobId}. 429 CHATBOT_PAGES_LIMIT_REACHED when the page quota is used up.';

/** Most files one upload takes (multipart `files` limit). */
const MAX_FILES = 10;

/** A display name from an upload's file name: no directories, no control characters. */
export function safeFileName(raw: string | undefined): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/^\.+/, '')
    .trim()
    .slice(0, 200);
  return clean || 'upload';
}

export default async function knowledge(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { knowledge: service } = app.services;
  await app.register(multipart, {
    limits: {
      fileSize: app.config.fileMaxBytes,
      files: MAX_FILES,
      fields: 10,
      fieldSize: 1024,
      parts: 20,
      headerPairs: 100,
    },
  });
  const write = { access: { scopes: ['knowledge:write' as const] }, status: 202 as const, data: StartedJob };
  const uploads = new Uploads(
    { dir: join(app.config.dataDir, 'uploads'), ...app.config.uploads },
    app.store.uploadLeases,
  );

  app.post(
    '/chatbots/:chatbotId/knowledge/links',
    endpoint({
      ...write,
      tags: ['knowledge'],
      operationId: 'addKnowledgeLinks',
      summary: 'Add pages by URL (HTML, PDF, DOCX, text)',
      description: `A URL already known updates its document. ${ADDED}`,
      params: ChatbotParams,
      body: Type.Object({ urls: Type.Array(Url, { minItems: 1, maxItems: 100 }) }, { additionalProperties: false }),
    }),
    async (request) => {
      return service.addLinks(request.auth, request.params.chatbotId, request.body.urls);
    },
  );

  app.post(
    '/chatbots/:chatbotId/knowledge/website',
    endpoint({
      ...write,
      tags: ['knowledge'],
      operationId: 'crawlKnowledgeWebsite',
      summary: 'Crawl a website from a start URL',
      description: `Same origin only (optionally under pathPrefix), robots.txt and crawl-delay honoured, its Sitemap: lines followed. ${ADDED}`,
      params: ChatbotParams,
      body: Type.Object(
        {
          url: Url,
          pathPrefix: Type.Optional(Type.String({ pattern: '^/', maxLength: 500 })),
          maxPages: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
          maxDepth: Type.Optional(Type.Integer({ minimum: 0, maximum: 50 })),
          syncIntervalMinutes: Interval,
        },
        { additionalProperties: false },
      ),
    }),
    async (request) => {
      return service.addWebsite(request.auth, request.params.chatbotId, request.body);
    },
  );

  app.post(
    '/chatbots/:chatbotId/knowledge/sitemap',
    endpoint({
      ...write,
      tags: ['knowledge'],
      operationId: 'importKnowledgeSitemap',
      summary: 'Import the pages of a sitemap or sitemap index (gzip too)',
      description: ADDED,
      params: ChatbotParams,
      body: Type.Object(
        {
          url: Url,
          maxPages: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
          syncIntervalMinutes: Interval,
        },
        { additionalProperties: false },
      ),
    }),
    async (request) => {
      return service.addSitemap(request.auth, request.params.chatbotId, request.body);
    },
  );

  app.post(
    '/chatbots/:chatbotId/knowledge/youtube',
    endpoint({
      ...write,
      tags: ['knowledge'],
      operationId: 'addKnowledgeYoutube',
      summary: 'Add YouTube videos: title and caption transcript with timestamps',
      description: ADDED,
      params: ChatbotParams,
      body: Type.Object({ urls: Type.Array(Url, { minItems: 1, maxItems: 50 }) }, { additionalProperties: false }),
    }),
    async (request) => {
      return service.addYoutube(request.auth, request.params.chatbotId, request.body.urls);
    },
  );

  app.post(
    '/chatbots/:chatbotId/knowledge/text',
    endpoint({
      ...write,
      tags: ['knowledge'],
      operationId: 'addKnowledgeText',
      summary: 'Add free text (Markdown headings structure it)',
      description: ADDED,
      params: ChatbotParams,
      body: Type.Object(
        {
          title: Type.String({ minLength: 1, maxLength: 300 }),
          text: Type.String({ minLength: 1, maxLength: 500_000 }),
        },
        { additionalProperties: false },
      ),
    }),
    async (request) => {
      return service.addText(request.auth, request.params.chatbotId, request.body);
    },
  );

  app.post(
    '/chatbots/:chatbotId/knowledge/files',
    endpoint({
      ...write,
      tags: ['knowledge'],
      operationId: 'uploadKnowledgeFiles',
      summary: 'Upload files (multipart/form-data, field `files`, up to 10)',
      documented: multipartBody(
        Type.Object({
          files: Type.Array(Type.String({ format: 'binary' }), {
            minItems: 1,
            maxItems: MAX_FILES,
            description: 'One part named `files` per file, with its file name',
          }),
        }),
      ),
      description: `PDF, DOCX, TXT, Markdown, HTML or CSV, decided by content, not by name or claimed type. Each at most FILE_MAX_BYTES, all together at most UPLOAD_MAX_TOTAL_BYTES (413 beyond, checked while the bytes arrive); at most UPLOADS_PER_ACCOUNT uploads of one account at once (429 RATE_LIMITED beyond). ${ADDED}`,
      params: ChatbotParams,
    }),
    async (request) => {
      if (!request.isMultipart())
        throw validationFailed(
          [{ path: ['files'], message: 'send the files as multipart/form-data' }],
          'The upload must be multipart/form-data',
        );
      return uploads.receive(request, request.auth.account.id, safeFileName, async (files) => {
        const empty = files.filter((f) => !f.size);
        if (!files.length || empty.length)
          throw validationFailed([
            { path: ['files'], message: files.length ? `${empty[0].name} is empty` : 'attach at least one file' },
          ]);
        return service.addFiles(request.auth, request.params.chatbotId, files);
      });
    },
  );

  app.get(
    '/chatbots/:chatbotId/knowledge/files/limits',
    endpoint({
      access: { scopes: ['knowledge:read'] },
      data: one('limits', UploadLimitsSchema),
      tags: ['knowledge'],
      operationId: 'getKnowledgeUploadLimits',
      summary: 'What POST .../knowledge/files accepts: file count, sizes and types',
      description: 'So a client can tell the user the limits before uploading instead of after a 413.',
      params: ChatbotParams,
    }),
    async (request) => {
      await app.services.chatbots.reach(request.auth, request.params.chatbotId);
      return {
        limits: {
          maxFiles: MAX_FILES,
          maxFileBytes: app.config.fileMaxBytes,
          maxTotalBytes: app.config.uploads.maxTotalBytes,
          types: ['pdf', 'docx', 'txt', 'md', 'html', 'csv'],
        },
      };
    },
  );

  app.get(
    '/chatbots/:chatbotId/knowledge/sources',
    endpoint({
      access: { scopes: ['knowledge:read'] },
      data: all('sources', SourceSchema),
      tags: ['knowledge'],
      summary: 'Every source of the chatbot: type, status, document count, last sync',
      params: ChatbotParams,
    }),
    async (request) => ({ sources: await service.sources(request.auth, request.params.chatbotId) }),
  );

  app.get(
    '/chatbots/:chatbotId/knowledge/sources/:connectionId',
    endpoint({
      access: { scopes: ['knowledge:read'] },
      data: one('source', SourceSchema),
      tags: ['knowledge'],
      summary: 'One source (connection); credentials are never returned',
      params: SourceParams,
    }),
    async (request) => ({
      source: await service.getSource(request.auth, request.params.chatbotId, request.params.connectionId),
    }),
  );

  app.get(
    '/chatbots/:chatbotId/knowledge/sources/:connectionId/documents',
    endpoint({
      access: { scopes: ['knowledge:read'] },
      data: page('documents', DocumentSchema),
      tags: ['knowledge'],
      summary: "A source's documents",
      params: SourceParams,
      querystring: pageQuery(50, 100),
    }),
    async (request) => {
      const { limit, cursor } = request.query;
      const page = await service.sourceDocuments(
        request.auth,
        request.params.chatbotId,
        request.params.connectionId,
        limit,
        cursor,
      );
      return paged('documents', page.documents, limit, page.nextCursor);
    },
  );

  app.post(
    '/chatbots/:chatbotId/knowledge/sources/:connectionId/sync',
    endpoint({
      ...write,
      tags: ['knowledge'],
      summary: 'Re-sync a source now',
      description:
        'Re-crawls a website or sitemap, re-fetches listed links and videos, re-imports a connected source. Unchanged content (same hash) keeps its chunks. When a job of the source is already queued or running, that job is returned.',
      params: SourceParams,
    }),
    async (request) => {
      return service.resync(request.auth, request.params.chatbotId, request.params.connectionId);
    },
  );

  app.delete(
    '/chatbots/:chatbotId/knowledge/sources/:connectionId',
    endpoint({
      access: { scopes: ['knowledge:delete'] },
      data: one('deletedSource', SourceSchema),
      tags: ['knowledge'],
      summary: 'Delete a source with all its documents (needs ?confirm=true)',
      params: SourceParams,
      querystring: ConfirmQuery,
    }),
    async (request) =>
      service.deleteSource(
        request.auth,
        request.params.chatbotId,
        request.params.connectionId,
        request.query.confirm === true,
      ),
  );

  app.get(
    '/chatbots/:chatbotId/documents',
    endpoint({
      access: { scopes: ['knowledge:read'] },
      data: page('documents', DocumentSchema),
      tags: ['documents'],
      summary: "The chatbot's documents, newest first",
      params: ChatbotParams,
      querystring: Type.Object(
        {
          ...pageQuery(50, 100).properties,
          sourceId: Type.Optional(Type.String({ maxLength: 64 })),
          status: Type.Optional(Type.Enum(['pending', 'indexed', 'failed', 'skipped'])),
          q: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 200,
              description: 'Only documents whose title or URL contains this',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    }),
    async (request) => {
      const q = request.query;
      const page = await service.documents(
        request.auth,
        request.params.chatbotId,
        { limit: q.limit, cursor: q.cursor, sourceId: q.sourceId, status: q.status as never, text: q.q },
        q.sourceId || q.status || q.q
          ? `documents:${q.sourceId ?? ''}:${q.status ?? ''}:${q.q?.toLowerCase() ?? ''}`
          : 'documents',
      );
      return paged('documents', page.documents, q.limit, page.nextCursor);
    },
  );

  app.get(
    '/chatbots/:chatbotId/knowledge/search',
    endpoint({
      access: { scopes: ['knowledge:read'] },
      data: all('passages', PassageSchema),
      tags: ['documents'],
      operationId: 'searchKnowledge',
      summary: "Search the chatbot's indexed documents: the best passages, best first",
      description:
        'The same retrieval the answers use (words, and vectors when embeddings are configured), without the relevance gate: what the chatbot could cite for `q`.',
      params: ChatbotParams,
      querystring: Type.Object(
        {
          q: Type.String({ minLength: 1, maxLength: 1000, description: 'What to look for, in words' }),
          limit: Type.Integer({ minimum: 1, maximum: 50, default: 10 }),
        },
        { additionalProperties: false },
      ),
    }),
    async (request) => ({
      passages: await service.search(request.auth, request.params.chatbotId, request.query.q, request.query.limit),
    }),
  );

  app.get(
    '/chatbots/:chatbotId/documents/:documentId',
    endpoint({
      access: { scopes: ['knowledge:read'] },
      data: one('document', DocumentSchema),
      tags: ['documents'],
      summary: 'One document',
      params: DocumentParams,
    }),
    async (request) => ({
      document: await service.document(request.auth, request.params.chatbotId, request.params.documentId),
    }),
  );

  app.get(
    '/chatbots/:chatbotId/documents/:documentId/chunks',
    endpoint({
      access: { scopes: ['knowledge:read'] },
      data: Type.Object({ document: DocumentSchema, chunks: Type.Array(ChunkSchema), pagination: Pagination }),
      tags: ['documents'],
      summary: 'The chunks a document was split into, in reading order: what answers are built from',
      params: DocumentParams,
      querystring: pageQuery(50, 100),
    }),
    async (request) => {
      const { limit, cursor } = request.query;
      const { chatbotId, documentId } = request.params;
      const result = await service.documentChunks(request.auth, chatbotId, documentId, limit, cursor);
      return { document: result.document, ...paged('chunks', result.chunks, limit, result.nextCursor) };
    },
  );

  app.post(
    '/chatbots/:chatbotId/documents/delete',
    endpoint({
      access: { scopes: ['knowledge:delete'] },
      data: DeletedDocuments,
      tags: ['documents'],
      summary: 'Delete documents; their chunks leave the index',
      description:
        'Needs `"confirm": true` in the body (or ?confirm=true); without it 400 CONFIRMATION_REQUIRED and nothing is removed.',
      params: ChatbotParams,
      querystring: ConfirmQuery,
      body: Type.Object(
        {
          documentIds: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 500 }),
          confirm: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    }),
    async (request) =>
      service.deleteDocuments(
        request.auth,
        request.params.chatbotId,
        request.body.documentIds,
        request.body.confirm === true || request.query.confirm === true,
      ),
  );

  app.get(
    '/chatbots/:chatbotId/ingest-jobs',
    endpoint({
      access: { scopes: ['knowledge:read'] },
      data: page('jobs', JobSchema),
      tags: ['documents'],
      summary: 'Ingest jobs, newest first: status, counts and per-URL errors',
      params: ChatbotParams,
      querystring: pageQuery(50, 100),
    }),
    async (request) => {
      const { limit, cursor } = request.query;
      const page = await service.jobs(request.auth, request.params.chatbotId, limit, cursor);
      return paged('jobs', page.jobs, limit, page.nextCursor);
    },
  );

  app.get(
    '/chatbots/:chatbotId/ingest-jobs/:jobId',
    endpoint({
      access: { scopes: ['knowledge:read'] },
      data: one('job', JobSchema),
      tags: ['documents'],
      summary: 'One ingest job',
      params: JobParams,
    }),
    async (request) => ({ job: await service.job(request.auth, request.params.chatbotId, request.params.jobId) }),
  );

  app.post(
    '/chatbots/:chatbotId/ingest-jobs/:jobId/cancel',
    endpoint({
      access: { scopes: ['knowledge:write'] },
      data: one('job', JobSchema),
      tags: ['documents'],
      summary: 'Cancel a queued or running job',
      description:
        'A queued job is cancelled at once; a running one stops after the items in flight. Documents already indexed stay.',
      params: JobParams,
    }),
    async (request) => ({ job: await service.cancelJob(request.auth, request.params.chatbotId, request.params.jobId) }),
  );
}
