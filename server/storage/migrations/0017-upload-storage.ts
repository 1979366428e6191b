import { type Kysely, sql } from 'kysely';
import { blobType, type DialectName, idType } from './column-types.js';

/**
 * Uploads that cost the same memory however many arrive at once, on every instance:
 * - `blob_parts`: an uploaded file's bytes in numbered pieces, written and read one piece at a
 *   time (a whole file in one value held it in memory, twice, while storing). Existing blobs
 *   become their own single piece; `blobs` keeps the metadata.
 * - `ingest_items_blob`: finds the blobs no item refers to (a request that died between storing
 *   its files and starting their job) without walking every item.
 * - `upload_leases`: the uploads in progress of each account, shared by every instance on the
 *   database; a lease of a process that died expires.
 */
export function uploadStorage(dialect: DialectName) {
  const id = sql.raw(idType(dialect));
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('blob_parts')
        .addColumn('blob_id', 'text', (c) => c.notNull().references('blobs.id').onDelete('cascade'))
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('bytes', sql.raw(blobType(dialect)), (c) => c.notNull())
        .addPrimaryKeyConstraint('blob_parts_pk', ['blob_id', 'seq'])
        .execute();
      await sql`insert into blob_parts (blob_id, seq, bytes) select id, 0, bytes from blobs`.execute(db);
      await db.schema.alterTable('blobs').dropColumn('bytes').execute();
      await db.schema.createIndex('ingest_items_blob').on('ingest_items').column('blob_id').where(sql.ref('blob_id'), 'is not', null).execute();

      await db.schema
        .createTable('upload_leases')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('upload_leases_account').on('upload_leases').columns(['account_id', 'expires_at']).execute();
    },
  };
}
