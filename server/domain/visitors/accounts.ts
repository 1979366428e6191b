/**
 * Visitor accounts by e-mail code (OTP) and the one place a visitor becomes verified.
 *
 * A code is 6 digits from a CSPRNG, stored only as an HMAC (keyed from the server secret and
 * bound to the chatbot and address), valid 10 minutes, void after 5 wrong tries, used once (an
 * atomic conditional update), and replaced by the next code for the address. Sends are throttled
 * per address, per IP and per chatbot. Known and unknown addresses take the same path (a code is
 * sent either way; the visitor is created on verification), so no answer reveals which exist.
 * The code is never returned and never logged: only the mail carries it.
 */
import { createHmac, hkdfSync, randomInt, timingSafeEqual } from 'node:crypto';
import type { ConditionState, ConversationsFrame, TeamMember, VisitorInfo } from '../../../shared/protocol.js';
import type { ChatUserRecord } from '../conversations/ports.js';
import { visitorInfo } from '../conversations/views.js';
import { AppError, chatbotNotFound, validationFailed } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import type { ChatbotRecord, Store } from '../ports.js';
import { normalizeContact } from '../resources/lead-fields.js';
import { teamMember } from '../team-member.js';
import { botName, localeOf, mailStrings } from './mail-text.js';
import type { Mailer } from './ports.js';

export interface CodeLimits {
  /** How long a code is valid. */
  ttlMs: number;
  /** Tries a code allows: each try is counted before the comparison, so the 5th wrong one voids it. */
  maxAttempts: number;
  /** Least time between two codes for one address. */
  resendAfterMs: number;
  /** Codes per address, per IP and per chatbot within `windowMs`. */
  perAddress: number;
  perIp: number;
  perChatbot: number;
  windowMs: number;
}

export const DEFAULT_CODE_LIMITS: CodeLimits = {
  ttlMs: 10 * 60_000,
  maxAttempts: 5,
  resendAfterMs: 60_000,
  perAddress: 5,
  perIp: 20,
  perChatbot: 500,
  windowMs: 60 * 60_000,
};

const invalidCode = () =>
  new AppError('CODE_NOT_VALID', 'The code is not valid', {
    hint: 'Codes expire after 10 minutes, work once and only the newest works; request a new one',
  });

const rateLimited = (retryAfterMs: number) => {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError('RATE_LIMITED', 'Too many codes were requested; try again later', {
    hint: `Try again in ${seconds} seconds`,
    details: { retryAfter: seconds },
    headers: { 'retry-after': String(seconds) },
  });
};

export class VisitorAccounts {
  private readonly key: Buffer;
  private readonly limits: CodeLimits;
  private lastPrune = 0;

