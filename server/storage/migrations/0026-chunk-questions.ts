import type { Kysely } from 'kysely';

/**
 * Questions each chunk answers, made at ingest (domain/knowledge/chunk-questions.ts): the answer
 * engine offers them as follow-ups. One row per chunk that has any, `questions` a JSON array;
 * deleted with the chunk.
 */
export function chunkQuestions() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('chunk_questions')
        .addColumn('chunk_id', 'integer', (c) => c.primaryKey().references('chunks.id').onDelete('cascade'))
        .addColumn('chatbot_id', 'text', (c) => c.notNull())
        .addColumn('questions', 'text', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('chunk_questions').execute();
    },
  };
}
