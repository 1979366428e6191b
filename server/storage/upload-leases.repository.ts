/**
 * Upload leases (migration 0017): one row per upload in progress, so the per-account cap holds
 * across every instance on the database. Taking one is a transaction that starts with a write
 * (dropping the account's expired leases), so SQLite serialises it with every other writer, even
 * in another process; PostgreSQL locks the account's row first.
 */
import type { Kysely } from 'kysely';
import type { UploadLeaseStore } from '../domain/ports.js';
import type { Dialect } from './dialects/dialect.js';
import type { Database } from './tables.js';

export function uploadLeasesRepository(db: Kysely<Database>, dialect: Dialect): UploadLeaseStore {
  const inTransaction = <T>(fn: (trx: Kysely<Database>) => Promise<T>) =>
    db.isTransaction ? fn(db) : db.transaction().execute(fn);
  return {
    acquire: (lease, limit, now) =>
      inTransaction(async (trx) => {
        await dialect.lockAccount(trx, lease.accountId);
        await trx
          .deleteFrom('upload_leases')
          .where('account_id', '=', lease.accountId)
          .where('expires_at', '<=', now)
          .execute();
        const row = await trx
          .selectFrom('upload_leases')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('account_id', '=', lease.accountId)
          .executeTakeFirstOrThrow();
        const running = Number(row.n);
        if (running >= limit) return { taken: false, running };
        await trx
          .insertInto('upload_leases')
          .values({ id: lease.id, account_id: lease.accountId, expires_at: lease.expiresAt })
          .execute();
        return { taken: true, running };
      }),
    async renew(id, expiresAt) {
      await db.updateTable('upload_leases').set({ expires_at: expiresAt }).where('id', '=', id).execute();
    },
    async release(id) {
      await db.deleteFrom('upload_leases').where('id', '=', id).execute();
    },
  };
}
