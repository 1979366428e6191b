/**
 * The app listening on a free loopback port with SITE_URL set to it, as an OAuth client reaches
 * it, and two people who sign in with one password: the owner and a member.
 */
import { buildTestApp, type TestApp } from './app.js';
import { freePort } from './child-server.js';

export async function listenWithOwnerAndMember(people: {
  owner: string;
  member: string;
  password: string;
}): Promise<{ t: TestApp; site: string }> {
  const port = await freePort();
  const site = `http://127.0.0.1:${port}`;
  const t = await buildTestApp({ env: { SITE_URL: site, OWNER_EMAIL: people.owner } });
  const account = await t.app.services.accounts.resolve();
  await t.app.services.signIn.setPassword((await t.app.services.store.users.owner(account.id))!, people.password);
  const member = {
    id: 'member-of-test',
    accountId: account.id,
    email: people.member,
    name: null,
    role: 'member' as const,
    createdAt: new Date().toISOString(),
  };
  await t.app.services.store.users.insert(member);
  await t.app.services.signIn.setPassword(member, people.password);
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, site };
}
