/** What every legacy route shares: its access (a legacy key), its bodies, and reading a whole list. */
import type { Scope } from '../../../shared/scopes.js';
import type { AuthContext } from '../../domain/auth.js';
import type { ChatbotView } from '../../domain/chatbots.service.js';
import type { FastifyInstance } from 'fastify';
import { legacyChatbot } from './shapes.js';

/**
 * endpoint() fields of a legacy route: a legacy API key limited to `scopes` (its v2 twin's, which
 * the key owner's role must allow), legacy bodies with this success message.
 */
export const v0 = (message: string, scopes: Scope[]) => ({
  access: { legacyKey: true as const, scopes },
  legacy: { message },
});

/** Legacy lists are not paginated: every page of a v2 list, read in turn. */
export async function wholeList<T>(
  read: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await read(cursor);
    all.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return all;
}

/** The v0 Chatbot of a v2 chatbot view: its quick prompts, prompts, follow-up prompts and custom content with it. */
export async function presentChatbot(app: FastifyInstance, auth: AuthContext, view: ChatbotView) {
  const { starters, instructions, followups } = app.services.resources;
  const [s, i, f, c] = await Promise.all([
    starters.list(auth, view.id),
    instructions.list(auth, view.id),
    followups.list(auth, view.id),
    app.services.knowledge.customContent(auth, view.id),
  ]);
  return legacyChatbot(view, { starters: s, instructions: i, followups: f, customContent: c });
}
