import type { Kysely } from 'kysely';

/**
 * The console's sessions end after a while without use as well as at their absolute expiry:
 * `last_seen_at` is when the session was last used (null: never since it was created).
 */
export function consoleSessions() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('owner_sessions').addColumn('last_seen_at', 'text').execute();
      await db.schema.createIndex('owner_sessions_user').on('owner_sessions').column('user_id').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropIndex('owner_sessions_user').execute();
      await db.schema.alterTable('owner_sessions').dropColumn('last_seen_at').execute();
    },
  };
}
