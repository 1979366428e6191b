/**
 * Outbox rules: which changes become webhook deliveries. Runs inside the transaction that writes
 * the change and its conversation events, so an event is delivered if and only if its change
 * committed. Delivery itself happens later, in the dispatcher, never in the request.
 */
import type { ConversationEventRecord, ConversationRecord } from '../conversations/ports.js';
import { newId } from '../ids.js';
import type { ChatbotRecord, Store } from '../ports.js';
import type { LeadRecord } from '../resources/ports.js';
import type { SecretBox } from '../secrets.js';
import { escalationBody, leadBody, messageBody } from './payloads.js';
import type { DeliveryRecord, PayloadVariant, WebhookEvent } from './ports.js';
import { payloadVariant, resolveTarget, type Target } from './targets.js';

const EVENT_OF: Partial<Record<ConversationEventRecord['type'], WebhookEvent>> = {
  'message.added': 'message',
  'conversation.escalated': 'escalation',
  'lead.captured': 'lead',
};

/** `webhook-id`s read `msg_…` as in the Standard Webhooks examples. */
export const deliveryId = () => `msg_${newId()}`;

export class WebhookOutbox {
  /** Heard after rows were written (the dispatcher looks sooner than its next poll). */
  onEnqueued: () => void = () => {};

  /**
   * Conversations whose change wrote deliveries not yet committed: the dispatcher is nudged when
   * such a change commits (`takeEnqueued`), not for every message (a poll per message otherwise,
   * a round trip on PostgreSQL), nor before the commit, when the rows are not visible yet. A change
   * rolled back leaves its id for one extra nudge at the conversation's next commit.
   */
  private readonly enqueued = new Set<string>();

  /** Whether a change of this conversation that just committed wrote deliveries (forgets it). */
  takeEnqueued(conversationId: string): boolean {
    return this.enqueued.delete(conversationId);
  }

  constructor(
    private readonly secrets: SecretBox,
    /** {site_url}: dashboard links in the bodies. */
    readonly siteUrl: string,
  ) {}

  /**
   * Deliveries for a conversation change's events, written with `s` (the change's transaction).
   * `held`: the conversation's chatbot as the caller holds it (read here otherwise).
   */
  async fromConversationEvents(
    s: Store,
    conversation: ConversationRecord,
    events: ConversationEventRecord[],
    held?: ChatbotRecord,
  ): Promise<number> {
    const relevant = events.filter((e) => EVENT_OF[e.type]);
    if (!relevant.length) return 0;
    const chatbot = held?.id === conversation.chatbotId ? held : await s.chatbots.get(conversation.chatbotId);
    if (!chatbot) return 0;
    const thread = { webhookUrl: conversation.webhookUrl, webhookToken: conversation.webhookToken };
    // Nothing is configured for any of these events: no further reads.
    if (!relevant.some((e) => resolveTarget(EVENT_OF[e.type]!, chatbot.settings, thread))) return 0;
    if (!(await this.planAllows(s, chatbot))) return 0;
    const variant = payloadVariant(chatbot.settings);
    const user = conversation.chatUserId ? await s.conversations.chatUsers.get(conversation.chatUserId) : null;
    let written = 0;
    for (const e of relevant) {
      const event = EVENT_OF[e.type]!;
      const target = resolveTarget(event, chatbot.settings, thread);
      if (!target) continue;
      let body: unknown = null;
      if (event === 'message') {
        const message = await s.conversations.messages.get(conversation.id, String(e.payload.messageId));
        if (!message) continue;
        const questionId =
          message.author === 'ai' && typeof message.meta.questionId === 'string' ? message.meta.questionId : null;
        const question = questionId
          ? ((await s.conversations.messages.get(conversation.id, questionId))?.text ?? null)
          : null;
        body = messageBody(variant, { chatbot, conversation, message, question, user });
      } else if (event === 'escalation') {
        body = escalationBody(variant, { chatbot, conversation, user, at: e.createdAt, siteUrl: this.siteUrl });
      } else {
        const lead = await s.resources.leads.get(chatbot.id, String(e.payload.leadId));
        if (!lead) continue;
        body = leadBody(variant, { chatbot, lead, siteUrl: this.siteUrl });
      }
      await this.write(s, chatbot.id, conversation.id, event, variant, target, body, e.createdAt);
      written++;
    }
    if (written) this.enqueued.add(conversation.id);
    return written;
  }

  /** A lead captured outside any conversation (the widget's form before the first message), in its transaction. */
  async fromLead(s: Store, lead: LeadRecord): Promise<number> {
    const chatbot = await s.chatbots.get(lead.chatbotId);
    if (!chatbot) return 0;
    const target = resolveTarget('lead', chatbot.settings, null);
    if (!target || !(await this.planAllows(s, chatbot))) return 0;
    const variant = payloadVariant(chatbot.settings);
    await this.write(
      s,
      chatbot.id,
      null,
      'lead',
      variant,
      target,
      leadBody(variant, { chatbot, lead, siteUrl: this.siteUrl }),
      lead.createdAt,
    );
    this.onEnqueued();
    return 1;
  }

  /** One delivery row; the token is sealed to this row so a copied value does not open elsewhere. */
  async write(
    s: Store,
    chatbotId: string,
    conversationId: string | null,
    event: WebhookEvent,
    variant: PayloadVariant,
    target: Target | { url: string; token: string | null; source: 'test' },
    body: unknown,
    at: string,
  ): Promise<DeliveryRecord> {
    const id = deliveryId();
    const record: DeliveryRecord = {
      id,
      chatbotId,
      conversationId,
      event,
      variant,
      targetUrl: target.url,
      targetSource: target.source,
      sealedToken: target.token ? this.secrets.encrypt(target.token, `webhook:${id}`) : null,
      body: JSON.stringify(body),
      status: 'pending',
      attempts: 0,
      totalAttempts: 0,
      nextAttemptAt: at,
      leaseUntil: null,
      lastStatus: null,
      lastError: null,
      lastAttemptAt: null,
      deliveredAt: null,
      createdAt: at,
      updatedAt: at,
    };
    await s.webhooks.deliveries.insert(record);
    return record;
  }

  openToken(d: Pick<DeliveryRecord, 'id' | 'sealedToken'>): string | null {
    return d.sealedToken ? this.secrets.decrypt(d.sealedToken, `webhook:${d.id}`) : null;
  }

  /** A plan that lost the add-on stops sending, even with targets still saved. */
  private async planAllows(s: Store, chatbot: ChatbotRecord): Promise<boolean> {
    return (await s.accounts.get(chatbot.accountId))?.plan.webhooks === true;
  }
}
