/** What conversations call in other resources (leads, knowledge gaps, webhooks), inside the change's transaction. */
import type { ChatbotRecord, Store } from '../ports.js';
import type { ConversationEventRecord, ConversationRecord } from './ports.js';

export interface ConversationHooks {
  captureLead?(
    store: Store,
    lead: {
      chatbotId: string;
      conversationId: string;
      chatUserId: string;
      name: string | null;
      email: string | null;
      phone: string | null;
      customFields: Record<string, unknown>;
      source: string;
    },
  ): Promise<{ id: string }>;
  recordGap?(
    store: Store,
    gap: { chatbotId: string; conversationId: string; messageId: string; question: string },
  ): Promise<void>;
  /**
   * Sees every change's events in its transaction (the webhook outbox writes its rows here), with
   * the conversation's chatbot when the change's caller held it.
   */
  onEvents?(
    store: Store,
    conversation: ConversationRecord,
    events: ConversationEventRecord[],
    chatbot?: ChatbotRecord,
  ): Promise<unknown>;
  /** Refuses a thread-level webhook URL that is not HTTPS or points inside. */
  checkWebhookUrl?(fields: { webhookUrl?: string | null }): Promise<void>;
  /** A lead was captured, in its transaction (queues the owner's notice with it). */
  leadCaptured?(store: Store, chatbotId: string, leadId: string): Promise<void>;
}
