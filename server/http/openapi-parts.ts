/** Route schema parts that only the OpenAPI document reads (route config `openapi`). A leaf: route.ts and access.ts both name it. */
export interface OpenApiParts {
  body?: { content: Record<string, { schema: unknown }> };
  response?: Record<string, unknown>;
}

/** A multipart/form-data request body as the document states it (`format: binary` for a file). */
export const multipartBody = (schema: unknown): Required<Pick<OpenApiParts, 'body'>> => ({
  body: { content: { 'multipart/form-data': { schema } } },
});
