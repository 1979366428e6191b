import { type Kysely, sql } from 'kysely';
import type { DialectName } from './column-types.js';

/**
 * Chunk vectors for hybrid retrieval (used only when an embeddings endpoint is configured).
 * PostgreSQL (no pgvector here): a `real[]` per chunk, unit length, so cosine similarity is a dot
 * product computed in SQL over the chatbot's rows. SQLite: sqlite-vec `vec0` tables, which need
 * their dimension in the declaration; the dimension comes from the configured model, so
 * storage/dialects/sqlite/vector-index.ts creates `chunk_vec_<dimensions>` (and the trigger that deletes a
 * chunk's vector with the chunk) on first use. Nothing to create here for SQLite.
 */
export function vectors(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      await db.schema
        .createTable('chunk_vectors')
        .addColumn('chunk_id', 'integer', (c) => c.primaryKey().references('chunks.id').onDelete('cascade'))
        .addColumn('chatbot_id', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('embedding', sql`real[]`, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('chunk_vectors_chatbot_model').on('chunk_vectors').columns(['chatbot_id', 'model']).execute();
    },
  };
}
