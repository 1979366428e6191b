/** The KnowledgeStore's custom contents: text the owner wrote, visible while its document is (or its job runs). */
import type { Kysely } from 'kysely';
import type { KnowledgeStore } from '../domain/knowledge/ports.js';
import type { Database } from './tables.js';

export const customContentsRepository = (db: Kysely<Database>): KnowledgeStore['customContents'] => ({
  async insert(row) {
    await db
      .insertInto('custom_contents')
      .values({
        document_key: row.documentKey,
        chatbot_id: row.chatbotId,
        source_id: row.sourceId,
        job_id: row.jobId,
        text: row.text,
        created_at: row.createdAt,
      })
      .execute();
  },
  async visible(chatbotId) {
    const rows = await db
      .selectFrom('custom_contents as c')
      .leftJoin('documents as d', (j) =>
        j.onRef('d.chatbot_id', '=', 'c.chatbot_id').onRef('d.key', '=', 'c.document_key'),
      )
      .leftJoin('ingest_jobs as j', 'j.id', 'c.job_id')
      .select('c.text')
      .where('c.chatbot_id', '=', chatbotId)
      .where((eb) => eb.or([eb('d.id', 'is not', null), eb('j.status', 'in', ['queued', 'running'])]))
      .orderBy('c.created_at')
      .orderBy('c.document_key')
      .execute();
    return rows.map((r) => r.text);
  },
});
