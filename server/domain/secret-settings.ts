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

type Kind = 'public' | 'token' | 'instructions';
// Settings are shown on every chatbot read (60 keys): each name is classified once, not per read.
const kinds = new Map<string, Kind>();
const kindOf = (key: string): Kind => {
  let kind = kinds.get(key);
  if (!kind) {
    kind =
      (TOKEN_SETTINGS as readonly string[]).includes(key) || SECRET_NAME.test(key)
        ? 'token'
        : (INSTRUCTION_SETTINGS as readonly string[]).includes(key)
          ? 'instructions'
          : 'public';
    // Unknown keys are refused on write, so the names stay few; the bound is only a guard.
    if (kinds.size < 10_000) kinds.set(key, kind);
  }
  return kind;
};
const isToken = (key: string) => kindOf(key) === 'token';

/** `****` and the last four characters (only `****` for values too short to hide anything with four shown). */
export function maskSecret(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  return value.length >= 12 ? `****${value.slice(-4)}` : '****';
}

/**
 * The settings as `auth` may see them, `defaults` filling what `settings` lacks: private ones
 * dropped without `settings:read`, credentials masked. One pass, no merged copy first (every
 * chatbot read shows ~60 of them).
 */
export function visibleSettings(
  auth: AuthContext,
  settings: Record<string, unknown>,
  defaults: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const full = auth.scopes.has('settings:read');
  const out: Record<string, unknown> = {};
  const show = (key: string, value: unknown) => {
    const kind = kindOf(key);
    if (kind === 'public') out[key] = value;
    else if (full) out[key] = kind === 'token' ? maskSecret(value) : value;
  };
  for (const key in defaults) show(key, key in settings ? settings[key] : defaults[key]);
  for (const key in settings) if (!(key in defaults)) show(key, settings[key]);
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
