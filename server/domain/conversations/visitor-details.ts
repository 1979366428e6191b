/**
 * A conversation's visitor: the contact details given with it, checked, stored on the
 * conversation's chat user and captured as a lead; and opening a conversation with them.
 */
import { validationFailed } from '../errors.js';
import { freeFormErrors } from '../free-form.js';
import { newId } from '../ids.js';
import type { ChatbotRecord, Store } from '../ports.js';
import type { ChangeEngine } from './changes.js';
import type { ConversationHooks } from './hooks.js';
import type { ConversationRecord } from './ports.js';

export interface VisitorDetails {
  email?: string | null;
  name?: string | null;
  phone?: string | null;
  customFields?: Record<string, unknown>;
}

/** Free-form visitor fields within bounds, checked before anything is stored. */
export function checkVisitor(v: VisitorDetails | undefined) {
  const bounds = freeFormErrors(v?.customFields, ['visitor', 'customFields']);
  if (bounds.length) throw validationFailed(bounds);
}

export const hasDetails = (v: VisitorDetails) =>
  !!(v.email || v.name || v.phone || (v.customFields && Object.keys(v.customFields).length));

export class VisitorDetailsWriter {
  constructor(
    private readonly store: Store,
    private readonly changes: ChangeEngine,
    private readonly hooks: Pick<ConversationHooks, 'captureLead' | 'leadCaptured'> = {},
  ) {}

  /** Stores a new, empty conversation, then the visitor's details on it when there are any. */
  async open(
    chatbot: ChatbotRecord,
    visitor: VisitorDetails | undefined,
    extra: Partial<ConversationRecord>,
  ): Promise<ConversationRecord> {
    const conversation = await this.changes.start(chatbot, extra);
    if (!visitor || !hasDetails(visitor)) return conversation;
    await this.identify(chatbot, conversation, visitor);
    return (await this.store.conversations.get(conversation.id))!;
  }

  /**
   * Stores the visitor's contact details on the conversation's chat user and captures a lead
   * (`source` says where). A verified visitor's address stays: it is who they proved to be.
   * Details given with a conversation are a lead once they hold a way to reach the visitor (a
   * name alone only names them); `asLead`: a lead form the visitor submitted, a lead whatever it holds.
   */
  async identify(
    chatbot: ChatbotRecord,
    conversation: ConversationRecord,
    v: VisitorDetails,
    source = 'conversation',
    asLead = false,
  ): Promise<{ leadId: string | null }> {
    const email = v.email?.trim().toLowerCase() || null;
    const clean = { email, name: v.name?.trim() || null, phone: v.phone?.trim() || null };
    const { result } = await this.changes.change(conversation, null, async (ctx) => {
      const at = ctx.at;
      let userId = ctx.current.chatUserId;
      if (userId) {
        const user = await ctx.s.conversations.chatUsers.get(userId);
        const fields = Object.entries(clean).filter(([k, x]) => x !== null && !(k === 'email' && user?.verified));
        await ctx.s.conversations.chatUsers.update(userId, { ...Object.fromEntries(fields), updatedAt: at });
      } else {
        userId = newId();
        await ctx.s.conversations.chatUsers.insert({
          id: userId,
          chatbotId: chatbot.id,
          ...clean,
          verified: false,
          metadata: {},
          createdAt: at,
          updatedAt: at,
        });
        ctx.patch.chatUserId = userId;
      }
      if (
        this.hooks.captureLead &&
        (asLead || clean.email || clean.phone || (v.customFields && Object.keys(v.customFields).length))
      ) {
        const lead = await this.hooks.captureLead(ctx.s, {
          chatbotId: chatbot.id,
          conversationId: conversation.id,
          chatUserId: userId,
          ...clean,
          customFields: v.customFields ?? {},
          source,
        });
        await this.hooks.leadCaptured?.(ctx.s, chatbot.id, lead.id);
        ctx.emit('lead.captured', { leadId: lead.id });
        return lead.id;
      }
      ctx.emit('conversation.updated', { fields: ['chatUser'] });
      return null;
    });
    return { leadId: result };
  }
}
