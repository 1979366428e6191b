/**
 * MCP resources: a chatbot's settings and its documents, as JSON an agent can read into its
 * context. Each reads through the service its v2 route calls, with that route's scopes.
 */
import type { ToolContext } from './tools.js';

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: 'parley://chatbots/{chatbotId}/settings',
    name: 'chatbot-settings',
    title: "A chatbot's settings",
    description: 'Every settings field of the chatbot (title, description, chat mode, appearance, localization, ...)',
    mimeType: 'application/json',
  },
  {
    uriTemplate: 'parley://chatbots/{chatbotId}/documents',
    name: 'chatbot-documents',
    title: "A chatbot's documents",
    description: "The documents in the chatbot's knowledge, newest first: title, url, status, size (at most 500)",
    mimeType: 'application/json',
  },
] as const;

const URI = /^parley:\/\/chatbots\/([^/]{1,64})\/(settings|documents)$/;
/** The documents a resource holds: the newest pages up to this many. */
const MAX_DOCUMENTS = 500;

/** The resources of the chatbots a page of list_chatbots holds. */
export async function listResources(ctx: ToolContext, cursor: string | undefined) {
  ctx.require('GET /chatbots');
  const page = await ctx.services.chatbots.list(ctx.auth, 50, cursor);
  return {
    resources: page.chatbots.flatMap((c) => [
      {
        uri: `parley://chatbots/${c.id}/settings`,
        name: `${c.title}: settings`,
        mimeType: 'application/json',
      },
      {
        uri: `parley://chatbots/${c.id}/documents`,
        name: `${c.title}: documents`,
        mimeType: 'application/json',
      },
    ]),
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
  };
}

/** The resource at `uri`, or null when no resource has that form. */
export async function readResource(ctx: ToolContext, uri: string) {
  const match = URI.exec(uri);
  if (!match) return null;
  let chatbotId: string;
  try {
    chatbotId = decodeURIComponent(match[1]);
  } catch {
    return null; // a broken %-escape names no chatbot
  }
  let body: unknown;
  if (match[2] === 'settings') {
    ctx.require('GET /chatbots/:chatbotId/settings');
    const chatbot = await ctx.services.chatbots.get(ctx.auth, chatbotId);
    body = { settings: { title: chatbot.title, description: chatbot.description, ...chatbot.settings } };
  } else {
    ctx.require('GET /chatbots/:chatbotId/documents');
    const documents = [];
    let cursor: string | undefined;
    do {
      const page = await ctx.services.knowledge.documents(ctx.auth, chatbotId, { limit: 100, cursor });
      documents.push(...page.documents);
      cursor = page.nextCursor ?? undefined;
    } while (cursor && documents.length < MAX_DOCUMENTS);
    body = { documents, more: !!cursor };
  }
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(body, null, 2) }] };
}
