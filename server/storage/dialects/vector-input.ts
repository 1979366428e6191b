/** What both vector indexes check and share: unit vectors, the chunks' chatbots, batch sizes. */
import type { Kysely } from 'kysely';
import type { Database } from '../tables.js';

export const BATCH = 200;
/** vec0's largest k. */
export const MAX_N = 4096;

/** Unit length, so cosine similarity is a dot product (PostgreSQL) and the zero vector is refused. */
export function unit(vector: number[], dimensions: number): number[] {
  if (vector.length !== dimensions) {
    throw new Error(
      `Embedding has ${vector.length} dimensions, the index expects ${dimensions}: set EMBEDDING_DIMENSIONS to the model's size`,
    );
  }
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  if (!Number.isFinite(norm) || norm === 0)
    throw new Error('Embedding is the zero vector (or not finite); it has no direction to compare');
  return vector.map((x) => x / norm);
}

/** The chatbot of each chunk (vectors are partitioned by it); unknown chunks are refused. */
export async function chatbotsOf(db: Kysely<Database>, chunkIds: number[]): Promise<Map<number, string>> {
  const owners = new Map<number, string>();
  for (let i = 0; i < chunkIds.length; i += BATCH) {
    const rows = await db
      .selectFrom('chunks')
      .select(['id', 'chatbot_id'])
      .where('id', 'in', chunkIds.slice(i, i + BATCH))
      .execute();
    for (const r of rows) owners.set(Number(r.id), r.chatbot_id);
  }
  const missing = chunkIds.filter((id) => !owners.has(id));
  if (missing.length)
    throw new Error(`No chunk with id ${missing.slice(0, 5).join(', ')}: vectors follow stored chunks`);
  return owners;
}

export function checkInput(chunkIds: number[], vectors: number[][]) {
  if (chunkIds.length !== vectors.length) throw new Error(`${chunkIds.length} chunk ids but ${vectors.length} vectors`);
}
