/**
 * Uploaded files in pieces (migration 0017), the same suite on SQLite and PostgreSQL: a file is
 * written from a stream and read back one piece at a time, never as one value; a failed write
 * leaves nothing; a missing piece is an error, not a short file; files no job refers to are swept;
 * blobs stored before 0017 survive the upgrade. In CI an unreachable PostgreSQL fails the file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newId } from '../../../server/domain/ids.js';
import type { Store } from '../../../server/domain/ports.js';
import { openDatabase, type DatabaseHandle } from '../../../server/storage/dialects/index.js';
import { BLOB_PIECE_BYTES } from '../../../server/storage/blobs.repository.js';
import { migrateToLatest, migrations } from '../../../server/storage/migrations/index.js';
import { createStore } from '../../../server/storage/store.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { at, newChatbot, sourceRecord } from '../../helpers/knowledge.js';
import { openPostgresSchema } from '../../helpers/postgres.js';
import { describeOnDialects } from '../../helpers/dialects.js';

/** Deterministic bytes that differ at every offset of a piece (a shifted or repeated piece shows). */
function content(size: number): Buffer {
  const b = Buffer.alloc(size + 4);
  for (let i = 0; i < size; i += 4) b.writeUInt32LE(i >>> 0, i);
  return b.subarray(0, size);
}

/** `bytes` in chunks of the given sizes, cycled (a stream's chunks are never piece-aligned). */
async function* chunked(bytes: Buffer, sizes: number[]) {
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const n = sizes[i % sizes.length];
    yield bytes.subarray(at, at + n);
    at += n;
  }
}

async function readAll(store: Store, id: string) {
  const blob = await store.knowledge.blobs.get(id);
  if (!blob) return null;
  const pieces: Buffer[] = [];
  for await (const p of blob.pieces()) pieces.push(p);
  return { name: blob.name, size: blob.size, pieces };
}

