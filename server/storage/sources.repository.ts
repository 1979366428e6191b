/** The KnowledgeStore's sources: what a chatbot learns from (a website, a sitemap, uploads, text). */
import type { Kysely, Selectable } from 'kysely';
import type { KnowledgeStore, SourceRecord, SourceStatus, SourceType } from '../domain/knowledge/ports.js';
import { columns } from './knowledge-rows.js';
import type { Database, SourcesTable } from './tables.js';

const toSource = (r: Selectable<SourcesTable>): SourceRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  accountId: r.account_id,
  type: r.type as SourceType,
  key: r.key,
  name: r.name,
  config: JSON.parse(r.config) as Record<string, unknown>,
  credentials: r.credentials,
  status: r.status as SourceStatus,
  lastError: r.last_error,
  lastSyncAt: r.last_sync_at,
  syncIntervalMinutes: r.sync_interval_minutes,
  nextSyncAt: r.next_sync_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const SOURCE_COLUMNS = {
  type: 'type',
  key: 'key',
  name: 'name',
  config: 'config',
  credentials: 'credentials',
  status: 'status',
  lastError: 'last_error',
  lastSyncAt: 'last_sync_at',
  syncIntervalMinutes: 'sync_interval_minutes',
  nextSyncAt: 'next_sync_at',
  updatedAt: 'updated_at',
} as const;

export const sourcesRepository = (db: Kysely<Database>): KnowledgeStore['sources'] => ({
  async insert(s) {
    await db
      .insertInto('sources')
      .values({
        id: s.id,
        chatbot_id: s.chatbotId,
        account_id: s.accountId,
        type: s.type,
        key: s.key,
        name: s.name,
        config: JSON.stringify(s.config),
        credentials: s.credentials,
        status: s.status,
        last_error: s.lastError,
        last_sync_at: s.lastSyncAt,
        sync_interval_minutes: s.syncIntervalMinutes,
        next_sync_at: s.nextSyncAt,
        created_at: s.createdAt,
        updated_at: s.updatedAt,
      })
      .execute();
  },
  async get(id) {
    const row = await db.selectFrom('sources').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toSource(row) : null;
  },
  async byKey(chatbotId, type, key) {
    const row = await db
      .selectFrom('sources')
      .selectAll()
      .where('chatbot_id', '=', chatbotId)
      .where('type', '=', type)
      .where('key', '=', key)
      .executeTakeFirst();
    return row ? toSource(row) : null;
  },
  async list(chatbotId) {
    const rows = await db
      .selectFrom('sources')
      .selectAll()
      .where('chatbot_id', '=', chatbotId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toSource);
  },
  async update(id, patch) {
    const set = columns(patch, SOURCE_COLUMNS, { config: (c) => JSON.stringify(c) });
    if (Object.keys(set).length) await db.updateTable('sources').set(set).where('id', '=', id).execute();
  },
  async due(at) {
    const rows = await db
      .selectFrom('sources')
      .selectAll()
      .where('next_sync_at', 'is not', null)
      .where('next_sync_at', '<=', at)
      .where('sync_interval_minutes', 'is not', null)
      .orderBy('next_sync_at')
      .execute();
    return rows.map(toSource);
  },
  async delete(id) {
    await db.deleteFrom('sources').where('id', '=', id).execute();
  },
});
