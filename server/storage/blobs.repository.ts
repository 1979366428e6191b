/** The KnowledgeStore's uploaded files, stored in pieces. */
import type { Kysely } from 'kysely';
import type { KnowledgeStore } from '../domain/knowledge/ports.js';
import { BATCH, now } from './knowledge-rows.js';
import type { Database } from './tables.js';

/** Bytes per stored piece of an upload: what storing or reading a file holds at once. */
export const BLOB_PIECE_BYTES = 1_048_576;

/**
 * Uploaded files in pieces (`blob_parts`, migration 0017): written as the bytes come and read one
 * piece per query, so storing or reading a file never holds more than a piece. No transaction
 * spans the pieces (SQLite's one writer is not held while a file streams in): a blob is only
 * referenced once `insert` has returned, a failed insert deletes what it wrote, and blobs left by
 * a process that died in between are unreferenced and go with `deleteUnclaimed`.
 */
export const blobsRepository = (db: Kysely<Database>): KnowledgeStore['blobs'] => ({
  async insert(b, bytes) {
    await db
      .insertInto('blobs')
      .values({ id: b.id, chatbot_id: b.chatbotId, name: b.name, size: 0, created_at: now() })
      .execute();
    let size = 0;
    let seq = 0;
    let held: Buffer[] = [];
    let heldBytes = 0;
    const write = async (piece: Buffer) => {
      await db.insertInto('blob_parts').values({ blob_id: b.id, seq: seq++, bytes: piece }).execute();
    };
    try {
      for await (const chunk of bytes) {
        let rest = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        size += rest.length;
        while (heldBytes + rest.length >= BLOB_PIECE_BYTES) {
          const take = BLOB_PIECE_BYTES - heldBytes;
          await write(Buffer.concat([...held, rest.subarray(0, take)]));
          rest = rest.subarray(take);
          held = [];
          heldBytes = 0;
        }
        if (rest.length) {
          // A copy: the source may reuse its buffer for the next chunk.
          held.push(Buffer.from(rest));
          heldBytes += rest.length;
        }
      }
      if (heldBytes) await write(Buffer.concat(held));
      await db.updateTable('blobs').set({ size }).where('id', '=', b.id).execute();
    } catch (err) {
      await db
        .deleteFrom('blobs')
        .where('id', '=', b.id)
        .execute()
        .catch(() => undefined);
      throw err;
    }
    return { size };
  },
  async get(id) {
    const row = await db.selectFrom('blobs').select(['id', 'name', 'size']).where('id', '=', id).executeTakeFirst();
    if (!row) return null;
    const size = Number(row.size);
    return {
      id: row.id,
      name: row.name,
      size,
      async *pieces() {
        let read = 0;
        for (let seq = 0; ; seq++) {
          const part = await db
            .selectFrom('blob_parts')
            .select('bytes')
            .where('blob_id', '=', id)
            .where('seq', '=', seq)
            .executeTakeFirst();
          if (!part) break;
          const piece = Buffer.from(part.bytes);
          read += piece.length;
          yield piece;
        }
        if (read !== size) throw new Error(`The stored file ${id} holds ${read} of its ${size} bytes`);
      },
    };
  },
  async delete(ids) {
    for (let i = 0; i < ids.length; i += BATCH) {
      await db
        .deleteFrom('blobs')
        .where('id', 'in', ids.slice(i, i + BATCH))
        .execute();
    }
  },
  async deleteUnclaimed(before) {
    const gone = await db
      .deleteFrom('blobs')
      .where('created_at', '<', before)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('ingest_items').select('blob_id').whereRef('ingest_items.blob_id', '=', 'blobs.id'))),
      )
      .executeTakeFirst();
    return Number(gone.numDeletedRows);
  },
});
