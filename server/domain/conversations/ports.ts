/**
 * What conversations need from storage and from the answer engine, in domain terms.
 */
import type { Page, PageRequest } from '../paging.js';
import type { ChunkLocation } from '../knowledge/ports.js';
import type { Mode, Status } from './state.js';

export type Author = 'visitor' | 'ai' | 'agent' | 'system';

/** A source cited by an answer, with the exact place (page, timestamp, text fragment). */
export interface SourceRef {
  documentId: string;
  title: string;
  url: string | null;
  /** A link straight to the place: `#:~:text=` fragment, `#page=N`, or `&t=Ns` for videos. */
  link: string | null;
  location: ChunkLocation;
  score: number;
}

export interface ChatUserRecord {
  id: string;
  chatbotId: string;
  email: string | null;
  name: string | null;
  phone: string | null;
  verified: boolean;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface ConversationRecord {
  id: string;
  chatbotId: string;
  chatUserId: string | null;
  status: Status;
  mode: Mode;
  escalated: boolean;
  agentId: string | null;
  seq: number;
  webhookUrl: string | null;
  webhookToken: string | null;
  totalMessagesRead: number;
  messageCount: number;
  lastMessageAt: string | null;
  createdAt: string;
  updatedAt: string;
  endedAt: string | null;
}

export interface MessageRecord {
  id: string;
  conversationId: string;
  chatbotId: string;
  seq: number;
  author: Author;
  text: string;
  sources: SourceRef[];
  agentId: string | null;
  agentName: string | null;
  feedback: 'up' | 'down' | null;
  feedbackComment: string | null;
  /** The AI's own text when a team member corrected the answer. */
  originalText: string | null;
  /** followUps, unanswered, customResponseId, provider, model… */
  meta: Record<string, unknown>;
  /** The client's id for the message (Idempotency-Key, the widget's clientId): unique per chatbot. */
  clientMessageId: string | null;
  createdAt: string;
  updatedAt: string;
}

export type ConversationEventType =
  | 'conversation.started'
  | 'message.added'
  | 'message.updated'
  | 'conversation.escalated'
  | 'conversation.taken_over'
  | 'conversation.released'
  | 'conversation.resolved'
  | 'conversation.reopened'
  | 'conversation.updated'
  | 'lead.captured';

/** One change to a conversation, numbered by the conversation's sequence (only grows). */
export interface ConversationEventRecord {
  id: string;
  conversationId: string;
  chatbotId: string;
  seq: number;
  type: ConversationEventType;
  payload: Record<string, unknown>;
  createdAt: string;
}

export interface OwedAnswer {
  messageId: string;
  conversationId: string;
  chatbotId: string;
  leaseUntil: string;
  /** Claims after a lease ended (a process that died while answering). */
  attempts: number;
  createdAt: string;
}

export interface ConversationFilter {
  status?: Status;
  mode?: Mode;
  escalated?: boolean;
  tagId?: string;
  /** createdAt range, ISO-8601, inclusive from, exclusive to. */
  from?: string;
  to?: string;
  /** Case-insensitive substring of the visitor's name or e-mail, or of any message's text. */
  text?: string;
}

/** `store.conversations`: the conversations table itself, with its visitors, messages and events. */
export interface ConversationStore extends ConversationTable, ConversationParts {
  chatUsers: {
    insert(user: ChatUserRecord): Promise<void>;
    get(id: string): Promise<ChatUserRecord | null>;
    /** The chat users of these ids that exist, in one query (a page of conversations needs them all). */
    many(ids: string[]): Promise<ChatUserRecord[]>;
    update(id: string, patch: Partial<Omit<ChatUserRecord, 'id' | 'chatbotId' | 'createdAt'>>): Promise<void>;
  };
}

export interface ConversationTable {
  insert(c: ConversationRecord): Promise<void>;
  get(id: string): Promise<ConversationRecord | null>;
  /** The conversation and its chat user's name (null without one, or unnamed), in one read. */
  withVisitorName(id: string): Promise<{ conversation: ConversationRecord; visitorName: string | null } | null>;
  page(chatbotId: string, page: PageRequest, filter: ConversationFilter): Promise<Page<ConversationRecord>>;
  /**
   * Compare-and-set: applies `patch` and moves `seq` from `expectedSeq` to `newSeq` only if the
   * row still has `expectedSeq`; false when another change came first.
   */
  cas(
    id: string,
    expectedSeq: number,
    newSeq: number,
    patch: Partial<Omit<ConversationRecord, 'id' | 'chatbotId' | 'seq' | 'createdAt'>>,
  ): Promise<boolean>;
  delete(ids: string[]): Promise<void>;
  /** The tags of each conversation. */
  tags(conversationIds: string[]): Promise<Map<string, { id: string; name: string; color: string | null }[]>>;
  /** Which of `tagIds` are tags of this chatbot. */
  knownTags(chatbotId: string, tagIds: string[]): Promise<string[]>;
  setTags(conversationId: string, tagIds: string[]): Promise<void>;
}

/** Another request stored a message under the same client id first (a unique index refused the write). */
export class DuplicateClientId extends Error {}

export interface ConversationParts {
  messages: {
    /** Throws DuplicateClientId when the conversation holds a message under `m.clientMessageId` already. */
    insert(m: MessageRecord): Promise<void>;
    get(conversationId: string, id: string): Promise<MessageRecord | null>;
    /** The conversation of a message of this chatbot (legacy v0 names messages without their thread). */
    conversationOf(chatbotId: string, id: string): Promise<string | null>;
    /** Oldest first, by seq; `afterSeq` is the cursor. */
    page(
      conversationId: string,
      limit: number,
      afterSeq: number | null,
    ): Promise<{ items: MessageRecord[]; more: boolean }>;
    /** The last `n` messages, oldest first (prompt history). */
    last(conversationId: string, n: number): Promise<MessageRecord[]>;
    /** The latest message of each of these conversations (one read for a listed page). */
    latest(conversationIds: string[]): Promise<MessageRecord[]>;
    update(
      id: string,
      patch: Partial<
        Pick<MessageRecord, 'text' | 'feedback' | 'feedbackComment' | 'originalText' | 'meta' | 'updatedAt'>
      >,
    ): Promise<void>;
    /** The message a client sent under `clientMessageId` to this chatbot, if any. */
    byClientId(chatbotId: string, clientMessageId: string): Promise<MessageRecord | null>;
  };
  /** Visitor messages the AI still owes an answer, each under a lease its writer keeps extending. */
  owed: {
    insert(o: OwedAnswer): Promise<void>;
    /** Deletes the row; true for the one caller that deleted it (only that one stores the answer). */
    settle(messageId: string): Promise<boolean>;
    /** Deletes every row of the conversation (the AI may no longer answer what it was asked before). */
    settleConversation(conversationId: string): Promise<void>;
    /** Pushes the leases of rows still owed to `leaseUntil` (the writer's heartbeat). */
    extend(messageIds: string[], leaseUntil: string): Promise<void>;
    /** Rows whose lease ended before `now`, oldest first. */
    expired(now: string, limit: number): Promise<OwedAnswer[]>;
    /** Compare-and-set on the lease: true when this caller took the expired row over. */
    claim(messageId: string, expectedLease: string, leaseUntil: string): Promise<boolean>;
  };
  events: {
    insert(events: ConversationEventRecord[]): Promise<void>;
    /** Events after `afterSeq`, in order (realtime resume, webhook outbox). */
    after(conversationId: string, afterSeq: number, limit: number): Promise<ConversationEventRecord[]>;
  };
}

// ---- The answer engine ---------------------------------------------------------------------

export interface AnswerRequest {
  chatbotId: string;
  accountId: string;
  conversationId: string;
  /** The chatbot's settings (gptModel, creativity, temperature, topK, historyCount, hideSources, follow-up settings, systemPrompt, locale…). */
  settings: Record<string, unknown>;
  /** The visitor's question. */
  question: string;
  /** The last `historyCount` messages before the question, oldest first. */
  history: Pick<MessageRecord, 'author' | 'text'>[];
  /** Called with each piece of text as it is generated (streaming); the final text is also returned. */
  onToken?: (text: string) => void;
  signal?: AbortSignal;
}

export interface FollowUp {
  title: string;
  description: string;
  link: string | null;
  isEscalationPrompt: boolean;
}

export interface Answer {
  text: string;
  /** Empty when the chatbot hides sources. */
  sources: SourceRef[];
  followUps: FollowUp[];
  /** True when the engine could not answer from the knowledge (recorded as a knowledge gap). */
  unanswered: boolean;
  /** True when it answered while not sure the knowledge covers the question (the hedged answer). */
  unsure?: boolean;
  /** Set when a custom response was returned verbatim. */
  customResponseId: string | null;
  /** 'custom-response' | 'openai' | 'built-in' | 'unavailable' */
  provider: string;
  model: string | null;
}

export interface AnswerEngine {
  answer(request: AnswerRequest): Promise<Answer>;
}
