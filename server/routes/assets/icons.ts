/** `/icons/{file}`: uploaded chatbot icons (uploaded by `POST /api/v2/chatbots/{id}/icons`), cached for good. */
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../domain/errors.js';
import { endpoint } from '../../http/route.js';

export default async function icons(app: FastifyInstance) {
  app.get<{ Params: { file: string } }>(
    '/icons/:file',
    endpoint({ access: { public: true }, raw: true, hide: true }),
    async (request, reply) => {
      const icon = await app.services.icons.file(request.params.file);
      if (!icon) throw notFound('Icon');
      return reply
        .type(icon.mime)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'")
        .send(icon.bytes);
    },
  );
}
