/**
 * The streamable HTTP transport of the MCP server (routes/mcp.ts loads this module on the first
 * request to /mcp, so a start does not load the SDK): stateless, each request carries its Bearer
 * token and gets a server acting as it, and answers are JSON rather than SSE streams.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { McpCatalogue } from './server.js';

/** Headers about this connection and the body already read, not about the MCP request. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade']);

export function mcpHandler(app: FastifyInstance, version: string) {
  // Every route is registered by the first request: each tool finds the v2 route it stands for.
  const catalogue = new McpCatalogue(app.routeTable);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const server = catalogue.serverFor(app.services, request.auth, request.log, version);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (value === undefined || HOP_BY_HOP.has(name)) continue;
        for (const v of [value].flat()) headers.append(name, v);
      }
      const response = await transport.handleRequest(
        new Request(`http://mcp.invalid${request.url}`, { method: 'POST', headers }),
        { parsedBody: request.body },
      );
      const body = await response.text();
      response.headers.forEach((value, name) => void reply.header(name, value));
      return reply.code(response.status).send(body);
    } finally {
      await server.close();
    }
  };
}
