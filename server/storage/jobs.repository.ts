/** The embedded queue's `jobs` table (queue/ports.ts): due work, fair turns, leases and the claim's compare-and-set. */
import { type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
import type { JobsStore } from '../queue/ports.js';
import type { Dialect } from './dialects/dialect.js';
import type { Database } from './tables.js';

/** Queued and due, or running on an expired lease (its worker died). */
const due = (now: string) => (eb: ExpressionBuilder<Database, 'jobs'>) =>
  eb.or([
    eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', now)]),
    eb.and([eb('status', '=', 'running'), eb('lease_until', '<', now)]),
  ]);

export function jobsRepository(db: Kysely<Database>, dialect: Dialect): JobsStore {
  return {
    async insert(job) {
      await db
        .insertInto('jobs')
        .values({
          id: job.id,
          name: job.name,
          payload: job.payload,
          status: 'queued',
          max_attempts: job.maxAttempts,
          run_at: job.runAt,
          lease_until: null,
          locked_by: null,
          last_error: null,
          created_at: job.createdAt,
          finished_at: null,
          account_id: job.accountId,
          chatbot_id: job.chatbotId,
        })
        .execute();
    },

    async unfinished(names) {
      const row = await db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('status', 'in', ['queued', 'running'])
        .where('name', 'in', [...names, ''])
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async waitingAccounts(names, now) {
      const rows = await db
        .selectFrom('jobs')
        .select((eb) => ['account_id', eb.fn.min('run_at').as('first')])
        .where('name', 'in', names)
        .where(due(now))
        .groupBy('account_id')
        .execute();
      return rows.map((r) => ({ account_id: r.account_id, first: String(r.first) }));
    },

    async running(now) {
      const rows = await db
        .selectFrom('jobs')
        .select((eb) => ['account_id', 'chatbot_id', eb.fn.countAll<number | string>().as('n')])
        .where('status', '=', 'running')
        .where('lease_until', '>=', now)
        .groupBy(['account_id', 'chatbot_id'])
        .execute();
      return rows.map((r) => ({ account_id: r.account_id, chatbot_id: r.chatbot_id, n: Number(r.n) }));
    },

    dueOf: (names, accountId, now, limit) =>
      db
        .selectFrom('jobs')
        .select(['id', 'chatbot_id'])
        .where('name', 'in', names)
        .where(due(now))
        .where((eb) => (accountId === null ? eb('account_id', 'is', null) : eb('account_id', '=', accountId)))
        .orderBy('run_at')
        .limit(limit)
        .execute(),

    async claim(c) {
      const liveOf = (column: 'account_id' | 'chatbot_id', value: string | null) =>
        sql<number>`(select count(*) from jobs as r where r.status = 'running' and r.lease_until >= ${c.now} and ${value === null ? sql`r.account_id is null` : sql`r.${sql.ref(column)} = ${value}`})`;
      const row = await dialect.serialiseJobClaims(db, (claimDb) =>
        claimDb
          .updateTable('jobs')
          .set({ status: 'running', lease_until: c.leaseUntil, locked_by: c.workerId, attempts: sql`attempts + 1` })
          .where('id', '=', c.id)
          .where(due(c.now))
          .where(sql<SqlBool>`${liveOf('account_id', c.accountId)} < ${c.accountLimit}`)
          .where(
            c.chatbotId === null
              ? sql<SqlBool>`1 = 1`
              : sql<SqlBool>`${liveOf('chatbot_id', c.chatbotId)} < ${c.chatbotLimit}`,
          )
          .returning(['id', 'name', 'payload', 'attempts', 'max_attempts'])
          .executeTakeFirst(),
      );
      return row ?? null;
    },

    async backlog(now) {
      const row = await db
        .selectFrom('jobs')
        .select((eb) => [
          eb.fn.sum<number | string | null>(eb.case().when(due(now)(eb)).then(1).else(0).end()).as('due'),
          eb.fn
            .sum<number | string | null>(
              eb
                .case()
                .when(eb.and([eb('status', '=', 'running'), eb('lease_until', '>=', now)]))
                .then(1)
                .else(0)
                .end(),
            )
            .as('running'),
          eb.fn.min<string | null>(eb.case().when(due(now)(eb)).then(eb.ref('run_at')).else(null).end()).as('oldest'),
        ])
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirstOrThrow();
      return { due: Number(row.due ?? 0), running: Number(row.running ?? 0), oldestDue: row.oldest ?? null };
    },

    async extendLease(id, workerId, until) {
      await db
        .updateTable('jobs')
        .set({ lease_until: until })
        .where('id', '=', id)
        .where('locked_by', '=', workerId)
        .execute();
    },

    async finish(id, workerId, values) {
      await db.updateTable('jobs').set(values).where('id', '=', id).where('locked_by', '=', workerId).execute();
    },
  };
}
