/**
 * SQLite's chunk vectors: a sqlite-vec `vec0` table per dimension, `chunk_vec_<dimensions>`,
 * partitioned by chatbot (a KNN query only scans that chatbot's vectors), the model as a metadata
 * column, cosine distance. vec0 fixes its dimension when declared and the dimension comes from
 * configuration, so the table and a trigger deleting a chunk's vector with the chunk are created
 * on first use.
 */
import { type Kysely, sql } from 'kysely';
import type { VectorIndexPort } from '../../../domain/knowledge/ports.js';
import type { Database } from '../../tables.js';
import { BATCH, chatbotsOf, checkInput, MAX_N, unit } from '../vector-input.js';

export function sqliteIndex(db: Kysely<Database>, model: string, dimensions: number): VectorIndexPort {
  const table = sql.table(`chunk_vec_${dimensions}`);
  const trigger = sql.raw(`chunk_vec_${dimensions}_ad`);
  let ready: Promise<void> | null = null;

  const ensure = () =>
    (ready ??= (async () => {
      try {
        await sql`select vec_version()`.execute(db);
      } catch {
        throw new Error(
          'sqlite-vec is not loaded: hybrid retrieval on SQLite needs the sqlite-vec package for this platform (unset EMBEDDING_MODEL to search lexically only)',
        );
      }
      await sql`create virtual table if not exists ${table} using vec0(
          chunk_id integer primary key,
          chatbot_id text partition key,
          model text,
          embedding float[${sql.raw(String(dimensions))}] distance_metric=cosine)`.execute(db);
      await sql`create trigger if not exists ${trigger} after delete on chunks begin
          delete from ${table} where chunk_id = old.id; end`.execute(db);
    })().catch((err) => {
      ready = null;
      throw err;
    }));

  const f32 = (v: number[]) => Buffer.from(new Float32Array(v).buffer);

  return {
    async upsert(chunkIds, vectors) {
      checkInput(chunkIds, vectors);
      if (!chunkIds.length) return;
      await ensure();
      const owners = await chatbotsOf(db, chunkIds);
      const blobs = vectors.map((v) => f32(unit(v, dimensions)));
      const write = async (trx: Kysely<Database>) => {
        for (let i = 0; i < chunkIds.length; i += BATCH) {
          const ids = chunkIds.slice(i, i + BATCH);
          // vec0 has no upsert: replace = delete + insert. Its primary key must be bound as an
          // integer, hence the casts (a JS number may reach SQLite as a REAL).
          await sql`delete from ${table} where chunk_id in (${sql.join(ids.map((id) => sql`cast(${id} as integer)`))})`.execute(
            trx,
          );
          const rows = ids.map((id, j) => sql`(cast(${id} as integer), ${owners.get(id)!}, ${model}, ${blobs[i + j]})`);
          await sql`insert into ${table} (chunk_id, chatbot_id, model, embedding) values ${sql.join(rows)}`.execute(
            trx,
          );
        }
      };
      await (db.isTransaction ? write(db) : db.transaction().execute(write));
    },
    async delete(chunkIds) {
      if (!chunkIds.length) return;
      await ensure();
      for (let i = 0; i < chunkIds.length; i += BATCH) {
        const ids = chunkIds.slice(i, i + BATCH);
        await sql`delete from ${table} where chunk_id in (${sql.join(ids.map((id) => sql`cast(${id} as integer)`))})`.execute(
          db,
        );
      }
    },
    async nearest(chatbotId, vector, n) {
      const k = Math.min(MAX_N, Math.max(0, Math.floor(n)));
      if (!k) return [];
      await ensure();
      const { rows } = await sql<{ chunk_id: number; distance: number }>`
        select chunk_id, distance from ${table}
        where embedding match ${f32(unit(vector, dimensions))} and k = ${k} and chatbot_id = ${chatbotId} and model = ${model}
        order by distance`.execute(db);
      return rows.map((r) => ({ chunkId: Number(r.chunk_id), distance: Number(r.distance) }));
    },
    async count(chatbotId) {
      await ensure();
      const { rows } = await sql<{
        n: number;
      }>`select count(*) as n from ${table} where chatbot_id = ${chatbotId} and model = ${model}`.execute(db);
      return Number(rows[0]?.n ?? 0);
    },
  };
}
