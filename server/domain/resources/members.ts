/**
 * Members: the people who work on a chatbot, invited by e-mail with a role.
 *
 * Roles are the account's dashboard roles (shared/scopes.ts ROLE_SCOPES), because a token is
 * bounded by its creator's dashboard role (spec 5.3):
 * - inviting an e-mail the account does not know creates that user with the invited role;
 * - inviting an existing user adds the membership and leaves their role as it is (a warning
 *   says so when the invited role differs); PATCH {role} is the deliberate change of a user's
 *   role, and applies account-wide from their next request;
 * - a user with role `member` reaches only the chatbots they were added to; `admin` and the
 *   owner reach every chatbot of the account;
 * - the account owner's role never changes and their membership cannot be removed;
 * - `name` is the user's display name, account-wide: what visitors see on their replies and
 *   when they take a conversation over (teamDisplayName). Without one, visitors see the widget's
 *   "support team" text, never the e-mail address.
 * The membership row mirrors the user's role so a listing needs no second lookup.
 */
import type { Role } from '../../../shared/scopes.js';
import type { AuthContext } from '../auth.js';
import { confirmationRequired, notFound, validationFailed } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import type { UserRecord } from '../ports.js';
import type { ResourceDeps } from './common.js';
import type { MemberRecord } from './ports.js';

export type InvitedRole = Exclude<Role, 'owner'>;

export interface MemberView {
  id: string;
  chatbotId: string;
  userId: string;
  email: string;
  name: string | null;
  /** The user's dashboard role: what their tokens may do (ROLE_SCOPES). */
  role: Role;
  invitedById: string | null;
  createdAt: string;
}

const memberView = (m: MemberRecord, u: UserRecord): MemberView => ({
  id: m.id,
  chatbotId: m.chatbotId,
  userId: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  invitedById: m.invitedById,
  createdAt: m.createdAt,
});

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** A display name: trimmed, inner runs of white space made one space; blank is none. */
export const cleanName = (name: string | null): string | null => name?.replace(/\s+/g, ' ').trim() || null;

export class MembersService {
  constructor(private readonly deps: ResourceDeps) {}

  private get repo() {
    return this.deps.store.resources.members;
  }

  async list(auth: AuthContext, chatbotId: string): Promise<MemberView[]> {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    return (await this.repo.list(chatbot.id)).map(({ member, user }) => memberView(member, user));
  }

  async get(auth: AuthContext, chatbotId: string, id: string): Promise<MemberView> {
    const { member, user } = await this.reachOne(auth, chatbotId, id);
    return memberView(member, user);
  }

  /** Adds the account's user of this e-mail (created when new) to the chatbot. */
  async invite(
    auth: AuthContext,
    chatbotId: string,
    input: { email: string; role: InvitedRole; name?: string | null },
  ): Promise<{ member: MemberView; warnings: string[] }> {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    const email = input.email.trim().toLowerCase();
    if (!EMAIL.test(email)) throw validationFailed([{ path: ['email'], message: 'must be an e-mail address' }]);
    const name = input.name === undefined ? undefined : cleanName(input.name);
    const warnings: string[] = [];
    const member = await this.deps.store.transaction(async (s) => {
      const at = nowIso();
      let user = await s.resources.members.userByEmail(auth.account.id, email);
      if (!user) {
        user = { id: newId(), accountId: auth.account.id, email, name: name ?? null, role: input.role, createdAt: at };
        await s.users.insert(user);
      } else if (name !== undefined && name !== user.name) {
        warnings.push(
          `${email} already has the name ${JSON.stringify(user.name)} in this account and keeps it; change it with PATCH /chatbots/${chatbot.id}/members/{memberId}`,
        );
      }
      if (user.role !== input.role) {
        warnings.push(
          `${email} already has the role ${user.role} in this account and keeps it; change it with PATCH /chatbots/${chatbot.id}/members/{memberId}`,
        );
      }
      if (await s.resources.members.byUser(chatbot.id, user.id)) {
        throw validationFailed(
          [{ path: ['email'], message: 'is already a member of this chatbot' }],
          `${email} is already a member of this chatbot`,
        );
      }
      const m: MemberRecord = {
        id: newId(),
        chatbotId: chatbot.id,
        userId: user.id,
        role: user.role,
        invitedById: auth.user.id,
        createdAt: at,
      };
      await s.resources.members.insert(m);
      return memberView(m, user);
    });
    return { member, warnings };
  }

  /** Sets the member's dashboard role (account-wide, from their next request) and/or display name. */
  async update(
    auth: AuthContext,
    chatbotId: string,
    id: string,
    patch: { role?: InvitedRole; name?: string | null },
  ): Promise<MemberView> {
    const { member, user } = await this.reachOne(auth, chatbotId, id);
    if (patch.role !== undefined && user.role === 'owner') {
      throw validationFailed(
        [{ path: ['role'], message: 'the account owner keeps the owner role' }],
        'The account owner cannot be demoted',
      );
    }
    const name = patch.name === undefined ? user.name : cleanName(patch.name);
    const role = patch.role ?? user.role;
    await this.deps.store.transaction(async (s) => {
      if (role !== user.role) await s.resources.members.setUserRole(user.id, role);
      if (name !== user.name) await s.resources.members.setUserName(user.id, name);
    });
    return memberView({ ...member, role }, { ...user, role, name });
  }

  /** Removes the membership; the user stays in the account (with role `member`, they lose this chatbot). */
  async delete(auth: AuthContext, chatbotId: string, id: string, confirm: boolean): Promise<MemberView> {
    const { member, user } = await this.reachOne(auth, chatbotId, id);
    if (!confirm) throw confirmationRequired('Add ?confirm=true to remove this member from the chatbot');
    if (user.role === 'owner') {
      throw validationFailed(
        [{ path: ['memberId'], message: 'is the account owner, who cannot be removed' }],
        'The account owner cannot be removed from a chatbot',
      );
    }
    await this.repo.delete(member.id);
    return memberView(member, user);
  }

  private async reachOne(auth: AuthContext, chatbotId: string, id: string) {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    const found = await this.repo.get(chatbot.id, id);
    if (!found) throw notFound('Member');
    return found;
  }
}
