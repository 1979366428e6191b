/**
 * What visitor accounts need from storage and from the outside world, in domain terms.
 */
import type { ChatUserRecord, ConversationRecord } from '../conversations/ports.js';

/** One live e-mail code of an address (the code itself is never stored, only its HMAC). */
export interface CodeRecord {
  id: string;
  chatbotId: string;
  email: string;
  codeHash: string;
  /** Details given with the request, applied to the visitor once the code is verified. */
  name: string | null;
  phone: string | null;
  attempts: number;
  expiresAt: string;
  consumedAt: string | null;
  createdAt: string;
}

/** `store.visitors` */
export interface VisitorsStore {
  codes: {
    /** Stores `code` as the address's one live code, replacing (voiding) any earlier one. */
    put(code: CodeRecord): Promise<void>;
    get(chatbotId: string, email: string): Promise<CodeRecord | null>;
    /**
     * Takes one try before the code is compared: true (and counted) only while the code is unused,
     * unexpired at `now` and has had fewer than `maxAttempts` tries, so a burst of concurrent
     * guesses gets no more than `maxAttempts` compared.
     */
    attempt(id: string, now: string, maxAttempts: number): Promise<boolean>;
    /**
     * Marks the code used if, at this moment, it is unused, unexpired at `now` and has this hash:
     * true for exactly one of concurrent callers.
     */
    consume(id: string, codeHash: string, now: string): Promise<boolean>;
    deleteExpired(before: string): Promise<void>;
  };
  throttle: {
    /** Counts one hit on `key` (a counter that lives until `expiresAt`); returns the count including it. */
    hit(key: string, expiresAt: string): Promise<number>;
    deleteExpired(before: string): Promise<void>;
  };
  identitySecrets: {
    get(chatbotId: string): Promise<{ sealed: string; createdAt: string } | null>;
    /** Sets or replaces the chatbot's secret. */
    put(chatbotId: string, sealed: string, at: string): Promise<void>;
    delete(chatbotId: string): Promise<boolean>;
  };
  chatUsers: {
    /** The chatbot's verified visitor with this address (at most one). */
    verified(chatbotId: string, email: string): Promise<ChatUserRecord | null>;
    /** The visitor's conversations, most recent activity first. */
    conversations(chatbotId: string, chatUserId: string, limit: number): Promise<ConversationRecord[]>;
    /** Moves every conversation (and lead) of one visitor to another of the same chatbot. */
    merge(chatbotId: string, fromUserId: string, toUserId: string): Promise<void>;
  };
  sessions: {
    revoke(sessionId: string, chatUserId: string, expiresAt: string): Promise<void>;
    isRevoked(sessionId: string): Promise<boolean>;
    deleteExpired(before: string): Promise<void>;
  };
  gapDeliveries: {
    /** Claims the delivery of a gap's answer as this message; true for the first caller only (once per gap). */
    claim(gapId: string, conversationId: string, messageId: string, at: string): Promise<boolean>;
    /** Whether the answer was e-mailed already. */
    emailed(gapId: string): Promise<boolean>;
    /** Marks it e-mailed; true for the first caller only. */
    markEmailed(gapId: string, at: string): Promise<boolean>;
  };
}

/** One e-mail to send. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** BCP 47 tag of the mail's language (Content-Language). */
  language?: string;
}

/** Sends mail (SMTP) or keeps it where the operator can read it (a folder of .eml files). */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** Whether a visitor currently has a connected widget for this conversation (the gateway knows). */
export type PresenceCheck = (visitor: {
  chatbotId: string;
  chatUserId: string;
  conversationId: string;
}) => boolean | Promise<boolean>;
