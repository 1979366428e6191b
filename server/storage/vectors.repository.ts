/**
 * Chunk vectors of one embedding space (model + dimensions), for hybrid retrieval.
 *
 * SQLite: a sqlite-vec `vec0` table per dimension, `chunk_vec_<dimensions>`, partitioned by
 * chatbot (a KNN query only scans that chatbot's vectors), the model as a metadata column, cosine
 * distance. vec0 fixes its dimension when declared and the dimension comes from configuration,
 * so the table and a trigger deleting a chunk's vector with the chunk are created on first use.
 *
 * PostgreSQL (pgvector is not available): `chunk_vectors` (migration 0003), a unit-length
 * `real[]` per chunk with ON DELETE CASCADE; cosine similarity is their dot product, computed in
 * SQL over the chatbot's rows of the model.
 */
import { type Kysely, sql } from 'kysely';
import type { VectorIndexPort } from '../domain/knowledge/ports.js';
import type { Dialect } from './dialects/dialect.js';
import type { Database } from './tables.js';

const BATCH = 200;
/** vec0's largest k. */
const MAX_N = 4096;

export interface VectorSpace {
  model: string;
  dimensions: number;
}

/** Chunk vectors of one embedding space (store.vectors): the dialect's index, once the dimensions are sane. */
export function vectorIndex(db: Kysely<Database>, dialect: Dialect, { model, dimensions }: VectorSpace): VectorIndexPort {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 8192) {
    throw new Error(`Embedding dimensions must be a whole number from 1 to 8192; got ${dimensions}`);
  }
  return dialect.vectorIndex(db, model, dimensions);
}

/** Unit length, so cosine similarity is a dot product (PostgreSQL) and the zero vector is refused. */
function unit(vector: number[], dimensions: number): number[] {
  if (vector.length !== dimensions) {
    throw new Error(`Embedding has ${vector.length} dimensions, the index expects ${dimensions}: set EMBEDDING_DIMENSIONS to the model's size`);
  }
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  if (!Number.isFinite(norm) || norm === 0) throw new Error('Embedding is the zero vector (or not finite); it has no direction to compare');
  return vector.map((x) => x / norm);
}

/** The chatbot of each chunk (vectors are partitioned by it); unknown chunks are refused. */
async function chatbotsOf(db: Kysely<Database>, chunkIds: number[]): Promise<Map<number, string>> {
  const owners = new Map<number, string>();
  for (let i = 0; i < chunkIds.length; i += BATCH) {
    const rows = await db.selectFrom('chunks').select(['id', 'chatbot_id']).where('id', 'in', chunkIds.slice(i, i + BATCH)).execute();
    for (const r of rows) owners.set(Number(r.id), r.chatbot_id);
  }
  const missing = chunkIds.filter((id) => !owners.has(id));
  if (missing.length) throw new Error(`No chunk with id ${missing.slice(0, 5).join(', ')}: vectors follow stored chunks`);
  return owners;
}

function checkInput(chunkIds: number[], vectors: number[][]) {
  if (chunkIds.length !== vectors.length) throw new Error(`${chunkIds.length} chunk ids but ${vectors.length} vectors`);
}

export function sqliteIndex(db: Kysely<Database>, model: string, dimensions: number): VectorIndexPort {
  const table = sql.table(`chunk_vec_${dimensions}`);
  const trigger = sql.raw(`chunk_vec_${dimensions}_ad`);
  let ready: Promise<void> | null = null;

  const ensure = () =>
    (ready ??= (async () => {
      try {
        await sql`select vec_version()`.execute(db);
      } catch {
        throw new Error('sqlite-vec is not loaded: hybrid retrieval on SQLite needs the sqlite-vec package for this platform (unset EMBEDDING_MODEL to search lexically only)');
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
          await sql`delete from ${table} where chunk_id in (${sql.join(ids.map((id) => sql`cast(${id} as integer)`))})`.execute(trx);
          const rows = ids.map((id, j) => sql`(cast(${id} as integer), ${owners.get(id)!}, ${model}, ${blobs[i + j]})`);
          await sql`insert into ${table} (chunk_id, chatbot_id, model, embedding) values ${sql.join(rows)}`.execute(trx);
        }
      };
      await (db.isTransaction ? write(db) : db.transaction().execute(write));
    },
    async delete(chunkIds) {
      if (!chunkIds.length) return;
      await ensure();
      for (let i = 0; i < chunkIds.length; i += BATCH) {
        const ids = chunkIds.slice(i, i + BATCH);
        await sql`delete from ${table} where chunk_id in (${sql.join(ids.map((id) => sql`cast(${id} as integer)`))})`.execute(db);
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
      const { rows } = await sql<{ n: number }>`select count(*) as n from ${table} where chatbot_id = ${chatbotId} and model = ${model}`.execute(db);
      return Number(rows[0]?.n ?? 0);
    },
  };
}

export function postgresIndex(db: Kysely<Database>, model: string, dimensions: number): VectorIndexPort {
  return {
    async upsert(chunkIds, vectors) {
      checkInput(chunkIds, vectors);
      if (!chunkIds.length) return;
      const owners = await chatbotsOf(db, chunkIds);
      const units = vectors.map((v) => unit(v, dimensions));
      for (let i = 0; i < chunkIds.length; i += BATCH) {
        const rows = chunkIds
          .slice(i, i + BATCH)
          .map((id, j) => sql`(${id}, ${owners.get(id)!}, ${model}, ${units[i + j]}::real[])`);
        await sql`insert into chunk_vectors (chunk_id, chatbot_id, model, embedding) values ${sql.join(rows)}
          on conflict (chunk_id) do update set chatbot_id = excluded.chatbot_id, model = excluded.model, embedding = excluded.embedding`.execute(db);
      }
    },
    async delete(chunkIds) {
      for (let i = 0; i < chunkIds.length; i += BATCH) {
        await sql`delete from chunk_vectors where chunk_id = any(${chunkIds.slice(i, i + BATCH)}::integer[])`.execute(db);
      }
    },
    async nearest(chatbotId, vector, n) {
      const k = Math.min(MAX_N, Math.max(0, Math.floor(n)));
      if (!k) return [];
      const { rows } = await sql<{ chunk_id: number; distance: number }>`
        select v.chunk_id, 1 - s.similarity as distance
        from chunk_vectors v,
             lateral (select sum(a::float8 * b::float8) as similarity from unnest(v.embedding, ${unit(vector, dimensions)}::real[]) as t(a, b)) s
        where v.chatbot_id = ${chatbotId} and v.model = ${model}
        order by distance, v.chunk_id
        limit ${k}`.execute(db);
      return rows.map((r) => ({ chunkId: Number(r.chunk_id), distance: Number(r.distance) }));
    },
    async count(chatbotId) {
      const { rows } = await sql<{ n: string }>`select count(*) as n from chunk_vectors where chatbot_id = ${chatbotId} and model = ${model}`.execute(db);
      return Number(rows[0]?.n ?? 0);
    },
  };
}
