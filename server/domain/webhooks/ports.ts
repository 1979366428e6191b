/** What webhook delivery needs from storage and from the HTTP adapter, in domain terms. */
import type { Page, PageRequest } from '../paging.js';

export type WebhookEvent = 'message' | 'escalation' | 'lead';
export type PayloadVariant = 'A' | 'B';
/** Where the target came from: the thread's own pair, the event's URL, the global pair, or a test send. */
export type TargetSource = 'thread' | 'event' | 'global';
/** pending: waiting for its first or next attempt; delivered; failed: the schedule ran out; skipped: the target was disabled. */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

export interface DeliveryRecord {
  /** The stable `webhook-id`: the same on every attempt and redelivery of this event. */
  id: string;
  chatbotId: string;
  conversationId: string | null;
  event: WebhookEvent;
  variant: PayloadVariant;
  targetUrl: string;
  targetSource: TargetSource | 'test';
  /** Sealed with the server secret, bound to the delivery id. */
  sealedToken: string | null;
  body: string;
  status: DeliveryStatus;
  /** Attempts of the current round; the retry schedule is indexed by it. */
  attempts: number;
  totalAttempts: number;
  nextAttemptAt: string | null;
  leaseUntil: string | null;
  lastStatus: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A claimed delivery, with whether its target is disabled. */
export interface ClaimedDelivery extends DeliveryRecord {
  targetDisabled: boolean;
}

export interface TargetRecord {
  chatbotId: string;
  url: string;
  consecutiveFailures: number;
  disabledAt: string | null;
  disabledReason: string | null;
  updatedAt: string;
}

export interface SecretRecord {
  chatbotId: string;
  sealedSecret: string;
  createdAt: string;
  sealedPrevious: string | null;
  previousUntil: string | null;
}

export type DeliveryOutcome = Pick<
  DeliveryRecord,
  'status' | 'attempts' | 'nextAttemptAt' | 'lastStatus' | 'lastError' | 'lastAttemptAt' | 'deliveredAt'
>;

/** `store.webhooks`. */
export interface WebhookStore {
  deliveries: {
    insert(d: DeliveryRecord): Promise<void>;
    get(chatbotId: string, id: string): Promise<DeliveryRecord | null>;
    /** Newest first; `status` filters. */
    page(
      chatbotId: string,
      page: PageRequest,
      filter: { status?: DeliveryStatus; event?: WebhookEvent },
    ): Promise<Page<DeliveryRecord>>;
    /** Pending deliveries due at `now` whose lease (if any) has run out, oldest due first, leaving out targets in `skipUrls` (at their limit). */
    due(now: string, limit: number, skipUrls?: string[]): Promise<ClaimedDelivery[]>;
    /** Takes the lease when nobody holds it (compare-and-set); false when another worker came first. */
    lease(id: string, now: string, until: string): Promise<boolean>;
    /** Records an outcome and drops the lease; `attempted`: an HTTP attempt was made (counts in totalAttempts). */
    finish(id: string, outcome: DeliveryOutcome, at: string, attempted: boolean): Promise<void>;
    /** Drops the lease without counting an attempt (the process is stopping mid-request). */
    release(id: string): Promise<void>;
    /** Sends the event again from a fresh retry round (same id, same body). */
    requeue(id: string, at: string): Promise<void>;
    /** Deletes finished deliveries (delivered, failed, skipped) last changed before `before`; returns how many. */
    prune(before: string, limit: number): Promise<number>;
    /** Deliveries still to send, every chatbot together, and the oldest due one (the metrics' backlog). */
    backlog(now: string): Promise<{ pending: number; due: number; oldestDue: string | null }>;
    /** Deliveries by status. */
    countByStatus(chatbotId?: string): Promise<Record<DeliveryStatus, number>>;
  };
  targets: {
    get(chatbotId: string, url: string): Promise<TargetRecord | null>;
    list(chatbotId: string): Promise<TargetRecord[]>;
    /** A success: the failure count starts again. */
    succeeded(chatbotId: string, url: string, at: string): Promise<void>;
    /** A delivery that ran out of retries; returns the consecutive count. */
    failed(chatbotId: string, url: string, at: string): Promise<number>;
    disable(chatbotId: string, url: string, reason: string, at: string): Promise<void>;
    /** Clears the disabled mark and the failure count; false when it was not disabled. */
    enable(chatbotId: string, url: string, at: string): Promise<boolean>;
  };
  secrets: {
    get(chatbotId: string): Promise<SecretRecord | null>;
    /** Inserts the first secret unless one exists; false when another came first. */
    create(r: SecretRecord): Promise<boolean>;
    put(r: SecretRecord): Promise<void>;
  };
}

/** One HTTP POST as the receiver will see it. */
export interface OutgoingWebhook {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The result of one attempt: an HTTP status, or an error before any status (timeout, refused, network). */
export type AttemptResult = { status: number; error: null } | { status: null; error: string };

/** The adapter that talks HTTP (server/outbound/webhook-sender.ts). */
export interface WebhookSender {
  send(request: OutgoingWebhook, signal?: AbortSignal): Promise<AttemptResult>;
  /** Why `url` may not be a target (scheme, private address after DNS), or null when it may. */
  refuse(url: string): Promise<string | null>;
}
