/**
 * The generated part of the client, from the v2 OpenAPI document: `api.ts`, the types of every
 * path, operation and named schema (openapi-typescript), and `operations.ts`, the writes that
 * honour an Idempotency-Key (the operations that declare the header) and those whose body is
 * multipart/form-data, which the client reads at run time. A file (`format: binary`) is a Blob. The build writes them into src/generated/; the type test into a temporary copy.
 */
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

const HEADER = '// Generated from openapi.json by packages/client/scripts/generate.ts at build time: do not edit.\n';
const WRITES = new Set(['post', 'put', 'patch', 'delete']);

interface Operation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, unknown> };
}

const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'));

export async function generateSources(doc: Record<string, unknown>): Promise<Record<string, string>> {
  const api = astToString(
    await openapiTS(doc as never, {
      transform: (schema) => (schema.format === 'binary' ? BLOB : undefined),
    }),
  );
  const idempotent: string[] = [];
  const multipart: string[] = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!WRITES.has(method) || !op || typeof op !== 'object') continue;
      const name = `${method.toUpperCase()} ${path}`;
      if (op.parameters?.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'))
        idempotent.push(name);
      if (op.requestBody?.content?.['multipart/form-data']) multipart.push(name);
    }
  }
  const operations = [
    HEADER,
    '/** The writes whose operation reads an Idempotency-Key header, as `METHOD /path` of the document. */',
    `export const IDEMPOTENT_WRITES: ReadonlySet<string> = new Set(${JSON.stringify(idempotent.sort(), null, 2)});`,
    '',
    '/** The writes whose body is multipart/form-data: the client sends their body object as FormData. */',
    `export const MULTIPART_WRITES: ReadonlySet<string> = new Set(${JSON.stringify(multipart.sort(), null, 2)});`,
    '',
  ].join('\n');
  return { 'api.ts': HEADER + api, 'operations.ts': operations };
}
