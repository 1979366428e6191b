/**
 * Settings that are secrets. Webhook tokens (the chatbot's and a thread's) are credentials: stored
 * encrypted (storage/sealed-fields.ts) and, once set, only ever shown masked to their last four
 * characters. Those and the model's instructions are returned only to a token with
 * `settings:read`; `chatbots:read` alone sees the chatbot without them.
 */
import { INSTRUCTION_SETTINGS, TOKEN_SETTINGS } from '../../shared/settings.js';
import type { AuthContext } from './auth.js';

export { TOKEN_SETTINGS };

/** Any setting named like a secret (a webhook signing secret) is treated as one. */
const SECRET_NAME = /secret/i;

const isToken = (key: string) => (TOKEN_SETTINGS as readonly string[]).includes(key) || SECRET_NAME.test(key);
const isPrivate = (key: string) => isToken(key) || (INSTRUCTION_SETTINGS as readonly string[]).includes(key);

/** `****` and the last four characters (only `****` for values too short to hide anything with four shown). */
export function maskSecret(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  return value.length >= 12 ? `****${value.slice(-4)}` : '****';
}

/** The settings as `auth` may see them: private ones dropped without `settings:read`, credentials masked. */
export function visibleSettings(auth: AuthContext, settings: Record<string, unknown>): Record<string, unknown> {
  const full = auth.scopes.has('settings:read');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) {
    if (!isPrivate(key)) out[key] = value;
    else if (full) out[key] = isToken(key) ? maskSecret(value) : value;
  }
  return out;
}

/**
 * A settings PATCH that sends a credential back exactly as it was shown (its mask) keeps the stored
 * value: clients that read the settings and write them back do not replace a token by its mask.
 */
export function keepMaskedSecret(key: string, incoming: unknown, stored: unknown): unknown {
  return isToken(key) && typeof incoming === 'string' && incoming.startsWith('****') && incoming === maskSecret(stored)
    ? stored
    : incoming;
}