  constructor(
    private readonly store: Store,
    private readonly mailer: Mailer,
    secretKey: Buffer,
    limits: Partial<CodeLimits> = {},
  ) {
    this.key = Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'parley visitor codes v1', 32));
    this.limits = { ...DEFAULT_CODE_LIMITS, ...limits };
  }

  /**
   * Sends a new code to `email` (voiding any earlier one). `name`/`phone` (per collectUserData)
   * are kept with the code and applied to the visitor once it is verified. The same answer for
   * every address; RATE_LIMITED when a throttle is reached; UPSTREAM_UNAVAILABLE when the mail
   * could not be handed to the mail server.
   */
  async requestCode(input: {
    chatbotId: string;
    email: string;
    name?: string | null;
    phone?: string | null;
    ip: string;
  }): Promise<{ email: string; resendAfter: number }> {
    const chatbot = await this.chatbot(input.chatbotId);
    const { email, name, phone } = this.contact(input);
    const now = Date.now();
    void this.prune(now);

    const previous = await this.store.visitors.codes.get(chatbot.id, email);
    if (previous && !previous.consumedAt) {
      const wait = Date.parse(previous.createdAt) + this.limits.resendAfterMs - now;
      if (wait > 0) throw rateLimited(wait);
    }
    const window = Math.floor(now / this.limits.windowMs);
    const windowEnd = (window + 1) * this.limits.windowMs;
    const until = new Date(windowEnd).toISOString();
    const counts = await Promise.all([
      this.store.visitors.throttle.hit(`code:address:${chatbot.id}:${this.digest(email)}:${window}`, until),
      this.store.visitors.throttle.hit(`code:ip:${this.digest(input.ip)}:${window}`, until),
      this.store.visitors.throttle.hit(`code:chatbot:${chatbot.id}:${window}`, until),
    ]);
    if (counts[0] > this.limits.perAddress || counts[1] > this.limits.perIp || counts[2] > this.limits.perChatbot)
      throw rateLimited(windowEnd - now);

    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const at = new Date(now);
    const id = newId();
    const codeHash = this.hash(chatbot.id, email, code);
    await this.store.visitors.codes.put({
      id,
      chatbotId: chatbot.id,
      email,
      codeHash,
      name,
      phone,
      attempts: 0,
      expiresAt: new Date(now + this.limits.ttlMs).toISOString(),
      consumedAt: null,
      createdAt: at.toISOString(),
    });
    const locale = localeOf(chatbot.settings);
    const t = mailStrings(locale);
    const bot = botName(chatbot);
    try {
      await this.mailer.send({
        to: email,
        subject: t.codeSubject(bot),
        text: `${t.codeBody(bot, code, Math.round(this.limits.ttlMs / 60_000))}\n\n${t.ignore}\n`,
        language: locale,
      });
    } catch {
      // A code never sent is voided: its resend wait would refuse the visitor's retry as RATE_LIMITED.
      await this.store.visitors.codes.consume(id, codeHash, at.toISOString()).catch(() => undefined);
      throw new AppError('UPSTREAM_UNAVAILABLE', 'The code could not be sent', {
        hint: 'The mail server did not take the message; try again shortly',
      });
    }
    return { email, resendAfter: Math.ceil(this.limits.resendAfterMs / 1000) };
  }

  /**
   * Checks a code and uses it up. On success the visitor is the chatbot's one verified visitor
   * of that address (created on first verification); the conversations of `currentChatUserId`
   * (the session's visitor, when not verified as someone else) join that history. Every failure
   * is the same CODE_NOT_VALID.
   */
  async verifyCode(input: {
    chatbotId: string;
    email: string;
    code: string;
    currentChatUserId?: string | null;
  }): Promise<{ visitor: VisitorInfo; chatUser: ChatUserRecord }> {
    const chatbot = await this.chatbot(input.chatbotId);
    const { email } = this.contact({ email: input.email });
    const code = String(input.code ?? '').trim();
    if (!/^[0-9]{6}$/.test(code)) throw invalidCode();
    const record = await this.store.visitors.codes.get(chatbot.id, email);
    const now = nowIso();
    // A try is taken before the comparison, so concurrent guesses cannot outrun the limit.
    if (!record || !(await this.store.visitors.codes.attempt(record.id, now, this.limits.maxAttempts)))
      throw invalidCode();
    const hash = this.hash(chatbot.id, email, code);
    if (!timingSafeEqual(Buffer.from(hash, 'hex'), Buffer.from(record.codeHash, 'hex'))) throw invalidCode();
    if (!(await this.store.visitors.codes.consume(record.id, hash, now))) throw invalidCode();
    const chatUser = await this.bindVerified(
      chatbot.id,
      email,
      { name: record.name, phone: record.phone },
      input.currentChatUserId ?? null,
    );
    return { visitor: visitorInfo(chatUser), chatUser };
  }

  /**
   * Makes `email` a verified visitor of the chatbot and returns it (the one place this happens:
   * e-mail codes and signed host-page identities both end here). Only the caller's own
   * unverified visitor is merged into it; other visitors who merely typed the address are not.
   */
  async bindVerified(
    chatbotId: string,
    email: string,
    details: { name?: string | null; phone?: string | null },
    currentChatUserId: string | null,
  ): Promise<ChatUserRecord> {
    const attempt = () =>
      this.store.transaction(async (s) => {
        const at = nowIso();
        const current = currentChatUserId ? await s.conversations.chatUsers.get(currentChatUserId) : null;
        const own = current && current.chatbotId === chatbotId ? current : null;
        const patch = {
          ...(details.name ? { name: details.name } : {}),
          ...(details.phone ? { phone: details.phone } : {}),
        };
        const existing = await s.visitors.chatUsers.verified(chatbotId, email);
        if (existing) {
          if (own && own.id !== existing.id && !own.verified)
            await s.visitors.chatUsers.merge(chatbotId, own.id, existing.id);
          if (Object.keys(patch).length)
            await s.conversations.chatUsers.update(existing.id, { ...patch, updatedAt: at });
          return { ...existing, ...patch };
        }
        if (own && !own.verified) {
          await s.conversations.chatUsers.update(own.id, { ...patch, email, verified: true, updatedAt: at });
          return { ...own, ...patch, email, verified: true, updatedAt: at };
        }
        const created: ChatUserRecord = {
          id: newId(),
          chatbotId,
          email,
          name: details.name ?? null,
          phone: details.phone ?? null,
          verified: true,
          metadata: {},
          createdAt: at,
          updatedAt: at,
        };
        await s.conversations.chatUsers.insert(created);
        return created;
      });
    try {
      return await attempt();
    } catch {
      // A concurrent first verification of the address created its visitor (one verified visitor
      // per address is a unique index): the second attempt finds and joins it.
      return attempt();
    }
  }

  /** The visitor's conversations (newest activity first, at most `limit`), as the widget lists them. */
  async conversations(
    chatbot: Pick<ChatbotRecord, 'id' | 'settings'>,
    chatUserId: string,
    limit = 50,
  ): Promise<ConversationsFrame['items']> {
    const list = await this.store.visitors.chatUsers.conversations(chatbot.id, chatUserId, limit);
    const agents = new Map<string, TeamMember>();
    const items: ConversationsFrame['items'] = [];
    for (const c of list) {
      if (c.agentId && !agents.has(c.agentId))
        agents.set(c.agentId, teamMember(chatbot, c.agentId, await this.store.users.get(c.agentId)));
      const last = (await this.store.conversations.messages.last(c.id, 1))[0];
      const state: ConditionState = {
        mode: c.mode,
        status: c.status,
        escalated: c.escalated,
        agent: c.agentId ? (agents.get(c.agentId) ?? null) : null,
      };
      items.push({ id: c.id, lastMessage: last?.text ?? null, lastMessageAt: c.lastMessageAt, seq: c.seq, state });
    }
    return items;
  }

  /** The visitor (null when gone or of another chatbot). */
  async visitor(chatbotId: string, chatUserId: string): Promise<VisitorInfo | null> {
    const u = await this.store.conversations.chatUsers.get(chatUserId);
    return u && u.chatbotId === chatbotId ? visitorInfo(u) : null;
  }

  /** Ends one visitor session on every server instance: `isLoggedOut` answers true until it would have expired anyway. */
  async logout(session: { id: string; chatUserId: string; expiresAt: string }): Promise<void> {
    await this.store.visitors.sessions.revoke(session.id, session.chatUserId, session.expiresAt);
  }

  isLoggedOut(sessionId: string): Promise<boolean> {
    return this.store.visitors.sessions.isRevoked(sessionId);
  }

  // ---- helpers -----------------------------------------------------------------------------

  private async chatbot(id: string): Promise<ChatbotRecord> {
    const chatbot = await this.store.chatbots.get(id);
    if (!chatbot) throw chatbotNotFound();
    return chatbot;
  }

  private contact(input: { email: string; name?: string | null; phone?: string | null }) {
    const errors: { path: string[]; message: string }[] = [];
    const email = normalizeContact(input.email, 'email', 'email', errors);
    const name = normalizeContact(input.name, 'name', 'text', errors);
    const phone = normalizeContact(input.phone, 'phone', 'phone', errors);
    if (!email && !errors.length) errors.push({ path: ['email'], message: 'is required' });
    if (errors.length) throw validationFailed(errors, 'The contact details are not valid');
    return { email: email!, name, phone };
  }

  private hash(chatbotId: string, email: string, code: string): string {
    return createHmac('sha256', this.key).update(`${chatbotId}\n${email}\n${code}`).digest('hex');
  }

  /** Throttle keys hold no address or IP in clear. */
  private digest(value: string): string {
    return createHmac('sha256', this.key).update(`throttle\n${value}`).digest('base64url').slice(0, 22);
  }

  /** Drops expired codes, counters and revocations, at most every few minutes per process. */
  private async prune(now: number) {
    if (now - this.lastPrune < 5 * 60_000) return;
    this.lastPrune = now;
    const before = new Date(now).toISOString();
    try {
      await this.store.visitors.codes.deleteExpired(before);
      await this.store.visitors.throttle.deleteExpired(before);
      await this.store.visitors.sessions.deleteExpired(before);
    } catch {
      // Housekeeping only: the next request tries again.
      this.lastPrune = 0;
    }
  }
}
