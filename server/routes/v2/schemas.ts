/** Request schemas shared by v2 routes. */
import Type from 'typebox';

/** A moment in responses: an RFC 3339 date-time in UTC, e.g. 2026-05-01T12:00:00.000Z. */
export const Time = Type.String({ format: 'date-time', description: 'ISO-8601 UTC' });

export const ChatbotParams = Type.Object({ chatbotId: Type.String({ minLength: 1, maxLength: 64 }) });

/** `limit` (1..max, default def) and an opaque `cursor` (spec 4.2). */
export const pageQuery = (def: number, max: number) =>
  Type.Object(
    {
      limit: Type.Integer({
        minimum: 1,
        maximum: max,
        default: def,
        description: `Page size, 1 to ${max} (default ${def})`,
      }),
      cursor: Type.Optional(Type.String({ maxLength: 512, description: 'meta.nextCursor of the previous page' })),
    },
    { additionalProperties: false },
  );

export const ConfirmQuery = Type.Object(
  {
    confirm: Type.Optional(
      Type.Boolean({ description: 'Must be true; without it nothing is deleted (400 CONFIRMATION_REQUIRED)' }),
    ),
  },
  { additionalProperties: false },
);

export const Pagination = Type.Object(
  {
    limit: Type.Integer(),
    hasNextPage: Type.Boolean(),
    nextCursor: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'Pagination' },
);
