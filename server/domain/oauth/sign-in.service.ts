/**
 * The owner's sign-in for the verification page: an e-mail and a password the operator set
 * through the CLI, then a session cookie. Wrong passwords are throttled per e-mail.
 */
import { generateSecret, hashSecret } from '../auth.js';
import { validationFailed } from '../errors.js';
import type { Store, UserRecord } from '../ports.js';
import { DECOY_HASH, hashPassword, passwordProblem, verifyPassword } from './passwords.js';
import { Throttle } from './throttle.js';

const SIGN_IN_ATTEMPTS = 5;
const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SESSION_TTL_MS = 12 * 3600_000;

export type SignInResult =
  | { ok: true; session: string; user: UserRecord }
  | { ok: false; problem: 'invalid' }
  | { ok: false; problem: 'throttled'; retryAfterSeconds: number };

const emailKey = (email: string) => `sign-in:${email.trim().toLowerCase()}`;

export class SignInService {
  private readonly now: () => number;
  private readonly throttle: Throttle;

  constructor(
    private readonly store: Store,
    options: { now?: () => number } = {},
  ) {
    this.now = options.now ?? Date.now;
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
    const { plaintext, hash } = generateSecret();
    const at = this.now();
    await this.store.oauth.sessions.insert(
      hash,
      user.id,
      new Date(at).toISOString(),
      new Date(at + SESSION_TTL_MS).toISOString(),
    );
    return { ok: true, session: plaintext, user };
  }

  /** The user of a session cookie, or null when it is unknown, signed out or expired. */
  async user(session: string | undefined): Promise<UserRecord | null> {
    if (!session || session.length > 128) return null;
    const userId = await this.store.oauth.sessions.user(hashSecret(session), new Date(this.now()).toISOString());
    return userId ? this.store.users.get(userId) : null;
  }

  async signOut(session: string | undefined): Promise<void> {
    if (session && session.length <= 128) await this.store.oauth.sessions.remove(hashSecret(session));
  }
}
