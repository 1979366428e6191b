/**
 * A team member as visitors see them, one rule for every frame that names them (the take-over
 * condition, their replies live and replayed, their typing, the visitor's conversation list):
 * the display name they were given (a member's `name`), else null, for which the widget writes
 * its own "support team" text in the visitor's language. Never derived from the e-mail address:
 * an address reaches visitors only when someone chose it as the name.
 */
import type { TeamMember } from '../../shared/protocol.js';
import type { ChatbotRecord, UserRecord } from './ports.js';

export const teamDisplayName = (user: Pick<UserRecord, 'name'> | null | undefined): string | null =>
  user?.name?.trim() || null;

/** `user` is null when the member was deleted since: the id stays, the name goes. */
export function teamMember(
  chatbot: Pick<ChatbotRecord, 'settings'>,
  id: string,
  user: Pick<UserRecord, 'name'> | null | undefined,
): TeamMember {
  const avatarUrl = typeof chatbot.settings.agentIconSrcId === 'string' ? chatbot.settings.agentIconSrcId : null;
  return { id, name: teamDisplayName(user), avatarUrl };
}
