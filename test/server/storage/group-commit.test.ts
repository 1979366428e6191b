/**
 * Transactions run with `{ group: true }` (every conversation change) may share one COMMIT on
 * SQLite (storage/dialects/sqlite/group-commit.ts). Each must keep its own all-or-nothing, see the rows of those
 * before it, and be heard only once its rows are committed, so an acknowledgement handed on
 * can never be undone. The same suite runs on PostgreSQL, where each is its own transaction.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newId } from '../../../server/domain/ids.js';
import type { AccountRecord, Store } from '../../../server/domain/ports.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { describeOnDialects } from '../../helpers/dialects.js';

const account = (id = newId()): AccountRecord => ({
  id,
  name: 'Acme',
  plan: {
    name: 'test',
    maxChatbots: 5,
    maxPages: 100,
    webhooks: true,
    analytics: false,
    brandingRemoval: true,
    active: false,
  },
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
});

describeOnDialects('grouped transactions on %s', (dialect) => {
  let db: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    db = await openTestDatabase(dialect);
    store = db.store;
  });
  afterAll(() => db?.close());

  test('concurrent transactions: a failing one (an error, a unique index) leaves nothing; the others commit whole', async () => {
    const ids = Array.from({ length: 40 }, () => newId());
    const taken = newId();
    await store.accounts.insert(account(taken));
    const outcomes = await Promise.allSettled(
      ids.map((id, i) =>
        store.transaction(
          async (s) => {
            await s.accounts.insert(account(id));
            await s.usage.add(id, 'messages', '2025-01', 1);
            if (i === 7) throw new Error('refused after writing');
            if (i === 11) await s.accounts.insert(account(taken)); // the primary key refuses it
            await s.usage.add(id, 'messages', '2025-01', 1);
            return i;
          },
          { group: true },
        ),
      ),
    );
    for (const [i, o] of outcomes.entries()) {
      const failed = i === 7 || i === 11;
      expect(o.status, `transaction ${i}`).toBe(failed ? 'rejected' : 'fulfilled');
      expect(await store.accounts.get(ids[i]), `account ${i}`).toEqual(failed ? null : account(ids[i]));
      expect(await store.usage.get(ids[i], 'messages', '2025-01'), `usage ${i}`).toBe(failed ? 0 : 2);
    }
    expect((outcomes[7] as PromiseRejectedResult).reason.message).toBe('refused after writing');
  });

  // SQLite's one writer runs them one after another; PostgreSQL's READ COMMITTED promises less.
  test.runIf(dialect === 'sqlite')(
    'each sees the rows of those started before it, as if each had committed alone',
    async () => {
      const counter = newId();
      await store.accounts.insert(account(counter));
      const seen = await Promise.all(
        Array.from({ length: 30 }, () =>
          store.transaction(
            async (s) => {
              const before = await s.usage.get(counter, 'messages', '2025-01');
              await s.usage.add(counter, 'messages', '2025-01', 1);
              return before;
            },
            { group: true },
          ),
        ),
      );
      // Read-then-write of one counter: no two saw the same value, and none was lost.
      expect(new Set(seen).size).toBe(30);
      expect(await store.usage.get(counter, 'messages', '2025-01')).toBe(30);
    },
  );

  test.runIf(dialect === 'sqlite')(
    'a transaction is heard only once its rows are committed (another connection sees them)',
    async () => {
      const other = new Database(join(db.dataDir, 'test.db'), { readonly: true });
      try {
        const ids = Array.from({ length: 20 }, () => newId());
        const seenByOther = await Promise.all(
          ids.map((id) =>
            store
              .transaction(
                async (s) => {
                  await s.accounts.insert(account(id));
                },
                { group: true },
              )
              .then(() => other.prepare('select count(*) as n from accounts where id = ?').get(id) as { n: number }),
          ),
        );
        expect(seenByOther.map((r) => r.n)).toEqual(ids.map(() => 1));
      } finally {
        other.close();
      }
    },
  );
});
