/**
 * Token scopes (spec section 5), the three token access levels, and the dashboard roles.
 * A token's effective scopes = its own scopes ∩ the scopes of its creator's *current* role.
 */
export const SCOPES = [
  'account:read',
  'account:write',
  'billing:read',
  'billing:write',
  'tokens:read',
  'tokens:write',
  'chatbots:read',
  'chatbots:write',
  'chatbots:delete',
  'knowledge:read',
  'knowledge:write',
  'knowledge:delete',
  'personas:read',
  'personas:write',
  'personas:delete',
  'instructions:read',
  'instructions:write',
  'instructions:delete',
  'settings:read',
  'settings:write',
  'starters:read',
  'starters:write',
  'starters:delete',
  'followups:read',
  'followups:write',
  'followups:delete',
  'conversations:read',
  'conversations:write',
  'conversations:delete',
  'leads:read',
  'leads:write',
  'leads:delete',
  'members:read',
  'members:write',
  'members:delete',
  'integrations:read',
  'integrations:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export const TOKEN_ACCESS = ['standard', 'full', 'custom'] as const;
export type TokenAccess = (typeof TOKEN_ACCESS)[number];

/**
 * Full: every scope. Standard: day-to-day work on chatbots: every read and write scope, but no
 * delete scope and nothing that changes money, credentials or people (billing:write,
 * tokens:write, account:write, members:write). Custom: exactly the scopes listed.
 */
export const STANDARD_SCOPES: readonly Scope[] = SCOPES.filter(
  (s) => !s.endsWith(':delete') && !['billing:write', 'tokens:write', 'account:write', 'members:write'].includes(s),
);

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What each dashboard role may do; a token never exceeds its creator's current role.
 * - owner: everything, including billing, the account and every token.
 * - admin: everything about chatbots, knowledge, conversations, members and tokens,
 *   but not billing:write nor account:write.
 * - member: reads everything but billing, and works conversations, leads and knowledge
 *   (write, not delete); no settings, members, tokens beyond reading, nor deletes.
 */
export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: SCOPES,
  admin: SCOPES.filter((s) => s !== 'billing:write' && s !== 'account:write'),
  member: SCOPES.filter(
    (s) =>
      (s.endsWith(':read') && s !== 'billing:read') ||
      ['conversations:write', 'leads:write', 'knowledge:write', 'tokens:write'].includes(s),
  ),
};

export function scopesForAccess(access: TokenAccess, custom: readonly string[] = []): Scope[] {
  if (access === 'full') return [...SCOPES];
  if (access === 'standard') return [...STANDARD_SCOPES];
  return SCOPES.filter((s) => custom.includes(s));
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
