/**
 * Credentials stored inside rows (webhook tokens in a chatbot's settings and on a thread) are
 * AES-256-GCM-encrypted with the server's SecretBox on write and decrypted on read, so the domain
 * works with plain values and the database file never holds them. Each value is bound to its row
 * and field (a ciphertext copied elsewhere does not open).
 *
 * A value written before encryption (no `enc:` prefix) is read as it is and encrypted on its next
 * write. A value that no longer opens (SECRET_KEY changed) reads as unset: the owner sets it again.
 * A store built without a SecretBox (tools and tests working on bare tables) keeps values as given.
 */
import type { ConversationRecord, ConversationStore } from '../domain/conversations/ports.js';
import type { ChatbotRecord, Page, Store } from '../domain/ports.js';
import { TOKEN_SETTINGS } from '../domain/secret-settings.js';
import type { SecretBox } from '../domain/secrets.js';

const PREFIX = 'enc:';

export interface FieldSeal {
  seal(value: string | null, context: string): string | null;
  open(value: string | null, context: string): string | null;
  /** A chatbot's settings with every credential sealed (write) or opened (read). */
  sealSettings(settings: Record<string, unknown>, chatbotId: string): Record<string, unknown>;
  openSettings(settings: Record<string, unknown>, chatbotId: string): Record<string, unknown>;
}

export function fieldSeal(box?: SecretBox): FieldSeal {
  const seal = (value: string | null, context: string) =>
    !box || value === null || value === '' ? value : PREFIX + box.encrypt(value, context);
  const open = (value: string | null, context: string) => {
    if (!box || value === null || !value.startsWith(PREFIX)) return value;
    try {
      return box.decrypt(value.slice(PREFIX.length), context);
    } catch {
      return null;
    }
  };
  const mapSettings = (settings: Record<string, unknown>, chatbotId: string, fn: typeof seal) => {
    if (!box || !TOKEN_SETTINGS.some((k) => typeof settings[k] === 'string')) return settings;
    const out = { ...settings };
    for (const k of TOKEN_SETTINGS)
      if (typeof out[k] === 'string') out[k] = fn(out[k] as string, `chatbot:${chatbotId}:${k}`);
    return out;
  };
  return {
    seal,
    open,
    sealSettings: (s, id) => mapSettings(s, id, seal),
    openSettings: (s, id) => mapSettings(s, id, open),
  };
}

/** The chatbots repository with the credentials in settings sealed on write and opened on read. */
export function sealedChatbots(repo: Store['chatbots'], sealed: FieldSeal): Store['chatbots'] {
  const open = (c: ChatbotRecord): ChatbotRecord => ({ ...c, settings: sealed.openSettings(c.settings, c.id) });
  const openPage = (p: Page<ChatbotRecord>): Page<ChatbotRecord> => ({ ...p, items: p.items.map(open) });
  return {
    ...repo,
    insert: (c) => repo.insert({ ...c, settings: sealed.sealSettings(c.settings, c.id) }),
    get: async (id) => {
      const c = await repo.get(id);
      return c && open(c);
    },
    page: async (...args) => openPage(await repo.page(...args)),
    memberPage: async (...args) => openPage(await repo.memberPage(...args)),
    update: (id, patch, at) =>
      repo.update(id, patch.settings ? { ...patch, settings: sealed.sealSettings(patch.settings, id) } : patch, at),
  };
}

/** The conversations store with a thread's webhook token sealed on write and opened on read. */
export function sealedConversations(repo: ConversationStore, sealed: FieldSeal): ConversationStore {
  const context = (id: string) => `conversation:${id}:webhookToken`;
  const open = (c: ConversationRecord): ConversationRecord => ({
    ...c,
    webhookToken: sealed.open(c.webhookToken, context(c.id)),
  });
  return {
    ...repo,
    insert: (c) => repo.insert({ ...c, webhookToken: sealed.seal(c.webhookToken, context(c.id)) }),
    get: async (id) => {
      const c = await repo.get(id);
      return c && open(c);
    },
    page: async (...args) => {
      const p = await repo.page(...args);
      return { ...p, items: p.items.map(open) };
    },
    cas: (id, expected, next, patch) =>
      repo.cas(
        id,
        expected,
        next,
        patch.webhookToken !== undefined
          ? { ...patch, webhookToken: sealed.seal(patch.webhookToken, context(id)) }
          : patch,
      ),
  };
}
