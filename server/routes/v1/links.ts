/**
 * The one v1 route: POST /api/v1/chatbots/{chatbotId}/links with a `sourceType`: URLS_LIST and
 * YOUTUBE take `urls`, WEBSITE and SITEMAP take `url` (v2 knowledge links, youtube, website and
 * sitemap). The legacy bodies and key of v0.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { validationFailed } from '../../domain/errors.js';
import { ADDED, addsLinks, LINKS_URL, Url } from '../v0/knowledge.js';

const SOURCE_TYPES = ['URLS_LIST', 'WEBSITE', 'SITEMAP', 'YOUTUBE'] as const;
type SourceType = (typeof SOURCE_TYPES)[number];
/** Which field each source type reads; the other is refused rather than ignored. */
const TAKES: Record<SourceType, 'urls' | 'url'> = {
  URLS_LIST: 'urls',
  YOUTUBE: 'urls',
  WEBSITE: 'url',
  SITEMAP: 'url',
};
/** Crawl options only a website (all three) or a sitemap (maxPages, syncIntervalMinutes) reads. */
const OPTIONS: Record<SourceType, string[]> = {
  URLS_LIST: [],
  YOUTUBE: [],
  WEBSITE: ['pathPrefix', 'maxPages', 'maxDepth', 'syncIntervalMinutes'],
  SITEMAP: ['maxPages', 'syncIntervalMinutes'],
};

const Body = Type.Object(
  {
    sourceType: Type.Enum([...SOURCE_TYPES], {
      description:
        'URLS_LIST: pages by URL; WEBSITE: crawl from `url`; SITEMAP: the pages of the sitemap at `url`; YOUTUBE: videos by URL',
    }),
    urls: Type.Optional(
      Type.Array(Url, { minItems: 1, maxItems: 100, description: 'URLS_LIST (at most 100) and YOUTUBE (at most 50)' }),
    ),
    url: Type.Optional(Url),
    pathPrefix: Type.Optional(
      Type.String({ pattern: '^/', maxLength: 500, description: 'WEBSITE: only pages under this path' }),
    ),
    maxPages: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'WEBSITE, SITEMAP' })),
    maxDepth: Type.Optional(Type.Integer({ minimum: 0, maximum: 50, description: 'WEBSITE' })),
    syncIntervalMinutes: Type.Optional(
      Type.Union([Type.Integer({ minimum: 60, maximum: 43_200 }), Type.Null()], {
        description: 'WEBSITE, SITEMAP: re-sync every N minutes; null: only on demand',
      }),
    ),
  },
  { additionalProperties: false },
);

export default async function v1Links(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = app.services.knowledge;

  app.post(
    LINKS_URL,
    addsLinks({
      operationId: 'addKnowledgeV1',
      summary: 'Add knowledge by source type (v2 POST .../knowledge/links, /website, /sitemap, /youtube)',
      description: `URLS_LIST and YOUTUBE take \`urls\`; WEBSITE and SITEMAP take \`url\` and their crawl options. A field the source type does not read is 400 VALIDATION_FAILED. ${ADDED}`,
      body: Body,
    }),
    async (request) => {
      const { sourceType, ...body } = request.body as Record<string, unknown> & { sourceType: SourceType };
      const wanted = TAKES[sourceType];
      const problems = [
        ...(body[wanted] === undefined
          ? [{ path: [wanted], message: `is required with sourceType ${sourceType}` }]
          : []),
        ...Object.keys(body)
          .filter((k) => k !== wanted && !OPTIONS[sourceType].includes(k))
          .map((k) => ({ path: [k], message: `is not read with sourceType ${sourceType}` })),
      ];
      if (sourceType === 'YOUTUBE' && Array.isArray(body.urls) && body.urls.length > 50)
        problems.push({ path: ['urls'], message: 'must have at most 50 items with sourceType YOUTUBE' });
      if (problems.length) throw validationFailed(problems);
      const { auth } = request;
      const { chatbotId } = request.params;
      const urls = body.urls as string[];
      const url = body.url as string;
      switch (sourceType) {
        case 'URLS_LIST':
          return service.addLinks(auth, chatbotId, urls);
        case 'YOUTUBE':
          return service.addYoutube(auth, chatbotId, urls);
        case 'WEBSITE':
          return service.addWebsite(auth, chatbotId, { ...body, url } as Parameters<typeof service.addWebsite>[2]);
        case 'SITEMAP':
          return service.addSitemap(auth, chatbotId, { ...body, url } as Parameters<typeof service.addSitemap>[2]);
      }
    },
  );
}
