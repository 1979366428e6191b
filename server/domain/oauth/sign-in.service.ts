/**
 * The team's sign-in (the console and the device verification page): an e-mail and a password
 * the operator set through the CLI, then a session cookie. Wrong passwords are throttled per
 * e-mail. A session ends 12 hours after sign-in, or after 2 hours without use, or on sign-out.
 * On a fresh install (no password anywhere) the start line prints a set-up link: the first owner
 * chooses their password with it, once, within 24 hours.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SCOPES } from '../../../shared/scopes.js';
import { type AuthContext, effectiveScopes, generateSecret, hashSecret } from '../auth.js';
import { AppError, validationFailed } from '../errors.js';
import type { Store, UserRecord } from '../ports.js';
import { DECOY_HASH, hashPassword, passwordProblem, verifyPassword } from './passwords.js';
import { Throttle } from './throttle.js';

const SIGN_IN_ATTEMPTS = 5;
const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SESSION_TTL_MS = 12 * 3600_000;
export const SESSION_IDLE_MS = 2 * 3600_000;
/** A session's last use is written at most this often: a page's burst of calls costs one write. */
const TOUCH_INTERVAL_MS = 60_000;
export const SETUP_LINK_TTL_MS = 24 * 3600_000;

const setupLinkNotValid = () =>
  new AppError('SETUP_LINK_NOT_VALID', 'This set-up link is not valid: used already, expired, or not this server’s', {
    hint: 'Sign in with your password, or ask the operator: `npm run cli -- users set-password --email <e-mail>`',
  });

export type SignInResult =
  | { ok: true; session: string; user: UserRecord }
  | { ok: false; problem: 'invalid' }
  | { ok: false; problem: 'throttled'; retryAfterSeconds: number };

const emailKey = (email: string) => `sign-in:${email.trim().toLowerCase()}`;

export class SignInService {
  private readonly now: () => number;
  private readonly throttle: Throttle;

  private readonly setupKey: Buffer | null;

  constructor(
    private readonly store: Store,
    options: { now?: () => number; secretKey?: Buffer } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.setupKey = options.secretKey
      ? createHmac('sha256', options.secretKey).update('parley first-run set-up link v1').digest()
      : null;
    this.throttle = new Throttle(store.oauth.throttle, SIGN_IN_ATTEMPTS, SIGN_IN_WINDOW_MS, this.now);
  }

