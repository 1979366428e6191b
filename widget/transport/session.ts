/**
 * The visitor's session token. Read from localStorage when a previous visit left one; created
 * (POST /api/widget/{id}/session) and written only once the visitor acts, so a page view alone
 * stores nothing. Other tabs of the same visitor see the change through the `storage` event.
 */
import type { SessionRequest, SessionResponse, VisitorInfo } from '../../shared/protocol.js';
import { knownLanguage } from '../i18n/locales.js';

export interface StoredSession {
  token: string;
  expiresAt: string;
  conversationId: string | null;
}

const RENEW_BEFORE_MS = 60_000;

export class Session {
  readonly key: string;
  identity: SessionRequest['identity'] | undefined;
  /** The last identity the server refused (the host page may keep passing it). */
  refused: SessionRequest['identity'] | undefined;
  context: Record<string, string> | undefined;
  locale: string | undefined;
  visitor: VisitorInfo | null = null;

  constructor(
    private readonly base: string,
    readonly chatbotId: string,
    private readonly storage: Storage | null = safeStorage(),
  ) {
    this.key = `parley:${chatbotId}`;
  }

  read(): StoredSession | null {
    try {
      const raw = this.storage?.getItem(this.key);
      const parsed = raw ? (JSON.parse(raw) as StoredSession) : null;
      return parsed && typeof parsed.token === 'string' ? parsed : null;
    } catch {
      return null;
    }
  }

  write(patch: Partial<StoredSession>) {
    const current = this.read() ?? { token: '', expiresAt: '', conversationId: null };
    try {
      this.storage?.setItem(this.key, JSON.stringify({ ...current, ...patch }));
    } catch {
      /* storage full or blocked: the session lives for this page only */
    }
  }

  clear() {
    try {
      this.storage?.removeItem(this.key);
    } catch {
      /* blocked storage */
    }
  }

  /** A token to connect with: the stored one while valid, else a renewed or new session. */
  async token(fresh = false): Promise<string> {
    const stored = this.read();
    if (!fresh && stored?.token && Date.parse(stored.expiresAt) - Date.now() > RENEW_BEFORE_MS) return stored.token;
    const body: SessionRequest = {};
    if (stored?.token) body.renew = stored.token;
    if (this.identity) body.identity = this.identity;
    if (this.context) body.context = withinLimits(this.context);
    // The host page may pass a regional tag (`de-CH`, navigator.language): the server knows languages.
    const language = this.locale && knownLanguage(this.locale);
    if (language) body.locale = language;
    const res = await fetch(`${this.base}/api/widget/${encodeURIComponent(this.chatbotId)}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const envelope = (await res.json().catch(() => null)) as {
      ok?: boolean;
      data?: SessionResponse;
      error?: { message?: string };
    } | null;
    if (!res.ok || !envelope?.data?.token) {
      // A claim the server refuses (bad signature, too long) is the host page's mistake: the
      // visitor goes on anonymously, with the session and conversation they have.
      if (body.identity && (res.status === 400 || res.status === 401)) {
        console.warn('parley: identify refused:', envelope?.error?.message ?? res.status);
        this.refused = this.identity;
        this.identity = undefined;
        return this.token(fresh);
      }
      // A renew the server refuses (expired, other chatbot) starts over as a new visitor.
      if (body.renew && res.status >= 400 && res.status < 500 && res.status !== 429) {
        this.clear();
        return this.token(true);
      }
      throw new Error(`session ${res.status}`);
    }
    this.visitor = envelope.data.visitor;
    this.write({
      token: envelope.data.token,
      expiresAt: envelope.data.expiresAt,
      conversationId: stored?.conversationId ?? null,
    });
    return envelope.data.token;
  }
}

/** Page context as the session request takes it (20 keys of up to 64 characters, values up to 500): longer values are cut, the rest left out. */
function withinLimits(context: Record<string, string>): Record<string, string> {
  const entries = Object.entries(context).filter(([key]) => key.length <= 64);
  return Object.fromEntries(entries.slice(0, 20).map(([key, value]) => [key, value.slice(0, 500)]));
}

function safeStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}
