import type { Kysely } from 'kysely';

/**
 * Fair background work (queue/embedded-queue.ts): each job names the account and chatbot it works
 * for, so the queue can take turns between accounts and cap how many jobs one account or one
 * chatbot runs at once. Jobs of no account (mail notices) share one turn.
 */
export function fairQueue() {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('jobs').addColumn('account_id', 'text').execute();
      await db.schema.alterTable('jobs').addColumn('chatbot_id', 'text').execute();
      await db.schema.createIndex('jobs_account_ready').on('jobs').columns(['status', 'account_id', 'run_at']).execute();
    },
  };
}
