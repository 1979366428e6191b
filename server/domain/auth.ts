/**
 * Who is calling: the token's identity and what it may do. A token acts within its own scopes,
 * its chatbot restriction and its creator's *current* dashboard role (resolved per request, so
 * a demotion or a revocation takes effect on the next request).
 */
import { createHash, randomBytes } from 'node:crypto';
import { ROLE_SCOPES, type Role, type Scope } from '../../shared/scopes.js';
import { AppError, chatbotNotFound } from './errors.js';
import type { AccountRecord, ChatbotRecord, TokenRecord, UserRecord } from './ports.js';

export interface AuthContext {
  token: TokenRecord;
  user: UserRecord;
  account: AccountRecord;
  /** Effective scopes: the token's scopes limited by the user's role. */
  scopes: Set<Scope>;
  /** Set when the caller is a signed-in session (the console's cookie), not a token: its hash. */
  session?: string;
}

/** 256 random bits, base64url; opaque (no prefix a client could rely on). */
export function generateSecret(): { plaintext: string; hash: string } {
  const plaintext = randomBytes(32).toString('base64url');
  return { plaintext, hash: hashSecret(plaintext) };
}

export const hashSecret = (plaintext: string) => createHash('sha256').update(plaintext, 'utf8').digest('hex');

/** Each role's scopes as a set, built once (every request intersects with one). */
const ROLE_SCOPE_SETS = new Map<Role, ReadonlySet<Scope>>();

export function effectiveScopes(tokenScopes: readonly Scope[], role: Role): Set<Scope> {
  let allowed = ROLE_SCOPE_SETS.get(role);
  if (!allowed) ROLE_SCOPE_SETS.set(role, (allowed = new Set(ROLE_SCOPES[role] ?? [])));
  return new Set(tokenScopes.filter((s) => allowed.has(s)));
}

export function missingScopes(auth: AuthContext, required: readonly Scope[]): Scope[] {
  return required.filter((s) => !auth.scopes.has(s));
}

export function requireScopes(auth: AuthContext, required: readonly Scope[]): void {
  const missing = missingScopes(auth, required);
  if (missing.length) {
    throw new AppError('TOKEN_SCOPE_NOT_ALLOWED', `This token lacks the scope ${missing.join(', ')}`, {
      details: { requiredScopes: required, missingScopes: missing },
      hint: `Create a token that includes ${missing.join(', ')} (Custom access), or ask an owner to raise your role`,
    });
  }
}

/** A chatbot outside the token's account or restriction does not exist for that token. */
export function assertChatbotReach(auth: AuthContext, chatbot: ChatbotRecord | null): ChatbotRecord {
  if (!chatbot || chatbot.accountId !== auth.account.id) throw chatbotNotFound();
  if (auth.token.chatbotIds && !auth.token.chatbotIds.includes(chatbot.id)) throw chatbotNotFound();
  return chatbot;
}
