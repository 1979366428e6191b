import type { AuthContext } from './auth.js';
import type { CursorCodec } from './cursor.js';
import { validationFailed } from './errors.js';
import { newId, nowIso } from './ids.js';
import type { InvoiceRecord, Store } from './ports.js';

/** Usage meters other features keep in `usage_counters`, in the transaction of their change (content pages are counted from the indexed documents instead). */
export const METERS = { messages: 'messages' } as const;

/** The current billing period: the calendar month, UTC. */
export function currentPeriod(at = new Date()): { key: string; start: string; end: string } {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { key: start.toISOString().slice(0, 7), start: start.toISOString(), end: end.toISOString() };
}

const invoiceView = (i: InvoiceRecord) => ({
  id: i.id,
  name: i.name,
  amount: i.amountCents / 100,
  currency: i.currency,
  status: i.status,
  periodStart: i.periodStart,
  periodEnd: i.periodEnd,
  url: i.url,
  createdAt: i.createdAt,
});

export class BillingService {
  constructor(
    private readonly store: Store,
    private readonly cursors: CursorCodec,
    /** Resolves once this process's message counts are written (conversations/message-meter.ts). */
    private readonly metered: () => Promise<void> = async () => {},
  ) {}

  async invoices(auth: AuthContext, limit: number, cursor?: string) {
    const page = await this.store.invoices.page(auth.account.id, {
      limit,
      after: this.cursors.decode('invoices', cursor),
    });
    return { billings: page.items.map(invoiceView), nextCursor: this.cursors.encode('invoices', page.next) };
  }

  /** Operators record invoices issued outside Parley (CLI `invoices record`); none are invented. */
  async record(
    accountId: string,
    input: { name: string; amount: number; currency: string; status?: string; url?: string },
  ) {
    if (!Number.isFinite(input.amount) || input.amount < 0)
      throw validationFailed([{ path: ['amount'], message: 'must be 0 or more' }]);
    if (!/^[A-Z]{3}$/.test(input.currency))
      throw validationFailed([{ path: ['currency'], message: 'must be an ISO 4217 code such as EUR' }]);
    const period = currentPeriod();
    const invoice: InvoiceRecord = {
      id: newId(),
      accountId,
      name: input.name,
      amountCents: Math.round(input.amount * 100),
      currency: input.currency,
      status: input.status ?? 'paid',
      periodStart: period.start,
      periodEnd: period.end,
      url: input.url ?? null,
      createdAt: nowIso(),
    };
    await this.store.invoices.insert(invoice);
    return invoiceView(invoice);
  }

  async usage(auth: AuthContext) {
    const a = auth.account;
    const period = currentPeriod();
    await this.metered();
    const [chatbots, pages, messages] = await Promise.all([
      this.store.chatbots.count(a.id),
      // Stored pages are the account's indexed documents, counted where they live (the same
      // count the page quota is enforced on), not a meter kept beside them.
      this.store.knowledge.documents.countIndexed(a.id),
      this.store.usage.get(a.id, METERS.messages, period.key),
    ]);
    return {
      plan: a.plan.name,
      period: { start: period.start, end: period.end },
      chatbots: { used: chatbots, limit: a.plan.maxChatbots },
      contentPages: { used: pages, limit: a.plan.maxPages },
      messages: { used: messages, limit: null },
    };
  }
}
