/**
 * The bodies of spec section 6, exactly its fields for each variant. A: `{event, data}` with
 * ADD_MESSAGE, CONVERSATION_ESCALATED, NEW_LEAD_CAPTURE. B: flat bodies with `message`,
 * `escalation`, `lead`. Built once when the event happens; the stored bytes are what every
 * attempt sends and signs.
 */
import { newMessage } from '../conversations/messages.js';
import type { ChatUserRecord, ConversationRecord, MessageRecord } from '../conversations/ports.js';
import type { ChatbotRecord } from '../ports.js';
import type { LeadRecord } from '../resources/ports.js';
import type { PayloadVariant, WebhookEvent } from './ports.js';

/** Where the team reads a conversation or the leads; Parley's own console paths under {site_url}. */
export const conversationUrl = (siteUrl: string, chatbotId: string, threadId: string) =>
  `${siteUrl}/dashboard/chatbots/${encodeURIComponent(chatbotId)}/conversations/${encodeURIComponent(threadId)}`;
export const leadsUrl = (siteUrl: string, chatbotId: string) =>
  `${siteUrl}/dashboard/chatbots/${encodeURIComponent(chatbotId)}/leads`;

/** The reason variant B's escalation carries: escalation is always the visitor's (or the team's on their behalf) request for a person. */
export const ESCALATION_REASON = 'human_support_requested';

const MESSAGE_TYPE: Record<MessageRecord['author'], string> = {
  visitor: 'NORMAL_MESSAGE',
  ai: 'NORMAL_MESSAGE',
  agent: 'AGENT_MESSAGE',
  system: 'SYSTEM_MESSAGE',
};

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

export interface MessageContext {
  chatbot: ChatbotRecord;
  conversation: Pick<ConversationRecord, 'id'>;
  message: MessageRecord;
  /** For an AI answer: the visitor's question it answers. */
  question: string | null;
  user: ChatUserRecord | null;
}

export function messageBody(variant: PayloadVariant, c: MessageContext): unknown {
  const m = c.message;
  const question = m.author === 'visitor' ? m.text : m.author === 'ai' ? c.question : null;
  const answer = m.author === 'visitor' ? null : m.text;
  const sources = [...new Set(m.sources.map((s) => s.url ?? s.link).filter((u): u is string => !!u))];
  if (variant === 'B') {
    return {
      event: 'message',
      chatbotId: c.chatbot.id,
      threadId: c.conversation.id,
      messageId: m.id,
      timestamp: m.createdAt,
      user: { email: c.user?.email ?? null, name: c.user?.name ?? null },
      message: { question, answer, sources },
    };
  }
  const settings = c.chatbot.settings;
  const icon =
    m.author === 'agent'
      ? settings.agentIconSrcId
      : m.author === 'ai'
        ? settings.iconSrcId
        : m.author === 'visitor'
          ? settings.personIconSrcId
          : null;
  return {
    event: 'ADD_MESSAGE',
    data: {
      chatbotId: c.chatbot.id,
      threadId: c.conversation.id,
      gptModel: str(settings.gptModel) ?? 'gpt-4.1-mini',
      sources,
      question,
      answer,
      messageType: MESSAGE_TYPE[m.author],
      agentId: m.author === 'agent' ? m.agentId : null,
      iconUrl: str(icon),
      agentName: m.author === 'agent' ? m.agentName : null,
      systemMessageType: m.author === 'system' ? str(m.meta.systemMessageType) : null,
    },
  };
}

export interface EscalationContext {
  chatbot: ChatbotRecord;
  conversation: Pick<ConversationRecord, 'id'>;
  user: ChatUserRecord | null;
  at: string;
  siteUrl: string;
}

export function escalationBody(variant: PayloadVariant, c: EscalationContext): unknown {
  const url = conversationUrl(c.siteUrl, c.chatbot.id, c.conversation.id);
  if (variant === 'B') {
    return {
      event: 'escalation',
      chatbotId: c.chatbot.id,
      threadId: c.conversation.id,
      timestamp: c.at,
      user: { email: c.user?.email ?? null, name: c.user?.name ?? null },
      reason: ESCALATION_REASON,
      conversationUrl: url,
    };
  }
  const u = c.user;
  return {
    event: 'CONVERSATION_ESCALATED',
    data: {
      chatbotId: c.chatbot.id,
      threadId: c.conversation.id,
      dashboardUrl: url,
      // null when the visitor escalated before giving any contact details
      user:
        u && (u.email || u.name || u.phone)
          ? { id: u.id, email: u.email, name: u.name, phone: u.phone, verified: u.verified, createdAt: u.createdAt }
          : null,
    },
  };
}

export interface LeadContext {
  chatbot: ChatbotRecord;
  lead: LeadRecord;
  siteUrl: string;
}

export function leadBody(variant: PayloadVariant, c: LeadContext): unknown {
  const l = c.lead;
  if (variant === 'B') {
    return {
      event: 'lead',
      chatbotId: c.chatbot.id,
      leadId: l.id,
      timestamp: l.createdAt,
      lead: { email: l.email, name: l.name, phone: l.phone, customData: l.customFields },
      source: l.source,
    };
  }
  return {
    event: 'NEW_LEAD_CAPTURE',
    data: {
      chatbotId: c.chatbot.id,
      chatbotName: c.chatbot.title,
      dashboardUrl: leadsUrl(c.siteUrl, c.chatbot.id),
      // Custom fields first: a custom key can never replace one of the fixed fields.
      leadDetails: {
        ...l.customFields,
        id: l.id,
        name: l.name,
        email: l.email,
        phone: l.phone,
        capturedAt: l.createdAt,
      },
    },
  };
}

/** A sample body of each event for `POST .../webhooks/test`, marked as a test in its ids. */
export function sampleBody(
  variant: PayloadVariant,
  event: WebhookEvent,
  chatbot: ChatbotRecord,
  siteUrl: string,
  at: string,
): unknown {
  const threadId = 'test_thread';
  const user: ChatUserRecord = {
    id: 'test_user',
    chatbotId: chatbot.id,
    email: 'visitor@example.com',
    name: 'Test Visitor',
    phone: null,
    verified: false,
    metadata: {},
    createdAt: at,
    updatedAt: at,
  };
  if (event === 'message') {
    const message = newMessage({
      id: 'test_message',
      conversationId: threadId,
      chatbotId: chatbot.id,
      seq: 1,
      author: 'visitor',
      text: 'This is a test message from Parley.',
      createdAt: at,
      updatedAt: at,
    });
    return messageBody(variant, { chatbot, conversation: { id: threadId }, message, question: null, user });
  }
  if (event === 'escalation')
    return escalationBody(variant, { chatbot, conversation: { id: threadId }, user, at, siteUrl });
  const lead: LeadRecord = {
    id: 'test_lead',
    chatbotId: chatbot.id,
    conversationId: null,
    chatUserId: null,
    name: 'Test Visitor',
    email: 'visitor@example.com',
    phone: null,
    customFields: {},
    source: 'test',
    createdAt: at,
  };
  return leadBody(variant, { chatbot, lead, siteUrl });
}
