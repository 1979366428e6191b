/** The KnowledgeStore's documents: the pages and files of a source, listed newest first. */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DocumentRecord, DocumentStatus, KnowledgeStore } from '../domain/knowledge/ports.js';
import { keysetPage } from './keyset.js';
import { BATCH, columns } from './knowledge-rows.js';
import type { Database, DocumentsTable } from './tables.js';

const toDocument = (r: Selectable<DocumentsTable>): DocumentRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  sourceId: r.source_id,
  key: r.key,
  url: r.url,
  title: r.title,
  kind: r.kind,
  status: r.status as DocumentStatus,
  contentHash: r.content_hash,
  chars: Number(r.chars),
  chunkCount: Number(r.chunk_count),
  error: r.error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const DOCUMENT_COLUMNS = {
  sourceId: 'source_id',
  key: 'key',
  url: 'url',
  title: 'title',
  kind: 'kind',
  status: 'status',
  contentHash: 'content_hash',
  chars: 'chars',
  chunkCount: 'chunk_count',
  error: 'error',
  updatedAt: 'updated_at',
} as const;

export const documentsRepository = (db: Kysely<Database>): KnowledgeStore['documents'] => ({
  async byKey(chatbotId, key) {
    const row = await db
      .selectFrom('documents')
      .selectAll()
      .where('chatbot_id', '=', chatbotId)
      .where('key', '=', key)
      .executeTakeFirst();
    return row ? toDocument(row) : null;
  },
  async insert(d) {
    await db
      .insertInto('documents')
      .values({
        id: d.id,
        chatbot_id: d.chatbotId,
        source_id: d.sourceId,
        key: d.key,
        url: d.url,
        title: d.title,
        kind: d.kind,
        status: d.status,
        content_hash: d.contentHash,
        chars: d.chars,
        chunk_count: d.chunkCount,
        error: d.error,
        created_at: d.createdAt,
        updated_at: d.updatedAt,
      })
      .execute();
  },
  async update(id, patch) {
    const set = columns(patch, DOCUMENT_COLUMNS);
    if (Object.keys(set).length) await db.updateTable('documents').set(set).where('id', '=', id).execute();
  },
  page(chatbotId, page, filter) {
    let q = db.selectFrom('documents').selectAll().where('chatbot_id', '=', chatbotId);
    if (filter.sourceId !== undefined) q = q.where('source_id', '=', filter.sourceId);
    if (filter.status !== undefined) q = q.where('status', '=', filter.status);
    if (filter.text) {
      // Case-insensitive substring of the title or URL; LIKE's wildcards in the text match themselves.
      const pattern = `%${filter.text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q = q.where(
        sql<boolean>`(lower(title) like ${pattern} escape '\\' or lower(coalesce(url, '')) like ${pattern} escape '\\')`,
      );
    }
    return keysetPage(q, page, toDocument, 'documents');
  },
  async countBySource(chatbotId) {
    const rows = await db
      .selectFrom('documents')
      .select(['source_id', (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('chatbot_id', '=', chatbotId)
      .groupBy('source_id')
      .execute();
    return new Map(rows.map((r) => [r.source_id, Number(r.n)]));
  },
  async many(chatbotId, ids) {
    if (!ids.length) return [];
    const rows: Selectable<DocumentsTable>[] = [];
    for (let i = 0; i < ids.length; i += BATCH) {
      const part = ids.slice(i, i + BATCH);
      rows.push(
        ...(await db
          .selectFrom('documents')
          .selectAll()
          .where('chatbot_id', '=', chatbotId)
          .where('id', 'in', part)
          .execute()),
      );
    }
    return rows.map(toDocument);
  },
  async delete(ids) {
    // Chunks go by ON DELETE CASCADE; their full-text entries (SQLite trigger, PostgreSQL
    // column) and vectors (trigger / cascade) go with them. Kept custom content has no foreign
    // key to its document (it is kept before the document exists), so it goes here.
    for (let i = 0; i < ids.length; i += BATCH) {
      const keys = db
        .selectFrom('documents')
        .select('key')
        .where('id', 'in', ids.slice(i, i + BATCH));
      await db.deleteFrom('custom_contents').where('document_key', 'in', keys).execute();
      await db
        .deleteFrom('documents')
        .where('id', 'in', ids.slice(i, i + BATCH))
        .execute();
    }
  },
  async countIndexed(accountId) {
    const row = await db
      .selectFrom('documents')
      .innerJoin('chatbots', 'chatbots.id', 'documents.chatbot_id')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('chatbots.account_id', '=', accountId)
      .where('documents.status', '=', 'indexed')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
});
