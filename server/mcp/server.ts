/**
 * The Parley MCP server for one caller: the tools (tools.ts), resources (resources.ts) and prompts
 * (prompts.ts) over the domain services, acting as the caller's token. `McpCatalogue` is built once,
 * on the first MCP request (each tool's route looked up, its input schema compiled); `serverFor`
 * makes a server per request, since every request carries its own token (the transport is
 * stateless: no session to pin a caller to one instance).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { requireScopes, type AuthContext } from '../domain/auth.js';
import { AppError } from '../domain/errors.js';
import type { RouteAccess } from '../http/access.js';
import type { Services } from '../plugins/services.js';
import { RouteMirror, type MirroredRoute, type RouteKey } from './mirror.js';
import { getPrompt, PROMPTS } from './prompts.js';
import { listResources, readResource, RESOURCE_TEMPLATES } from './resources.js';
import { TOOLS, type ToolContext, type ToolSpec } from './tools.js';

const INSTRUCTIONS = `Parley hosts AI chatbots that answer visitors from the knowledge their owner adds. Start with list_chatbots: every other tool takes a chatbotId from it. ask_chatbot tests what a chatbot answers; search_documents shows what it knows; add_website, add_sitemap, add_links and add_text teach it (follow the job with get_ingest_job); list_conversations and get_conversation read what visitors asked, and reply_to_conversation, take_over_conversation, hand_back_conversation and resolve_conversation act on them; list_knowledge_gaps and answer_knowledge_gap fix questions it could not answer. A tool the token lacks the scope for answers TOKEN_SCOPE_NOT_ALLOWED naming the scope.`;

export interface McpLog {
  error(obj: unknown, msg: string): void;
}

/** An AppError in the envelope's error shape; anything else is ours to log, not the caller's to read. */
function errorBody(err: unknown, log: McpLog) {
  if (err instanceof AppError) {
    return {
      code: err.code,
      message: err.message,
      ...(err.extra.hint && { hint: err.extra.hint }),
      ...(err.extra.details !== undefined && { details: err.extra.details }),
    };
  }
  log.error({ err }, 'an MCP request failed');
  return { code: 'INTERNAL_SERVER_ERROR', message: 'Something went wrong on our side' };
}

/** Resources and prompts answer failures as JSON-RPC errors (only tools have error results). */
function protocolError(err: unknown, log: McpLog): McpError {
  if (err instanceof McpError) return err;
  const body = errorBody(err, log);
  const code =
    err instanceof AppError
      ? err.status === 404
        ? -32002 // the MCP spec's "resource not found"
        : ErrorCode.InvalidRequest
      : ErrorCode.InternalError;
  return new McpError(code, body.message, body);
}

const json = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
});

export class McpCatalogue {
  private readonly mirror: RouteMirror;
  private readonly tools: { spec: ToolSpec<Record<string, unknown>>; route: MirroredRoute }[];

  constructor(routeTable: readonly RouteAccess[]) {
    this.mirror = new RouteMirror(routeTable);
    this.tools = TOOLS.map((spec) => ({ spec, route: this.mirror.mirror(spec.route, spec) }));
    // Routes named by resources and prompts are looked up now too: a renamed route fails every call.
    for (const key of [
      'GET /chatbots/:chatbotId/settings',
      'GET /chatbots/:chatbotId/documents',
      'GET /chatbots/:chatbotId/conversations',
      'GET /chatbots/:chatbotId/knowledge-gaps/:gapId',
    ] as const)
      this.mirror.scopes(key);
  }

  serverFor(services: Services, auth: AuthContext, log: McpLog, version: string): Server {
    const mirror = this.mirror;
    const ctx: ToolContext = {
      services,
      auth,
      scopes: (route: RouteKey) => mirror.scopes(route),
      require: (route: RouteKey) => requireScopes(auth, mirror.scopes(route)),
    };
    const server = new Server(
      { name: 'parley', title: 'Parley', version },
      { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
    );

    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: this.tools.map(({ spec, route }) => ({
        name: spec.name,
        title: spec.title,
        description: `${spec.description} Stands for ${spec.route.replace(' ', ' /api/v2')}. Needs the scope${route.scopes.length === 1 ? '' : 's'} ${route.scopes.join(', ') || '(none)'}.`,
        inputSchema: route.input,
        annotations: { title: spec.title, ...spec.annotations },
      })),
    }));

    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const tool = this.tools.find((t) => t.spec.name === request.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `There is no tool ${request.params.name}`);
      // A copy: the check fills in defaults.
      const args = { ...(request.params.arguments ?? {}) };
      try {
        // In the order of the routes: the token's scopes first, then the request.
        requireScopes(auth, tool.route.scopes);
        tool.route.check(args);
        return json(await tool.spec.run(ctx, args));
      } catch (err) {
        return { ...json({ error: errorBody(err, log) }), isError: true };
      }
    });

    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: [...RESOURCE_TEMPLATES],
    }));
    server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
      try {
        return await listResources(ctx, request.params?.cursor);
      } catch (err) {
        throw protocolError(err, log);
      }
    });
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      let read;
      try {
        read = await readResource(ctx, request.params.uri);
      } catch (err) {
        throw protocolError(err, log);
      }
      if (!read) throw new McpError(-32002, `There is no resource ${request.params.uri}`, { uri: request.params.uri });
      return read;
    });

    server.setRequestHandler(ListPromptsRequestSchema, async () => ({
      prompts: PROMPTS.map((p) => ({ ...p, arguments: [...p.arguments] })),
    }));
    server.setRequestHandler(GetPromptRequestSchema, async (request) => {
      const prompt = PROMPTS.find((p) => p.name === request.params.name);
      if (!prompt) throw new McpError(ErrorCode.InvalidParams, `There is no prompt ${request.params.name}`);
      const args = request.params.arguments ?? {};
      const missing = prompt.arguments.filter((a) => a.required && !args[a.name]).map((a) => a.name);
      if (missing.length) throw new McpError(ErrorCode.InvalidParams, `The prompt needs ${missing.join(' and ')}`);
      try {
        return (await getPrompt(ctx, prompt.name, args))!;
      } catch (err) {
        throw protocolError(err, log);
      }
    });
    return server;
  }
}
