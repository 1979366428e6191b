/**
 * POST /mcp: the MCP server over the streamable HTTP transport (mcp/mcp-http.ts, loaded on first
 * use). The access hook authenticates it like a v2 route (any valid token; each tool checks the
 * scopes of its route), and its 401 names the metadata of the protected resource {site_url}/mcp
 * (RFC 9728, served by routes/oauth) as the MCP authorization spec asks. The transport is
 * stateless with no server-initiated messages, so GET (an SSE stream) and DELETE (ending a
 * session) answer 405. A request from a web page of another site is refused (the MCP transport
 * spec's Origin check, against DNS rebinding): agents are programs, which send no Origin.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../domain/errors.js';
import { endpoint } from '../http/route.js';
import { PROJECT_ROOT } from '../paths.js';

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

export async function mcpRoutes(app: FastifyInstance) {
  const version = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  let handler: Promise<Handler> | null = null;
  const site = new URL(app.config.siteUrl).origin;

  app.post(
    '/mcp',
    endpoint({
      access: { scopes: [], resource: '/mcp' },
      raw: true,
      hide: true,
      summary: 'The MCP server (streamable HTTP transport, JSON-RPC 2.0)',
    }),
    async (request, reply) => {
      const origin = request.headers.origin;
      if (origin !== undefined && origin !== site)
        throw new AppError('ORIGIN_NOT_ALLOWED', `Requests from pages of ${origin} are refused`, {
          hint: `Call /mcp from a program (it sends no Origin header) or from a page of ${site}`,
        });
      // The SDK loads on the first MCP request, not at every start (bench/README.md, startup).
      handler ??= import('../mcp/mcp-http.js').then((m) => m.mcpHandler(app, version));
      return (await handler)(request, reply);
    },
  );
}
