/**
 * What live readers (the widget's connection, the team stream) read of conversations, and the
 * ownership rule: a visitor reaches only the conversations of their own chat user on the chatbot
 * of their session, and any other id gets the answer an id that does not exist gets.
 */
import type { TeamMember } from '../../../shared/protocol.js';
import { AppError } from '../errors.js';
import type { ChatbotRecord, Store } from '../ports.js';
import { teamMember } from '../team-member.js';
import type { ChatUserRecord, ConversationEventRecord, ConversationRecord, MessageRecord } from './ports.js';

/** Who a widget session acts as: a chat user of a chatbot. */
export interface VisitorRef {
  chatbotId: string;
  chatUserId: string;
}

/** The ownership rule. */
export const ownedBy = (c: Pick<ConversationRecord, 'chatbotId' | 'chatUserId'>, visitor: VisitorRef) =>
  c.chatUserId === visitor.chatUserId && c.chatbotId === visitor.chatbotId;

export class ConversationReads {
  constructor(private readonly store: Store) {}

  /** A conversation as it is now, for readers whose reach was checked (a team stream's chatbots) or that follow it already. */
  get(id: string): Promise<ConversationRecord | null> {
    return this.store.conversations.get(id);
  }

  /** The visitor's conversation of this id; null when it does not exist or is someone else's. */
  async ofVisitor(visitor: VisitorRef, id: string): Promise<ConversationRecord | null> {
    const c = await this.store.conversations.get(id);
    return c && ownedBy(c, visitor) ? c : null;
  }

  /** As `ofVisitor`, NOT_FOUND otherwise. */
  async own(visitor: VisitorRef, id: string): Promise<ConversationRecord> {
    const c = await this.ofVisitor(visitor, id);
    if (!c)
      throw new AppError('NOT_FOUND', 'Conversation not found', {
        hint: 'Use a conversation id this visitor received',
      });
    return c;
  }

  /**
   * As `own`, with the visitor's name as stored now, in one read: a message written next is
   * signed with it without reading the chat user again inside its transaction.
   */
  async ownWithName(
    visitor: VisitorRef,
    id: string,
  ): Promise<{ conversation: ConversationRecord; visitorName: string | null }> {
    const found = await this.store.conversations.withVisitorName(id);
    if (!found || !ownedBy(found.conversation, visitor))
      throw new AppError('NOT_FOUND', 'Conversation not found', {
        hint: 'Use a conversation id this visitor received',
      });
    return found;
  }

  /** Events after `afterSeq`, in order (realtime resume and catch-up, the webhook outbox). */
  events(conversationId: string, afterSeq: number, limit = 500): Promise<ConversationEventRecord[]> {
    return this.store.conversations.events.after(conversationId, afterSeq, limit);
  }

  message(conversationId: string, id: string): Promise<MessageRecord | null> {
    return this.store.conversations.messages.get(conversationId, id);
  }

  /** The chat user as stored now (a lead form changes their details). */
  chatUser(id: string): Promise<ChatUserRecord | null> {
    return this.store.conversations.chatUsers.get(id);
  }

  /** A team member as the chatbot's visitors see them (null: no member). */
  async agent(chatbot: Pick<ChatbotRecord, 'settings'>, agentId: string | null): Promise<TeamMember | null> {
    if (!agentId) return null;
    return teamMember(chatbot, agentId, await this.store.users.get(agentId));
  }
}
