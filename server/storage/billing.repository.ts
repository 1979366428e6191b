import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { compileOnceWrite } from './compile-once.js';
import type { InvoiceRecord, Store } from '../domain/ports.js';
import { keysetPage } from './keyset.js';
import type { Database, InvoiceRow } from './tables.js';

const toInvoice = (r: InvoiceRow): InvoiceRecord => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  amountCents: r.amount_cents,
  currency: r.currency,
  status: r.status,
  periodStart: r.period_start,
  periodEnd: r.period_end,
  url: r.url,
  createdAt: r.created_at,
});

export const invoicesRepository = (db: Kysely<Database>): Store['invoices'] => ({
  async insert(i) {
    await db
      .insertInto('invoices')
      .values({
        id: i.id,
        account_id: i.accountId,
        name: i.name,
        amount_cents: i.amountCents,
        currency: i.currency,
        status: i.status,
        period_start: i.periodStart,
        period_end: i.periodEnd,
        url: i.url,
        created_at: i.createdAt,
      })
      .execute();
  },
  page(accountId, page) {
    return keysetPage(
      db.selectFrom('invoices').selectAll().where('account_id', '=', accountId),
      page,
      toInvoice,
      'invoices',
    );
  },
});

const addUsage = compileOnceWrite((db) =>
  db
    .insertInto('usage_counters')
    .values({ account_id: '<a>', metric: '<m>', period: '<p>', value: 0 })
    .onConflict((oc) =>
      oc.columns(['account_id', 'metric', 'period']).doUpdateSet({ value: sql`usage_counters.value + ${0}` }),
    ),
);

export const usageRepository = (db: Kysely<Database>): Store['usage'] => ({
  async get(accountId, metric, period) {
    const row = await db
      .selectFrom('usage_counters')
      .select('value')
      .where('account_id', '=', accountId)
      .where('metric', '=', metric)
      .where('period', '=', period)
      .executeTakeFirst();
    return row ? Number(row.value) : 0;
  },
  async add(accountId, metric, period, delta) {
    // In every message's transaction: compiled once (the parameters in the order the SQL binds them).
    await addUsage(db, accountId, metric, period, delta, delta);
  },
});
