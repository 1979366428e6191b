/** The JSON body of a request to one of the local stand-ins (chat, embeddings) that speak a provider's protocol. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Answers with a JSON body. */
export function replyJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
