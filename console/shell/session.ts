/** Signing in and out through the API's session routes (GET/POST/DELETE /session, DELETE /sessions). */
import { signal } from '@preact/signals';
import { api, del, get, sessionEnded, setCsrfToken } from '../api.js';

export interface SessionUser {
  id: string;
  email: string;
  name: string | null;
  role: 'owner' | 'admin' | 'member';
  accountId: string;
}

interface Session {
  user: SessionUser | null;
  csrfToken: string;
  firstRun: boolean;
}

/** Nobody has a password yet (a fresh install): the sign-in form says where the set-up link is. */
export const firstRun = signal(false);

/** undefined: not known yet (the first GET /session is on its way). */
export const user = signal<SessionUser | null | undefined>(undefined);

export async function checkSession() {
  const session = await get<Session>('/session', { quiet401: true });
  setCsrfToken(session.csrfToken);
  firstRun.value = session.firstRun;
  user.value = session.user;
}

/** First run: the owner's password with the set-up link's token; signs in. */
export async function completeSetup(token: string, password: string) {
  const session = await api<Session>('POST', '/session/setup', { token, password }, { quiet401: true });
  setCsrfToken(session.csrfToken);
  sessionEnded.value = false;
  firstRun.value = false;
  user.value = session.user;
}

export async function signIn(email: string, password: string) {
  const session = await api<Session>('POST', '/session', { email, password }, { quiet401: true });
  setCsrfToken(session.csrfToken);
  sessionEnded.value = false;
  user.value = session.user;
}

export async function signOut(everywhere = false) {
  await (everywhere ? del('/sessions') : del('/session')).catch(() => undefined);
  user.value = null;
  await checkSession().catch(() => undefined);
}
