/**
 * `parley mcp`: the MCP server for desktop agents, over stdio. It relays every JSON-RPC message
 * between stdin/stdout and the running server's /mcp (streamable HTTP) with the user's token,
 * so the tools run in the server: one implementation, background ingestion and live delivery of
 * replies to visitors included, and no database on the agent's machine. stdout carries only
 * the protocol; anything for a person goes to stderr.
 */
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface BridgeOptions {
  /** The site address, e.g. https://chat.example.com (its /mcp is the endpoint). */
  server: string;
  token: string;
  fetch: typeof globalThis.fetch;
  /** Where a person reads what went wrong (stderr). */
  warn(line: string): void;
}

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number; method: string } =>
  'method' in m && 'id' in m;

/** Why a message could not be relayed, in words the agent can show its user. */
function relayFailure(server: string, err: unknown): string {
  if (err instanceof StreamableHTTPError && err.code === 401)
    return `${server} refused the token (401): it is unknown or revoked. Run parley login --server ${server} again, or set PARLEY_TOKEN to a valid token.`;
  if (err instanceof StreamableHTTPError && err.code === 403)
    return `${server} refused the request (403): the token's account may be inactive.`;
  return `Could not reach ${server}/mcp: ${(err as Error).message}`;
}

/** Relays until stdin closes; resolves then. */
export async function bridgeStdio(options: BridgeOptions): Promise<void> {
  const remote = new StreamableHTTPClientTransport(new URL(`${options.server}/mcp`), {
    fetch: options.fetch,
    requestInit: { headers: { authorization: `Bearer ${options.token}` } },
  });
  const local = new StdioServerTransport();
  // The protocol version the client and server agreed on goes on every later request (a header).
  const initializing = new Set<string | number>();

  local.onmessage = (message) => {
    if (isRequest(message) && message.method === 'initialize') initializing.add(message.id);
    remote.send(message).catch(async (err: unknown) => {
      const text = relayFailure(options.server, err);
      options.warn(text);
      // A request gets an answer whatever happens; a notification has nobody to tell.
      if (isRequest(message))
        await local.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: text } });
    });
  };
  remote.onmessage = (message) => {
    if ('id' in message && initializing.delete(message.id as string | number) && 'result' in message) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') remote.setProtocolVersion(version);
    }
    void local.send(message);
  };
  remote.onerror = (err) => options.warn(relayFailure(options.server, err));
  // A line on stdin that is not JSON-RPC: the agent's bug, said where its user can read it.
  local.onerror = (err) => options.warn(`Ignored a message from the agent: ${err.message}`);

  await remote.start();
  const closed = new Promise<void>((resolve) => {
    local.onclose = resolve;
    // StdioServerTransport watches data and errors on stdin, not its end: an agent that quits closes stdin.
    process.stdin.once('end', () => void local.close());
  });
  await local.start();
  await closed;
  await remote.close();
}
