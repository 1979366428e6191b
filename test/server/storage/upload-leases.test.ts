/**
 * Upload leases (migration 0017) on SQLite and PostgreSQL: the per-account cap counts unexpired
 * leases only, renewing keeps one, releasing frees a slot, accounts never share slots, and
 * callers racing on separate connections never exceed the cap. In CI an unreachable PostgreSQL
 * fails the file.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newId } from '../../../server/domain/ids.js';
import type { Store } from '../../../server/domain/ports.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { at, newChatbot } from '../../helpers/knowledge.js';
import { describeOnDialects } from '../../helpers/dialects.js';

describeOnDialects('upload leases on %s', (dialect) => {
  let kdb: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    kdb = await openTestDatabase(dialect);
    store = kdb.store;
  });
  afterAll(() => kdb?.close());

  const lease = (accountId: string, expiresAt: string) => ({ id: newId(), accountId, expiresAt });

  test('at most `limit` unexpired leases per account; release frees one; other accounts are not counted', async () => {
    const a = (await newChatbot(store)).accountId;
    const b = (await newChatbot(store)).accountId;
    const leases = store.uploadLeases;
    const first = lease(a, at(100));
    expect(await leases.acquire(first, 2, at(0))).toEqual({ taken: true, running: 0 });
    expect(await leases.acquire(lease(a, at(100)), 2, at(0))).toEqual({ taken: true, running: 1 });
    expect(await leases.acquire(lease(a, at(100)), 2, at(0))).toEqual({ taken: false, running: 2 });
    expect(await leases.acquire(lease(b, at(100)), 2, at(0))).toEqual({ taken: true, running: 0 });
    await leases.release(first.id);
    expect(await leases.acquire(lease(a, at(100)), 2, at(0))).toEqual({ taken: true, running: 1 });
  });

  test('a lease nobody renewed (its process died) stops counting once expired; a renewed one keeps counting', async () => {
    const a = (await newChatbot(store)).accountId;
    const leases = store.uploadLeases;
    const dead = lease(a, at(10));
    const alive = lease(a, at(10));
    await leases.acquire(dead, 2, at(0));
    await leases.acquire(alive, 2, at(0));
    await leases.renew(alive.id, at(30));
    expect(await leases.acquire(lease(a, at(40)), 2, at(5))).toEqual({ taken: false, running: 2 });
    // At 20 s the dead lease has expired; the renewed one has not.
    expect(await leases.acquire(lease(a, at(40)), 2, at(20))).toEqual({ taken: true, running: 1 });
    const rows = await kdb.database.db.selectFrom('upload_leases').select('id').where('account_id', '=', a).execute();
    expect(rows.map((r) => r.id)).not.toContain(dead.id);
  });

  test('twenty callers racing for three slots: exactly three are taken', async () => {
    const a = (await newChatbot(store)).accountId;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => store.uploadLeases.acquire(lease(a, at(100)), 3, at(0))),
    );
    expect(results.filter((r) => r.taken)).toHaveLength(3);
    const rows = await kdb.database.db.selectFrom('upload_leases').select('id').where('account_id', '=', a).execute();
    expect(rows).toHaveLength(3);
  });

  test('deleting an account removes its leases', async () => {
    const a = (await newChatbot(store)).accountId;
    await store.uploadLeases.acquire(lease(a, at(100)), 3, at(0));
    await kdb.database.db.deleteFrom('chatbots').where('account_id', '=', a).execute();
    await kdb.database.db.deleteFrom('users').where('account_id', '=', a).execute();
    await kdb.database.db.deleteFrom('accounts').where('id', '=', a).execute();
    expect(
      await kdb.database.db.selectFrom('upload_leases').select('id').where('account_id', '=', a).execute(),
    ).toEqual([]);
  });
});
