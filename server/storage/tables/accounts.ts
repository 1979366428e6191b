/** Accounts, their users and tokens, chatbots and their icons, invoices and usage counters. */
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

export interface AccountsDatabase {
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
