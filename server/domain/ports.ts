/**
 * What the domain needs from storage, in the domain's own terms. `storage/` implements it for
 * SQLite and PostgreSQL; the domain never sees SQL. Every list is keyset-paginated on
 * (createdAt, id), newest first, so inserts between requests never shift a page.
 */
import type { AnswerContextStore } from './answers/ports.js';
import type { ConversationStore } from './conversations/ports.js';
import type { KnowledgeStore, VectorIndexPort } from './knowledge/ports.js';
import type { OAuthStore } from './oauth/ports.js';
import type { ResourcesStore } from './resources/ports.js';
import type { VisitorsStore } from './visitors/ports.js';
import type { WebhookStore } from './webhooks/ports.js';
import type { Page, PageRequest } from './paging.js';
import type {
  AccountRecord,
  ChatbotRecord,
  IconRecord,
  InvoiceRecord,
  Plan,
  TokenRecord,
  UserRecord,
} from './records.js';

export type {
  Plan,
  AccountRecord,
  UserRecord,
  TokenKind,
  TokenRecord,
  ChatbotRecord,
  IconRecord,
  InvoiceRecord,
} from './records.js';
export type { Keyset, PageRequest, Page } from './paging.js';

export interface AnalyticsFigures {
  conversations: number;
  resolvedConversations: number;
  messages: { total: number; visitor: number; ai: number; agent: number };
  escalations: number;
  takeOvers: number;
  handBacks: number;
  resolutions: number;
  leads: number;
  feedback: { up: number; down: number };
  unansweredQuestions: number;
}

/**
 * How finely `AnalyticsStore.buckets` groups: UTC days, or (for days of another time zone) UTC
 * hours when its offsets in the range are whole hours, quarter hours otherwise.
 */
export type AnalyticsBucket = 'utc-day' | 'hour' | 'quarter-hour';

/** One group of `AnalyticsStore.buckets`: `key` is `YYYY-MM-DD` (utc-day) or `YYYY-MM-DDTHH:MM` (UTC) otherwise. */
export interface AnalyticsBucketFigures {
  key: string;
  conversations: number;
  /** `total` counts every author, system notices too. */
  messages: { total: number; visitor: number; ai: number; agent: number };
  answers: { answered: number; notSure: number; refused: number };
  escalations: number;
  leads: number;
}

export interface AnalyticsStore {
  figures(chatbotId: string, from: string, to: string): Promise<AnalyticsFigures>;
  /** The per-day figures, grouped in SQL by `bucket` (only groups with something in them). */
  buckets(chatbotId: string, from: string, to: string, bucket: AnalyticsBucket): Promise<AnalyticsBucketFigures[]>;
  /**
   * The visitor messages of the range, newest first (at most `limit`), their text cut to `chars`,
   * with what the AI's answer to each was (`null`: no AI answer, e.g. the team answered).
   */
  visitorQuestions(
    chatbotId: string,
    from: string,
    to: string,
    limit: number,
    chars: number,
  ): Promise<{ text: string; answer: 'answered' | 'notSure' | 'refused' | 'failed' | null }[]>;
  citedSources(
    chatbotId: string,
    from: string,
    to: string,
    limit: number,
  ): Promise<{ documentId: string; title: string; url: string | null; citations: number }[]>;
}

