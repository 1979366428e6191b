/** Route schema parts that only the OpenAPI document reads (route config `openapi`). A leaf: route.ts and access.ts both name it. */
export interface OpenApiParts {
  body?: { content: Record<string, { schema: unknown }> };
  response?: Record<string, unknown>;
}
