/**
 * The account side's rows (accounts, users, tokens, chatbots, icons, invoices) as the domain
 * sees them. A leaf: the ports of every area import these without importing each other.
 */
import type { Role, Scope, TokenAccess } from '../../shared/scopes.js';

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
