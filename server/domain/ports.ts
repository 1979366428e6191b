/**
 * What the domain needs from storage, in the domain's own terms. `storage/` implements it for
 * SQLite and PostgreSQL; the domain never sees SQL. Every list is keyset-paginated on
 * (createdAt, id), newest first, so inserts between requests never shift a page.
 */
import type { Role, Scope, TokenAccess } from '../../shared/scopes.js';
import type { ConversationStore } from './conversations/ports.js';
import type { KnowledgeStore } from './knowledge/ports.js';
import type { ResourcesStore } from './resources/ports.js';
import type { VisitorsStore } from './visitors/ports.js';
import type { WebhookStore } from './webhooks/ports.js';

export interface Plan {
  name: string;
  maxChatbots: number;
  maxPages: number;
  webhooks: boolean;
  analytics: boolean;
  brandingRemoval: boolean;
  active: boolean;
}

export interface AccountRecord {
  id: string;
  name: string;
  plan: Plan;
  createdAt: string;
  updatedAt: string;
}

export interface UserRecord {
  id: string;
  accountId: string;
  email: string;
  name: string | null;
  role: Role;
  createdAt: string;
}

export type TokenKind = 'api' | 'legacy';

export interface TokenRecord {
  id: string;
  accountId: string;
  userId: string;
  kind: TokenKind;
  name: string;
  access: TokenAccess;
  scopes: Scope[];
  chatbotIds: string[] | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface ChatbotRecord {
  id: string;
  accountId: string;
  createdById: string;
  title: string;
  description: string;
  settings: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface IconRecord {
  id: string;
  chatbotId: string;
  type: string;
  mime: string;
  size: number;
  createdAt: string;
}

export interface InvoiceRecord {
  id: string;
  accountId: string;
  name: string;
  amountCents: number;
  currency: string;
  status: string;
  periodStart: string | null;
  periodEnd: string | null;
  url: string | null;
  createdAt: string;
}

export interface Keyset {
  createdAt: string;
  id: string;
}

export interface PageRequest {
  limit: number;
  after: Keyset | null;
}

export interface Page<T> {
  items: T[];
  /** Key of the last item when more items follow, else null. */
  next: Keyset | null;
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
    update(id: string, patch: { title?: string; description?: string; settings?: Record<string, unknown> }, at: string): Promise<void>;
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
}