  /** The operator sets `user`'s password (CLI). One e-mail signs in to one account. */
  async setPassword(user: UserRecord, password: string): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw validationFailed([{ path: ['password'], message: problem }], `The password ${problem}`);
    const others = (await this.store.oauth.credentials.byEmail(user.email)).filter((c) => c.userId !== user.id);
    if (others.length) {
      throw validationFailed(
        [{ path: ['email'], message: `already signs in to account ${others[0].accountId}` }],
        `${user.email} already signs in to another account`,
      );
    }
    await this.store.oauth.credentials.set(user.id, await hashPassword(password), new Date(this.now()).toISOString());
    await this.throttle.clear(emailKey(user.email));
  }

  async signIn(email: string, password: string): Promise<SignInResult> {
    const key = emailKey(email);
    // Counted before the password is hashed: concurrent guesses for one e-mail are held to the
    // limit as guesses one after another are (a success clears the count).
    const wait = await this.throttle.attempt(key);
    if (wait > 0) return { ok: false, problem: 'throttled', retryAfterSeconds: wait };
    const [found] = await this.store.oauth.credentials.byEmail(email.trim());
    // An unknown e-mail costs one scrypt too, so timing does not tell which e-mails exist.
    const matches = await verifyPassword(password, found?.passwordHash ?? DECOY_HASH);
    const user = found && matches ? await this.store.users.get(found.userId) : null;
    if (!user) return { ok: false, problem: 'invalid' };
    await this.throttle.clear(key);
    return { ok: true, ...(await this.startSession(user)) };
  }

  private async startSession(user: UserRecord): Promise<{ session: string; user: UserRecord }> {
    const { plaintext, hash } = generateSecret();
    const at = this.now();
    await this.store.oauth.sessions.insert(
      hash,
      user.id,
      new Date(at).toISOString(),
      new Date(at + SESSION_TTL_MS).toISOString(),
    );
    return { session: plaintext, user };
  }

  /** No user has a password yet: the console offers the first-run set-up. */
  async firstRun(): Promise<boolean> {
    return !(await this.store.oauth.credentials.any());
  }

  /**
   * The first-run set-up token for `owner` (the first account's owner), or null once anyone has
   * a password. Signed with the server secret, valid 24 hours; nothing is stored until it is used.
   */
  async setupToken(owner: UserRecord): Promise<string | null> {
    if (!this.setupKey || !(await this.firstRun())) return null;
    const body = Buffer.from(`${owner.id}.${this.now() + SETUP_LINK_TTL_MS}`).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /**
   * Sets the owner's first password with a set-up token and signs them in. Refused once any
   * password exists, after 24 hours, and on a second use (counted before the password is set,
   * so two tabs racing with one link cannot both pass).
   */
  async completeSetup(token: string, password: string): Promise<{ session: string; user: UserRecord }> {
    const problem = passwordProblem(password);
    if (problem) throw validationFailed([{ path: ['password'], message: problem }], `The password ${problem}`);
    const [body, mac] = token.split('.');
    const expected = body && this.setupKey ? this.sign(body) : '';
    if (
      !mac ||
      !expected ||
      mac.length !== expected.length ||
      !timingSafeEqual(Buffer.from(mac), Buffer.from(expected))
    )
      throw setupLinkNotValid();
    const [userId, until] = Buffer.from(body, 'base64url').toString('utf8').split('.');
    if (!(Number(until) > this.now()) || !(await this.firstRun())) throw setupLinkNotValid();
    const user = await this.store.users.get(userId);
    if (!user) throw setupLinkNotValid();
    const uses = new Throttle(this.store.oauth.throttle, 1, SETUP_LINK_TTL_MS, this.now);
    if ((await uses.attempt(`setup:${hashSecret(token)}`)) > 0) throw setupLinkNotValid();
    await this.setPassword(user, password);
    return this.startSession(user);
  }

  private sign(body: string): string {
    return createHmac('sha256', this.setupKey!).update(body).digest('base64url');
  }

  /** The user of a session cookie, or null when it is unknown, signed out or expired. */
  async user(session: string | undefined): Promise<UserRecord | null> {
    return (await this.live(session))?.user ?? null;
  }

  /**
   * A session cookie as a v2 API credential: the signed-in user with every scope their role
   * allows, on every chatbot their role reaches (exactly what a Full token of theirs could do).
   */
  async authenticate(session: string | undefined): Promise<AuthContext | null> {
    if (!session || session.length > 128) return null;
    return this.authenticateHash(hashSecret(session));
  }

  /** The signed-in caller of `auth` as it is now (for connections that outlive a request); null once signed out. */
  async current(auth: AuthContext): Promise<AuthContext | null> {
    return auth.session ? this.authenticateHash(auth.session) : null;
  }

  private async authenticateHash(sessionHash: string): Promise<AuthContext | null> {
    const found = await this.liveHash(sessionHash);
    if (!found) return null;
    const account = await this.store.accounts.get(found.user.accountId);
    if (!account) return null;
    const { user, hash, createdAt, lastSeenAt } = found;
    return {
      token: {
        // Not a token row: an id of its own per session (stream limits count per credential).
        id: `session-${hash.slice(0, 16)}`,
        accountId: account.id,
        userId: user.id,
        kind: 'api',
        name: 'Console sign-in',
        access: 'full',
        scopes: [...SCOPES],
        chatbotIds: null,
        createdAt,
        lastUsedAt: lastSeenAt,
        revokedAt: null,
      },
      user,
      account,
      scopes: effectiveScopes(SCOPES, user.role),
      session: hash,
    };
  }

  private async live(session: string | undefined) {
    if (!session || session.length > 128) return null;
    return this.liveHash(hashSecret(session));
  }

  private async liveHash(hash: string) {
    const at = this.now();
    const found = await this.store.oauth.sessions.live(
      hash,
      new Date(at).toISOString(),
      new Date(at - SESSION_IDLE_MS).toISOString(),
    );
    if (!found) return null;
    const user = await this.store.users.get(found.userId);
    if (!user) return null;
    if (at - Date.parse(found.lastSeenAt) > TOUCH_INTERVAL_MS)
      await this.store.oauth.sessions.touch(hash, new Date(at).toISOString());
    return { user, hash, createdAt: found.createdAt, lastSeenAt: found.lastSeenAt };
  }

  async signOut(session: string | undefined): Promise<void> {
    if (session && session.length <= 128) await this.store.oauth.sessions.remove(hashSecret(session));
  }

  /** Ends every session of the user, on every device. */
  async signOutEverywhere(user: UserRecord): Promise<void> {
    await this.store.oauth.sessions.removeUser(user.id);
  }
}
