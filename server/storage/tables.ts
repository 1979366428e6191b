/**
 * The one source of every table's types. Conventions shared by both dialects: ids are text,
 * timestamps are ISO-8601 UTC text (they sort and compare as strings), booleans are 0/1
 * integers, JSON is text. Dialect differences (blob type, bytewise id collation) live only in
 * storage/dialects and the migrations.
 */
import type { Generated, Selectable } from 'kysely';

export interface AccountsTable {
  id: string;
  name: string;
  plan_name: string;
  max_chatbots: number;
  max_pages: number;
  webhooks_enabled: number;
  analytics_enabled: number;
  branding_removal: number;
  active: number;
  created_at: string;
  updated_at: string;
}

export interface UsersTable {
  id: string;
  account_id: string;
  email: string;
  name: string | null;
  role: string;
  created_at: string;
}

/** API tokens (v2), legacy v0 keys and, later, OAuth access tokens: one table, one lookup. */
export interface TokensTable {
  id: string;
  account_id: string;
  user_id: string;
  kind: string; // 'api' | 'legacy'
  name: string;
  token_hash: string;
  access: string; // standard | full | custom (legacy keys: full)
  scopes: string; // JSON array
  chatbot_ids: string | null; // JSON array, null = every chatbot
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface ChatbotsTable {
  id: string;
  account_id: string;
  created_by_id: string;
  title: string;
  description: string;
  settings: string; // JSON object, every settings field
  created_at: string;
  updated_at: string;
}

export interface IconsTable {
  id: string;
  chatbot_id: string;
  type: string;
  mime: string;
  bytes: Buffer;
  size: number;
  created_at: string;
}

export interface InvoicesTable {
  id: string;
  account_id: string;
  name: string;
  amount_cents: number;
  currency: string;
  status: string;
  period_start: string | null;
  period_end: string | null;
  url: string | null;
  created_at: string;
}

/** Counters later features keep in the same transaction as their change (messages per month). */
export interface UsageCountersTable {
  account_id: string;
  metric: string;
  period: string; // 'YYYY-MM' or 'all'
  value: Generated<number>;
}

export interface Database extends KnowledgeDatabase, ConversationsDatabase, VisitorsDatabase, WebhooksDatabase, OAuthDatabase {
  accounts: AccountsTable;
  users: UsersTable;
  tokens: TokensTable;
  chatbots: ChatbotsTable;
  icons: IconsTable;
  invoices: InvoicesTable;
  usage_counters: UsageCountersTable;
}

export type Account = Selectable<AccountsTable>;
export type User = Selectable<UsersTable>;
export type TokenRow = Selectable<TokensTable>;
export type ChatbotRow = Selectable<ChatbotsTable>;
export type InvoiceRow = Selectable<InvoicesTable>;

export interface SourcesTable {
  id: string;
  chatbot_id: string;
  account_id: string;
  type: string;
  /** Dedupe key within (chatbot, type): the start URL, sitemap URL, base URL; '' for singletons. */
  key: string;
  name: string;
  config: string; // JSON
  credentials: string | null; // encrypted (AES-256-GCM), never returned
  status: string;
  last_error: string | null;
  last_sync_at: string | null;
  sync_interval_minutes: number | null;
  next_sync_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DocumentsTable {
  id: string;
  chatbot_id: string;
  source_id: string;
  /** Dedupe key within the chatbot: normalised URL, `file:<sha256>`, `text:<id>`, `confluence:<page id>`. */
  key: string;
  url: string | null;
  title: string;
  kind: string;
  status: string;
  content_hash: string | null;
  chars: Generated<number>;
  chunk_count: Generated<number>;
  error: string | null;
  created_at: string;
  updated_at: string;
}

export interface ChunksTable {
  id: Generated<number>;
  document_id: string;
  chatbot_id: string;
  idx: number;
  title: string;
  /** Heading path joined with ' > '. */
  heading: string;
  text: string;
  location: string; // JSON {page?, startSeconds?, textFragment, headingPath}
  token_count: number;
  /** SQLite only (migration 0011): the chunk's extra tokens for chunks_fts (word pairs, title/heading words). */
  extra: Generated<string>;
}

/** Questions a chunk answers (migration 0026), a JSON array: follow-up suggestions. */
export interface ChunkQuestionsTable {
  chunk_id: number;
  chatbot_id: string;
  questions: string;
}

export interface IngestJobsTable {
  id: string;
  chatbot_id: string;
  source_id: string;
  trigger: string;
  status: string;
  found: Generated<number>;
  done: Generated<number>;
  failed: Generated<number>;
  skipped: Generated<number>;
  options: string; // JSON
  error: string | null;
  cancel_requested: Generated<number>;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface IngestItemsTable {
  job_id: string;
  key: string;
  seq: number;
  depth: Generated<number>;
  status: string;
  payload: string | null;
  blob_id: string | null;
  error: string | null;
  updated_at: string;
}

/** An uploaded file's metadata; its bytes are `blob_parts`, in order of `seq` (migration 0017). */
export interface BlobsTable {
  id: string;
  chatbot_id: string;
  name: string;
  size: number;
  created_at: string;
}

export interface BlobPartsTable {
  blob_id: string;
  seq: number;
  bytes: Buffer;
}

/** One upload in progress of an account, on any instance; `expires_at` passes when its process died. */
export interface UploadLeasesTable {
  id: string;
  account_id: string;
  expires_at: string;
}

export interface JobsTable {
  id: string;
  name: string;
  payload: string;
  status: string;
  attempts: Generated<number>;
  max_attempts: number;
  run_at: string;
  lease_until: string | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
  /** Whose work it is (fair turns and per-account limits); null: no account's. */
  account_id: string | null;
  chatbot_id: string | null;
}

/** Text added through the legacy v0 custom-content route, kept for the v0 Chatbot (0025). */
export interface CustomContentsTable {
  document_key: string;
  chatbot_id: string;
  source_id: string;
  job_id: string;
  text: string;
  created_at: string;
}

export interface KnowledgeDatabase {
  sources: SourcesTable;
  custom_contents: CustomContentsTable;
  documents: DocumentsTable;
  chunks: ChunksTable;
  chunk_questions: ChunkQuestionsTable;
  ingest_jobs: IngestJobsTable;
  ingest_items: IngestItemsTable;
  blobs: BlobsTable;
  blob_parts: BlobPartsTable;
  upload_leases: UploadLeasesTable;
  jobs: JobsTable;
}

export interface ChatUsersTable {
  id: string;
  chatbot_id: string;
  email: string | null;
  name: string | null;
  phone: string | null;
  verified: Generated<number>;
  metadata: string; // JSON
  created_at: string;
  updated_at: string;
}

export interface ConversationsTable {
  id: string;
  chatbot_id: string;
  chat_user_id: string | null;
  status: string; // OPEN | RESOLVED
  mode: string; // AI | AGENT
  escalated: Generated<number>;
  agent_id: string | null;
  /** The last event sequence number; every change adds one or more and is compare-and-set on it. */
  seq: Generated<number>;
  webhook_url: string | null;
  webhook_token: string | null;
  total_messages_read: Generated<number>;
  message_count: Generated<number>;
  last_message_at: string | null;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
}

export interface MessagesTable {
  id: string;
  conversation_id: string;
  chatbot_id: string;
  seq: number;
  author: string; // visitor | ai | agent | system
  text: string;
  sources: string; // JSON array
  agent_id: string | null;
  agent_name: string | null;
  feedback: string | null; // up | down
  feedback_comment: string | null;
  original_text: string | null;
  meta: string; // JSON
  /** The client's id for the message (Idempotency-Key, widget clientId), unique per chatbot. */
  client_message_id: string | null;
  created_at: string;
  updated_at: string;
}

/** Visitor messages the AI still owes an answer (domain/conversations/answering.ts). */
export interface AnswersOwedTable {
  message_id: string;
  conversation_id: string;
  chatbot_id: string;
  /** Until then the answer is being written by a live process; after it, anyone may claim it. */
  lease_until: string;
  attempts: Generated<number>;
  created_at: string;
}

export interface ConversationEventsTable {
  id: string;
  conversation_id: string;
  chatbot_id: string;
  seq: number;
  type: string;
  payload: string; // JSON
  created_at: string;
}

export interface TagsTable {
  id: string;
  chatbot_id: string;
  name: string;
  color: string | null;
  created_at: string;
  updated_at: string;
}

export interface ConversationTagsTable {
  conversation_id: string;
  tag_id: string;
}

export interface KnowledgeGapsTable {
  id: string;
  chatbot_id: string;
  conversation_id: string | null;
  message_id: string | null;
  question: string;
  custom_response_id: string | null;
  answered_at: string | null;
  created_at: string;
}

export interface PromptsTable {
  id: string;
  chatbot_id: string;
  title: string;
  description: string;
  link: string | null;
  is_escalation_prompt: Generated<number>;
  position: number;
  created_at: string;
  updated_at: string;
}

export interface InstructionsTable {
  id: string;
  chatbot_id: string;
  title: string;
  description: string;
  instructions: string;
  temperature: number | null;
  created_at: string;
  updated_at: string;
}

export interface CustomResponsesTable {
  id: string;
  chatbot_id: string;
  question: string;
  answer: string;
  created_at: string;
  updated_at: string;
}

export interface ChatbotMembersTable {
  id: string;
  chatbot_id: string;
  user_id: string;
  role: string;
  invited_by_id: string | null;
  created_at: string;
}

export interface LeadsTable {
  id: string;
  chatbot_id: string;
  conversation_id: string | null;
  chat_user_id: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  custom_fields: string; // JSON
  source: string;
  created_at: string;
}

export interface ConversationsDatabase {
  chat_users: ChatUsersTable;
  conversations: ConversationsTable;
  messages: MessagesTable;
  answers_owed: AnswersOwedTable;
  conversation_events: ConversationEventsTable;
  tags: TagsTable;
  conversation_tags: ConversationTagsTable;
  knowledge_gaps: KnowledgeGapsTable;
  starters: PromptsTable;
  followups: PromptsTable;
  instructions: InstructionsTable;
  personas: InstructionsTable;
  custom_responses: CustomResponsesTable;
  chatbot_members: ChatbotMembersTable;
  leads: LeadsTable;
}

export interface VisitorCodesTable {
  id: string;
  chatbot_id: string;
  email: string;
  code_hash: string; // HMAC-SHA256 hex; the code itself is never stored
  name: string | null;
  phone: string | null;
  attempts: Generated<number>;
  expires_at: string;
  consumed_at: string | null;
  created_at: string;
}

export interface VisitorsDatabase {
  visitor_codes: VisitorCodesTable;
  visitor_throttle: { key: string; count: number; expires_at: string };
  identity_secrets: { chatbot_id: string; sealed: string; created_at: string };
  visitor_session_revocations: { session_id: string; chat_user_id: string; expires_at: string };
  knowledge_gap_deliveries: { gap_id: string; conversation_id: string; message_id: string | null; emailed_at: string | null; created_at: string };
}

/** The webhook outbox: one row per event and target; `id` is the stable `webhook-id`. */
export interface WebhookDeliveriesTable {
  id: string;
  chatbot_id: string;
  conversation_id: string | null;
  event: string; // message | escalation | lead
  variant: string; // A | B
  target_url: string;
  target_source: string; // thread | event | global | test
  token: string | null; // sealed (AES-256-GCM), bound to the delivery id
  body: string; // the exact bytes sent and signed
  status: string; // pending | delivered | failed | skipped
  attempts: Generated<number>; // attempts of the current round (the retry schedule)
  total_attempts: Generated<number>;
  next_attempt_at: string | null;
  lease_until: string | null;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookTargetsTable {
  chatbot_id: string;
  url: string;
  consecutive_failures: Generated<number>;
  disabled_at: string | null;
  disabled_reason: string | null;
  updated_at: string;
}

export interface WebhookSecretsTable {
  chatbot_id: string;
  secret: string; // sealed
  created_at: string;
  previous_secret: string | null; // sealed; still signs until previous_until
  previous_until: string | null;
}

export interface WebhooksDatabase {
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_targets: WebhookTargetsTable;
  webhook_secrets: WebhookSecretsTable;
}

/** The OAuth device flow and the verification page's sign-in (migration 0019). */
export interface OAuthDatabase {
  oauth_device_codes: {
    id: string;
    device_code_hash: string;
    user_code_hash: string;
    client_id: string;
    scopes: string | null; // JSON array; null = none asked for (Standard)
    chatbot_ids: string | null; // JSON array; null = every chatbot
    status: string; // pending | approved | denied | issued
    user_id: string | null;
    interval_seconds: number;
    last_polled_at: string | null;
    expires_at: string;
    created_at: string;
    decided_at: string | null;
    token_id: string | null;
  };
  user_passwords: { user_id: string; password_hash: string; updated_at: string };
  owner_sessions: { session_hash: string; user_id: string; created_at: string; expires_at: string };
  auth_throttle: { key: string; failures: number; window_started_at: string };
}