export interface Store {
  /** Resolves when the database answers. */
  ping(): Promise<void>;
  /**
   * Runs `fn` in one transaction; everything it writes commits together or not at all.
   * `group`: `fn` is short and touches only the database; it may share its COMMIT with other
   * such transactions running at the same time (still all-or-nothing each, resolved only after
   * the COMMIT), which multiplies how many small writes one SQLite writer takes per second.
   */
  transaction<T>(fn: (store: Store) => Promise<T>, options?: { group?: boolean }): Promise<T>;
  accounts: {
    insert(account: AccountRecord): Promise<void>;
    get(id: string): Promise<AccountRecord | null>;
    list(): Promise<AccountRecord[]>;
    update(id: string, patch: { name?: string; plan?: Partial<Plan> }, at: string): Promise<void>;
  };
  users: {
    insert(user: UserRecord): Promise<void>;
    get(id: string): Promise<UserRecord | null>;
    owner(accountId: string): Promise<UserRecord | null>;
    byEmail(accountId: string, email: string): Promise<UserRecord | null>;
  };
  tokens: {
    insert(token: TokenRecord, hash: string): Promise<void>;
    byHash(hash: string): Promise<TokenRecord | null>;
    /** The token of this hash with its user and account (null when any of the three is missing). */
    withOwner(hash: string): Promise<{ token: TokenRecord; user: UserRecord; account: AccountRecord } | null>;
    get(accountId: string, id: string): Promise<TokenRecord | null>;
    /** `userId`: only that user's tokens. */
    page(accountId: string, page: PageRequest, userId?: string | null): Promise<Page<TokenRecord>>;
    listAll(accountId: string | null): Promise<TokenRecord[]>;
    revoke(id: string, at: string): Promise<void>;
    touch(id: string, at: string): Promise<void>;
  };
  chatbots: {
    insert(chatbot: ChatbotRecord): Promise<void>;
    get(id: string): Promise<ChatbotRecord | null>;
    /** `only`: restrict to these ids (a token's chatbot restriction). */
    page(accountId: string, page: PageRequest, only: string[] | null): Promise<Page<ChatbotRecord>>;
    /**
     * The chatbots `userId` was added to as a member, most recently added first: the keyset is
     * the membership's (createdAt, id). `only`: a token's chatbot restriction.
     */
    memberPage(userId: string, page: PageRequest, only: string[] | null): Promise<Page<ChatbotRecord>>;
    count(accountId: string): Promise<number>;
    update(
      id: string,
      patch: { title?: string; description?: string; settings?: Record<string, unknown> },
      at: string,
    ): Promise<void>;
    delete(id: string): Promise<void>;
  };
  icons: {
    insert(icon: IconRecord, bytes: Buffer): Promise<void>;
    get(id: string): Promise<(IconRecord & { bytes: Buffer }) | null>;
    ofType(chatbotId: string, type: string): Promise<IconRecord[]>;
    delete(ids: string[]): Promise<void>;
  };
  invoices: {
    insert(invoice: InvoiceRecord): Promise<void>;
    page(accountId: string, page: PageRequest): Promise<Page<InvoiceRecord>>;
  };
  usage: {
    get(accountId: string, metric: string, period: string): Promise<number>;
    add(accountId: string, metric: string, period: string, delta: number): Promise<void>;
  };
  /** Sources, documents, chunks and their index, ingest jobs, blobs (knowledge/ports.ts). */
  knowledge: KnowledgeStore;
  /** Starters, follow-ups, instructions, personas, custom responses, tags, members, leads, knowledge gaps (resources/ports.ts). */
  resources: ResourcesStore;
  /** Conversations with their visitors, messages and events (conversations/ports.ts). */
  conversations: ConversationStore;
  /** Visitor accounts: e-mail codes, their throttles, identity secrets, sessions ended, gap answers delivered (visitors/ports.ts). */
  visitors: VisitorsStore;
  /** The webhook outbox, disabled targets and signing secrets (webhooks/ports.ts). */
  webhooks: WebhookStore;
  /** What the answer engine reads: instructions, personas, custom responses, follow-ups, passages (answers/ports.ts). */
  answers: AnswerContextStore;
  /** A chatbot's figures over a date range (analytics.service.ts). */
  analytics: AnalyticsStore;
  /** The chunk vectors of one embedding space, for hybrid retrieval; throws when the dimensions are not 1..8192. */
  vectors(space: { model: string; dimensions: number }): VectorIndexPort;
  /** Device codes, users' password hashes, sign-in sessions and their throttles (oauth/ports.ts). */
  oauth: OAuthStore;
  /** The file uploads in progress of each account, counted across every instance on the database. */
  uploadLeases: UploadLeaseStore;
}

/**
 * A lease per upload in progress: every instance on the database counts the same leases, and a
 * lease its process stopped renewing (killed, crashed) expires instead of holding a slot forever.
 */
export interface UploadLeaseStore {
  /**
   * Takes `lease` when the account holds fewer than `limit` leases unexpired at `now` (expired
   * ones are dropped first); `running`: how many it held. Concurrent callers never exceed `limit`.
   */
  acquire(
    lease: { id: string; accountId: string; expiresAt: string },
    limit: number,
    now: string,
  ): Promise<{ taken: boolean; running: number }>;
  renew(id: string, expiresAt: string): Promise<void>;
  release(id: string): Promise<void>;
}
