import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { ICON_TYPES } from '../../../shared/settings.js';
import { validationFailed } from '../../domain/errors.js';
import { ChatbotParams, ConfirmQuery, Time } from './schemas.js';
import { multipartBody } from '../../http/openapi-parts.js';
import { endpoint } from '../../http/route.js';
import { one } from './resource-schemas.js';

const iconTypes = Object.keys(ICON_TYPES);
export const Icon = Type.Object({
  id: Type.String(),
  type: Type.String(),
  mime: Type.String(),
  size: Type.Integer({ description: 'Bytes' }),
  url: Type.String({ description: 'Public URL of the image' }),
  setting: Type.String({ description: 'The *IconSrcId setting that now holds the URL' }),
  createdAt: Time,
});
export const DeletedIcon = Type.Object({ type: Type.String(), setting: Type.String(), ids: Type.Array(Type.String()) });

export const ICON_FORM = `Form fields: \`type\` (${iconTypes.join(', ')}; or ?type=) then \`file\`: PNG, JPEG, GIF, WebP or ICO, checked by content.`;
export const IconTypeQuery = Type.Object(
  { type: Type.Optional(Type.Enum(iconTypes)) },
  { additionalProperties: false },
);

/** The icon type and image of a multipart upload (also read by the legacy v0 route). */
export async function readIconUpload(
  request: FastifyRequest,
  queryType: string | undefined,
): Promise<{ type: string; bytes: Buffer }> {
  if (!request.isMultipart()) {
    throw validationFailed(
      [{ path: ['file'], message: 'send the image as multipart/form-data' }],
      'The upload must be multipart/form-data',
    );
  }
  let type = queryType;
  let bytes: Buffer | null = null;
  for await (const part of request.parts()) {
    if (part.type === 'file') bytes = await part.toBuffer();
    else if (part.fieldname === 'type') type = String(part.value);
  }
  const missing = [
    ...(!type ? [{ path: ['type'], message: `is required: one of ${iconTypes.join(', ')}` }] : []),
    ...(!bytes?.length ? [{ path: ['file'], message: 'is required: the image file' }] : []),
  ];
  if (missing.length) throw validationFailed(missing);
  return { type: type!, bytes: bytes! };
}

export default async function icons(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // Multipart is read only by this plugin's routes; everywhere else it is a 415.
  await app.register(multipart, {
    limits: { fileSize: app.config.iconMaxBytes, files: 1, fields: 4, fieldSize: 1024, parts: 5, headerPairs: 50 },
  });

  app.post(
    '/chatbots/:chatbotId/icons',
    endpoint({
      access: { scopes: ['settings:write'] },
      status: 201,
      data: one('icon', Icon),
      tags: ['icons'],
      operationId: 'uploadIcon',
      summary: 'Upload an icon (multipart/form-data)',
      documented: multipartBody(
        Type.Object({
          type: Type.Optional(Type.Enum(iconTypes, { description: 'The icon type (or ?type=); before `file`' })),
          file: Type.String({ format: 'binary', description: 'The image' }),
        }),
      ),
      description: `${ICON_FORM} The icon replaces the previous one of that type and its public URL goes into the matching *IconSrcId setting.`,
      params: ChatbotParams,
      querystring: IconTypeQuery,
    }),
    async (request) => {
      const { type, bytes } = await readIconUpload(request, request.query.type);
      return app.services.icons.upload(request.auth, request.params.chatbotId, type, bytes);
    },
  );

  app.delete(
    '/chatbots/:chatbotId/icons/:iconType',
    endpoint({
      access: { scopes: ['settings:write'] },
      data: one('deletedIcon', DeletedIcon),
      tags: ['icons'],
      summary: 'Delete the icon of a type (needs ?confirm=true)',
      params: Type.Object({ chatbotId: ChatbotParams.properties.chatbotId, iconType: Type.String({ maxLength: 32 }) }),
      querystring: ConfirmQuery,
    }),
    async (request) =>
      app.services.icons.remove(
        request.auth,
        request.params.chatbotId,
        request.params.iconType,
        request.query.confirm === true,
      ),
  );
}
