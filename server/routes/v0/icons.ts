/** v0 icons: the v2 upload, and a delete that names the type in the query and needs no confirmation. */
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { ICON_TYPES } from '../../../shared/settings.js';
import { endpoint } from '../../http/route.js';
import { DeletedIcon, Icon, ICON_FORM, IconTypeQuery, readIconUpload } from '../v2/icons.js';
import { ChatbotParams } from '../v2/schemas.js';
import { v0 } from './legacy.js';

export default async function icons(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  await app.register(multipart, {
    limits: { fileSize: app.config.iconMaxBytes, files: 1, fields: 4, fieldSize: 1024, parts: 5, headerPairs: 50 },
  });
  const tags = ['icons'];

  app.post(
    '/chatbots/:chatbotId/icons',
    endpoint({
      ...v0('Icon uploaded', ['settings:write']),
      status: 201,
      data: Icon,
      tags,
      summary: 'Upload an icon (multipart/form-data; v2 POST .../icons)',
      description: `${ICON_FORM} The icon replaces the previous one of that type and its URL goes into the matching *IconSrcId setting.`,
      params: ChatbotParams,
      querystring: IconTypeQuery,
    }),
    async (request) => {
      const { type, bytes } = await readIconUpload(request, request.query.type);
      return (await app.services.icons.upload(request.auth, request.params.chatbotId, type, bytes)).icon;
    },
  );

  app.delete(
    '/chatbots/:chatbotId/icons',
    endpoint({
      ...v0('Icon deleted', ['settings:write']),
      data: DeletedIcon,
      tags,
      summary: 'Delete the icon of a type (v2 DELETE .../icons/{iconType})',
      description: 'v0 names the type in the query (`?type=`); no confirmation. The *IconSrcId setting is cleared.',
      params: ChatbotParams,
      querystring: Type.Object(
        { type: Type.Enum(Object.keys(ICON_TYPES), { description: 'The icon to delete' }) },
        { additionalProperties: false },
      ),
    }),
    async (request) =>
      (await app.services.icons.remove(request.auth, request.params.chatbotId, request.query.type, true)).deletedIcon,
  );
}