describeOnDialects('blobs in pieces on %s', (dialect) => {
  let kdb: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    kdb = await openTestDatabase(dialect);
    store = kdb.store;
  });
  afterAll(() => kdb?.close());

  const parts = async (blobId: string) =>
    (
      await kdb.database.db
        .selectFrom('blob_parts')
        .select(['seq', (eb) => eb.fn<number>('length', ['bytes']).as('n')])
        .where('blob_id', '=', blobId)
        .orderBy('seq')
        .execute()
    ).map((r) => Number(r.n));

  test('a file streamed in odd chunks is stored in whole pieces and read back piece by piece, byte for byte', async () => {
    const bot = await newChatbot(store);
    const id = newId();
    const bytes = content(2 * BLOB_PIECE_BYTES + 12_345);
    const { size } = await store.knowledge.blobs.insert(
      { id, chatbotId: bot.chatbotId, name: 'manual.pdf' },
      chunked(bytes, [65_536, 1, 3 * BLOB_PIECE_BYTES, 70_001]),
    );
    expect(size).toBe(bytes.length);
    // No row holds more than a piece: storing and reading hold one piece at a time.
    expect(await parts(id)).toEqual([BLOB_PIECE_BYTES, BLOB_PIECE_BYTES, 12_345]);
    const back = await readAll(store, id);
    expect(back?.name).toBe('manual.pdf');
    expect(back?.size).toBe(bytes.length);
    expect(back?.pieces.every((p) => p.length <= BLOB_PIECE_BYTES)).toBe(true);
    expect(Buffer.concat(back!.pieces).equals(bytes)).toBe(true);
  });

  test('small and empty files round-trip', async () => {
    const bot = await newChatbot(store);
    const small = newId();
    await store.knowledge.blobs.insert(
      { id: small, chatbotId: bot.chatbotId, name: 'a.txt' },
      chunked(Buffer.from([0, 1, 2, 255, 254]), [2]),
    );
    expect(Buffer.concat((await readAll(store, small))!.pieces)).toEqual(Buffer.from([0, 1, 2, 255, 254]));
    const empty = newId();
    expect(
      await store.knowledge.blobs.insert(
        { id: empty, chatbotId: bot.chatbotId, name: 'e.txt' },
        chunked(Buffer.alloc(0), [1]),
      ),
    ).toEqual({ size: 0 });
    expect(await readAll(store, empty)).toEqual({ name: 'e.txt', size: 0, pieces: [] });
  });

  test('a stream that fails half-way leaves no blob and no piece', async () => {
    const bot = await newChatbot(store);
    const id = newId();
    async function* broken() {
      yield content(BLOB_PIECE_BYTES + 10);
      throw new Error('disk read failed');
    }
    await expect(
      store.knowledge.blobs.insert({ id, chatbotId: bot.chatbotId, name: 'x.pdf' }, broken()),
    ).rejects.toThrow('disk read failed');
    expect(await store.knowledge.blobs.get(id)).toBeNull();
    expect(await parts(id)).toEqual([]);
  });

  test('a missing piece is an error, never a shorter file', async () => {
    const bot = await newChatbot(store);
    const id = newId();
    await store.knowledge.blobs.insert(
      { id, chatbotId: bot.chatbotId, name: 'x.pdf' },
      chunked(content(2 * BLOB_PIECE_BYTES), [BLOB_PIECE_BYTES]),
    );
    await kdb.database.db.deleteFrom('blob_parts').where('blob_id', '=', id).where('seq', '=', 1).execute();
    await expect(readAll(store, id)).rejects.toThrow(/holds 1048576 of its 2097152 bytes/);
  });

  test('deleting a blob, or its chatbot, removes its pieces', async () => {
    const bot = await newChatbot(store);
    const a = newId();
    const b = newId();
    await store.knowledge.blobs.insert({ id: a, chatbotId: bot.chatbotId, name: 'a' }, chunked(content(1000), [100]));
    await store.knowledge.blobs.insert({ id: b, chatbotId: bot.chatbotId, name: 'b' }, chunked(content(1000), [100]));
    await store.knowledge.blobs.delete([a]);
    expect(await store.knowledge.blobs.get(a)).toBeNull();
    expect(await parts(a)).toEqual([]);
    await store.knowledge.blobs.delete([]);
    await kdb.database.db.deleteFrom('chatbots').where('id', '=', bot.chatbotId).execute();
    expect(await store.knowledge.blobs.get(b)).toBeNull();
    expect(await parts(b)).toEqual([]);
  });

  test('deleteUnclaimed removes old blobs no item refers to, and only those', async () => {
    const bot = await newChatbot(store);
    const source = sourceRecord(bot.chatbotId, bot.accountId, { type: 'files' });
    await store.knowledge.sources.insert(source);
    const ids = { claimed: newId(), orphan: newId(), fresh: newId() };
    for (const id of Object.values(ids))
      await store.knowledge.blobs.insert({ id, chatbotId: bot.chatbotId, name: id }, chunked(content(64), [64]));
    // The claimed and orphan blobs were stored long ago; the fresh one belongs to a request still running.
    await kdb.database.db
      .updateTable('blobs')
      .set({ created_at: at(0) })
      .where('id', 'in', [ids.claimed, ids.orphan])
      .execute();
    const jobId = newId();
    await store.knowledge.ingest.insertJob({
      id: jobId,
      chatbotId: bot.chatbotId,
      sourceId: source.id,
      trigger: 'add',
      status: 'queued',
      found: 0,
      done: 0,
      failed: 0,
      skipped: 0,
      options: {},
      error: null,
      cancelRequested: false,
      createdAt: at(0),
      startedAt: null,
      finishedAt: null,
    });
    await store.knowledge.ingest.addItems(jobId, [{ key: `file:${ids.claimed}`, depth: 0, blobId: ids.claimed }]);
    expect(await store.knowledge.blobs.deleteUnclaimed(at(10))).toBe(1);
    expect(await store.knowledge.blobs.get(ids.orphan)).toBeNull();
    expect(await parts(ids.orphan)).toEqual([]);
    expect(await store.knowledge.blobs.get(ids.claimed)).not.toBeNull();
    expect(await store.knowledge.blobs.get(ids.fresh)).not.toBeNull();
  });
});

describeOnDialects('upgrading to 0017 on %s', (dialect) => {
  test('a blob stored before 0017 (one value) is read back whole after the upgrade', async () => {
    let database: DatabaseHandle;
    let cleanup: () => Promise<void>;
    if (dialect === 'postgres') {
      const pg = await openPostgresSchema();
      database = pg.database;
      cleanup = async () => {
        await database.close();
        await pg.drop();
      };
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'parley-blobs-'));
      database = openDatabase({ sqlitePath: join(dir, 'old.db') });
      cleanup = async () => {
        await database.close();
        rmSync(dir, { recursive: true, force: true });
      };
    }
    try {
      const db = database.db;
      const migrator = new Migrator({
        db,
        ...(database.schema ? { migrationTableSchema: database.schema } : {}),
        provider: { getMigrations: async () => migrations(dialect) },
      });
      expect((await migrator.migrateTo('0016-fair-queue')).error).toBeUndefined();
      const store = createStore(db);
      const bot = await newChatbot(store);
      const bytes = content(3000);
      const id = newId();
      // A row as the 0002 schema stores it: the whole file in `bytes`.
      await sql`insert into blobs (id, chatbot_id, name, bytes, size, created_at) values (${id}, ${bot.chatbotId}, 'old.pdf', ${bytes}, ${bytes.length}, ${at(0)})`.execute(
        db,
      );
      expect(await migrateToLatest(db, dialect, database.schema)).toContain('0017-upload-storage');
      const back = await readAll(store, id);
      expect(back?.size).toBe(3000);
      expect(Buffer.concat(back!.pieces).equals(bytes)).toBe(true);
    } finally {
      await cleanup();
    }
  });
});
