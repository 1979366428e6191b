/** Migrations live in code, in order; they run at start and with `cli migrate`. */
import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import type { DialectName } from './column-types.js';
import type { Database } from '../tables.js';
import { foundation } from './0001-foundation.js';
import { knowledge } from './0002-knowledge.js';
import { vectors } from './0003-vectors.js';
import { searchIndex } from './0004-search-index.js';
import { conversations } from './0010-conversations.js';
import { searchExtraTokens } from './0011-search-extra.js';
import { searchHeads } from './0012-search-heads.js';
import { delivery } from './0013-delivery.js';
import { visitors } from './0014-visitors.js';
import { webhooks } from './0015-webhooks.js';
import { fairQueue } from './0016-fair-queue.js';
import { uploadStorage } from './0017-upload-storage.js';
import { deviceFlow } from './0019-device-flow.js';
import { customContent } from './0025-custom-content.js';
import { chunkQuestions } from './0026-chunk-questions.js';
import { consoleSessions } from './0028-console-sessions.js';
import { searchLayout } from './0029-search-layout.js';
import { oauthClients } from './0030-oauth-clients.js';

export function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '0001-foundation': foundation(dialect),
    '0002-knowledge': knowledge(dialect),
    '0003-vectors': vectors(dialect),
    '0004-search-index': searchIndex(dialect),
    '0010-conversations': conversations(dialect),
    // Numbered after 0010: kysely refuses a migration ordered before one already applied.
    '0011-search-extra': searchExtraTokens(dialect),
    '0012-search-heads': searchHeads(dialect),
    '0013-delivery': delivery(dialect),
    '0014-visitors': visitors(dialect),
    '0015-webhooks': webhooks(dialect),
    '0016-fair-queue': fairQueue(),
    '0017-upload-storage': uploadStorage(dialect),
    '0019-device-flow': deviceFlow(dialect),
    '0025-custom-content': customContent(),
    '0026-chunk-questions': chunkQuestions(),
    '0028-console-sessions': consoleSessions(),
    '0029-search-layout': searchLayout(dialect),
    '0030-oauth-clients': oauthClients(dialect),
  };
}

/**
 * Applies every pending migration; `onStart` hears each one's name as it begins (some rebuild an
 * index over every chunk, which takes a while on a large base, and a silent start looks hung).
 */
export async function migrateToLatest(
  db: Kysely<Database>,
  dialect: DialectName,
  schema?: string,
  onStart?: (name: string) => void,
): Promise<string[]> {
  const { error, results } = await (await migrator(db, dialect, schema, onStart)).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** The migrations this build has that the database has not applied yet (in order). */
export async function pendingMigrations(
  db: Kysely<Database>,
  dialect: DialectName,
  schema?: string,
): Promise<string[]> {
  const known = await (await migrator(db, dialect, schema)).getMigrations();
  return known.filter((m) => !m.executedAt).map((m) => m.name);
}

async function migrator(
  db: Kysely<Database>,
  dialect: DialectName,
  schema?: string,
  onStart?: (name: string) => void,
): Promise<Migrator> {
  // Without it kysely looks for its bookkeeping tables in every schema and may find another's
  // (another app's, a parallel test run's), then fails to find them in ours. On PostgreSQL the
  // default is the schema we work in: the first of search_path (`public` for most installs).
  if (!schema && dialect === 'postgres') {
    schema =
      (await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db)).rows[0]?.schema ??
      undefined;
  }
  return new Migrator({
    db,
    ...(schema ? { migrationTableSchema: schema } : {}),
    provider: {
      getMigrations: async () =>
        Object.fromEntries(
          Object.entries(migrations(dialect)).map(([name, m]) => [
            name,
            {
              ...m,
              up: async (trx: Kysely<unknown>) => {
                onStart?.(name);
                await m.up(trx);
              },
            },
          ]),
        ),
    },
  });
}
