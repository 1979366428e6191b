import type { Kysely } from 'kysely';

/**
 * The text the legacy v0 custom-content route added, kept beside the knowledge document it became
 * so the v0 Chatbot can show it (chunks split and reshape it). Goes with its source, its chatbot
 * (cascade) and its document (deleted with it by the documents repository).
 */
export function customContent() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('custom_contents')
        .addColumn('document_key', 'text', (c) => c.primaryKey())
        .addColumn('chatbot_id', 'text', (c) => c.notNull().references('chatbots.id').onDelete('cascade'))
        .addColumn('source_id', 'text', (c) => c.notNull().references('sources.id').onDelete('cascade'))
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('custom_contents_chatbot').on('custom_contents').columns(['chatbot_id', 'created_at']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('custom_contents').execute();
    },
  };
}
