import { ROLE_SCOPES, type Role } from '../../shared/scopes.js';
import type { AuthContext } from './auth.js';
import { AppError, notFound, validationFailed } from './errors.js';
import { newId, nowIso } from './ids.js';
import { SELF_HOSTED_PLAN } from './plans.js';
import { cleanName } from './resources/members.js';
import type { AccountRecord, Plan, Store, UserRecord } from './ports.js';

export interface AccountView {
  id: string;
  name: string;
  plan: Plan;
  role: Role;
  createdAt: string;
  updatedAt: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export class AccountsService {
  constructor(private readonly store: Store) {}

  /** A fresh install gets one account with one owner, on the self-hosted plan. */
  async bootstrap(ownerEmail: string): Promise<AccountRecord> {
    const existing = await this.store.accounts.list();
    if (existing.length) return existing[0];
    return (await this.create(ownerEmail, 'My account')).account;
  }

  async create(email: string, name?: string): Promise<{ account: AccountRecord; owner: UserRecord }> {
    if (!EMAIL.test(email)) throw validationFailed([{ path: ['email'], message: 'must be an e-mail address' }]);
    const at = nowIso();
    const account: AccountRecord = {
      id: newId(),
      name: name ?? email,
      plan: { ...SELF_HOSTED_PLAN },
      createdAt: at,
      updatedAt: at,
    };
    const owner: UserRecord = {
      id: newId(),
      accountId: account.id,
      email: email.toLowerCase(),
      name: null,
      role: 'owner',
      createdAt: at,
    };
    await this.store.transaction(async (s) => {
      await s.accounts.insert(account);
      await s.users.insert(owner);
    });
    return { account, owner };
  }

  list(): Promise<AccountRecord[]> {
    return this.store.accounts.list();
  }

  /** The account an operator command means: the given id, or the install's first account. */
  async resolve(id?: string): Promise<AccountRecord> {
    if (id) {
      const account = await this.store.accounts.get(id);
      if (!account) throw notFound('Account');
      return account;
    }
    const [first] = await this.store.accounts.list();
    if (!first)
      throw new AppError('NOT_FOUND', 'No account exists yet', { hint: 'Run `cli migrate` or start the server once' });
    return first;
  }

  async setPlan(id: string, plan: Partial<Plan>): Promise<AccountRecord> {
    await this.resolve(id);
    await this.store.accounts.update(id, { plan }, nowIso());
    return (await this.store.accounts.get(id))!;
  }

  view(auth: AuthContext): AccountView {
    const a = auth.account;
    return {
      id: a.id,
      name: a.name,
      plan: a.plan,
      role: auth.user.role,
      createdAt: a.createdAt,
      updatedAt: a.updatedAt,
    };
  }

  async update(auth: AuthContext, patch: { name?: string }): Promise<AccountView> {
    const at = nowIso();
    await this.store.accounts.update(auth.account.id, patch, at);
    const account = (await this.store.accounts.get(auth.account.id))!;
    return this.view({ ...auth, account });
  }

  /** `PATCH /me`: the token's user sets their own display name (members' PATCH needs members:write, which agents lack). */
  async rename(auth: AuthContext, name: string | null) {
    const clean = cleanName(name);
    if (clean !== auth.user.name) await this.store.resources.members.setUserName(auth.user.id, clean);
    return this.me({ ...auth, user: { ...auth.user, name: clean } });
  }

  /** `GET /me`: who the token is and what it may do. */
  me(auth: AuthContext) {
    return {
      user: { id: auth.user.id, email: auth.user.email, name: auth.user.name, role: auth.user.role },
      account: {
        id: auth.account.id,
        name: auth.account.name,
        plan: auth.account.plan.name,
        active: auth.account.plan.active,
      },
      token: {
        id: auth.token.id,
        name: auth.token.name,
        access: auth.token.access,
        createdAt: auth.token.createdAt,
        lastUsedAt: auth.token.lastUsedAt,
      },
      scopes: [...auth.scopes],
      /** Scopes the token holds but the creator's current role withholds. */
      withheldByRole: auth.token.scopes.filter((s) => !ROLE_SCOPES[auth.user.role].includes(s)),
      chatbotIds: auth.token.chatbotIds,
    };
  }
}
