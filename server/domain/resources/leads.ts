/**
 * Leads: contact details visitors leave (name, e-mail, phone) plus the chatbot's own custom
 * fields (`leadFields` in the user-data settings). `captureLead` is how the conversation service
 * records one; the owner lists and deletes them through LeadsService.
 */
import type { FieldError } from '../../../shared/errors.js';
import type { AuthContext } from '../auth.js';
import { chatbotNotFound, confirmationRequired, notFound, validationFailed } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import type { Store } from '../ports.js';
import type { ResourceDeps } from './common.js';
import type { LeadFilter, LeadRecord } from './ports.js';
import { leadFieldsOf, normalizeContact, validateCustomFields } from './lead-fields.js';

/** A lead as the API shows it: its record, the conversation named a thread as in the rest of the API. */
export type LeadView = Omit<LeadRecord, 'conversationId'> & {
  /** The conversation it was captured in, if any. */
  threadId: string | null;
};

export const leadView = (l: LeadRecord): LeadView => ({
  id: l.id,
  chatbotId: l.chatbotId,
  threadId: l.conversationId,
  chatUserId: l.chatUserId,
  name: l.name,
  email: l.email,
  phone: l.phone,
  customFields: l.customFields,
  source: l.source,
  createdAt: l.createdAt,
});

export interface CaptureLeadInput {
  chatbotId: string;
  conversationId?: string | null;
  chatUserId?: string | null;
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  customFields?: Record<string, unknown>;
  /** Where it was captured: `widget`, `escalation`, `api`… */
  source: string;
}

/**
 * A lead's details, normalised, by the chatbot's rules (its `leadFields`); VALIDATION_FAILED
 * listing every failing field, or when none of name, e-mail, phone or a custom field is given.
 */
export function checkLead(
  settings: Record<string, unknown>,
  input: Pick<CaptureLeadInput, 'name' | 'email' | 'phone' | 'customFields'>,
) {
  const errors: FieldError[] = [];
  const name = normalizeContact(input.name, 'name', 'text', errors);
  const email = normalizeContact(input.email, 'email', 'email', errors);
  const phone = normalizeContact(input.phone, 'phone', 'phone', errors);
  const customFields = validateCustomFields(leadFieldsOf(settings), input.customFields ?? {}, errors);
  if (!errors.length && !name && !email && !phone && !Object.keys(customFields).length) {
    errors.push({ path: ['email'], message: 'give at least a name, an e-mail, a phone number or a custom field' });
  }
  if (errors.length) throw validationFailed(errors, 'The contact details are not valid');
  return { name, email, phone, customFields };
}

/**
 * Records a lead for the conversation service (pass the transaction's store to write it with
 * the conversation's change). Throws VALIDATION_FAILED listing every failing field; at least one
 * of name, e-mail, phone or a custom field must be given.
 */
export async function captureLead(store: Store, input: CaptureLeadInput): Promise<LeadRecord> {
  const chatbot = await store.chatbots.get(input.chatbotId);
  if (!chatbot) throw chatbotNotFound();
  const { name, email, phone, customFields } = checkLead(chatbot.settings, input);
  const lead: LeadRecord = {
    id: newId(),
    chatbotId: chatbot.id,
    conversationId: input.conversationId ?? null,
    chatUserId: input.chatUserId ?? null,
    name,
    email,
    phone,
    customFields,
    source: input.source,
    createdAt: nowIso(),
  };
  await store.resources.leads.insert(lead);
  return lead;
}

export class LeadsService {
  constructor(private readonly deps: ResourceDeps) {}

  async list(auth: AuthContext, chatbotId: string, q: { limit: number; cursor?: string } & LeadFilter) {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    // A cursor belongs to the filter it was issued for.
    const list = q.from || q.to ? `leads:${q.from ?? ''}:${q.to ?? ''}` : 'leads';
    const page = await this.deps.store.resources.leads.page(
      chatbot.id,
      { limit: q.limit, after: this.deps.cursors.decode(list, q.cursor) },
      { from: q.from, to: q.to },
    );
    return { leads: page.items.map(leadView), nextCursor: this.deps.cursors.encode(list, page.next) };
  }

  async get(auth: AuthContext, chatbotId: string, id: string): Promise<LeadView> {
    return leadView(await this.reachOne(auth, chatbotId, id));
  }

  async delete(auth: AuthContext, chatbotId: string, id: string, confirm: boolean): Promise<LeadView> {
    const lead = await this.reachOne(auth, chatbotId, id);
    if (!confirm) throw confirmationRequired('Add ?confirm=true to delete this lead');
    await this.deps.store.resources.leads.delete([lead.id]);
    return leadView(lead);
  }

  /** `delete`: removes the listed leads of this chatbot; ids it does not hold come back in notFound. */
  async act(auth: AuthContext, chatbotId: string, input: { action: 'delete'; leadIds: string[]; confirm?: boolean }) {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    if (input.confirm !== true) throw confirmationRequired('Send "confirm": true in the body to delete these leads');
    const ids = [...new Set(input.leadIds)];
    const leads = await this.deps.store.resources.leads.many(chatbot.id, ids);
    await this.deps.store.resources.leads.delete(leads.map((l) => l.id));
    const found = new Set(leads.map((l) => l.id));
    return { action: input.action, deletedLeads: leads.map(leadView), notFound: ids.filter((id) => !found.has(id)) };
  }

  private async reachOne(auth: AuthContext, chatbotId: string, id: string): Promise<LeadRecord> {
    const chatbot = await this.deps.chatbots.reach(auth, chatbotId);
    const lead = await this.deps.store.resources.leads.get(chatbot.id, id);
    if (!lead) throw notFound('Lead');
    return lead;
  }
}
