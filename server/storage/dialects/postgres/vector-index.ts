/**
 * PostgreSQL's chunk vectors (pgvector is not available): `chunk_vectors` (migration 0003), a
 * unit-length `real[]` per chunk with ON DELETE CASCADE; cosine similarity is their dot product,
 * computed in SQL over the chatbot's rows of the model.
 */
import { type Kysely, sql } from 'kysely';
import type { VectorIndexPort } from '../../../domain/knowledge/ports.js';
import type { Database } from '../../tables.js';
import { BATCH, chatbotsOf, checkInput, MAX_N, unit } from '../vector-input.js';

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
          on conflict (chunk_id) do update set chatbot_id = excluded.chatbot_id, model = excluded.model, embedding = excluded.embedding`.execute(
          db,
        );
      }
    },
    async delete(chunkIds) {
      for (let i = 0; i < chunkIds.length; i += BATCH) {
        await sql`delete from chunk_vectors where chunk_id = any(${chunkIds.slice(i, i + BATCH)}::integer[])`.execute(
          db,
        );
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
      const { rows } = await sql<{
        n: string;
      }>`select count(*) as n from chunk_vectors where chatbot_id = ${chatbotId} and model = ${model}`.execute(db);
      return Number(rows[0]?.n ?? 0);
    },
  };
}
