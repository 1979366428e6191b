/**
 * Leads from the widget, as the chatbot's `collectUserDetails` asks for them:
 *
 * - DONT_COLLECT: the widget never asks (a visitor may still verify an address to keep history);
 * - BEFORE_CONVERSATION: the widget shows the form before the first message (no conversation
 *   yet: the lead belongs to the visitor, and to the conversations they start);
 * - DURING_CONVERSATION: the form appears after the visitor's first question has been answered,
 *   and can be skipped;
 * - ON_ESCALATION: the form appears when the visitor asks for a person, before the escalation.
 *
 * `collectUserData` says which of name and phone the form has besides the e-mail; `leadFields`
 * adds the chatbot's own fields. Validation and storage are the v2 API's leads
 * (resources/leads.ts `captureLead`): a widget lead is listed by GET /chatbots/{id}/leads with
 * `source: "widget"`. The owner is e-mailed about each new lead, the widget's and the v2 API's
 * (`notify`, also the conversations service's leadCaptured hook), unless disableLeadNotifications.
 */
import type { VisitorInfo } from '../../../shared/protocol.js';
import type { VisitorMessages } from '../conversations/visitor-messages.js';
import { chatbotNotFound, notFound } from '../errors.js';
import type { JobQueue } from '../knowledge/ports.js';
import type { Store } from '../ports.js';
import { captureLead, checkLead } from '../resources/leads.js';
import type { LeadRecord } from '../resources/ports.js';
import { nowIso } from '../ids.js';
import { visitorInfo } from '../conversations/views.js';
import { botName, localeOf, mailStrings } from './mail-text.js';
import type { Mailer } from './ports.js';

export const LEAD_NOTICE_JOB = 'visitors.lead-notice';

export interface WidgetLead {
  chatbotId: string;
  /** The session's visitor. */
  chatUserId: string;
  /** The conversation the form was shown in (absent before the first message). */
  conversationId?: string | null;
  email?: string | null;
  name?: string | null;
  phone?: string | null;
  customFields?: Record<string, unknown>;
}

export class VisitorLeads {
  constructor(
    private readonly store: Store,
    /** The lead form submitted in a conversation goes through it (visitor-messages.ts). */
    private readonly conversations: VisitorMessages,
    private readonly queue: JobQueue,
    private readonly mailer: Mailer,
    private readonly siteUrl: string,
    private readonly onLead?: (store: Store, lead: LeadRecord) => Promise<unknown>,
  ) {
    queue.handle(LEAD_NOTICE_JOB, (payload) => this.sendNotice(String(payload.chatbotId), String(payload.leadId)));
  }

  /**
   * Stores the details on the visitor and as a lead (VALIDATION_FAILED listing every bad field
   * changes nothing). A verified visitor's address is kept; the lead records what was typed.
   */
  async submit(input: WidgetLead): Promise<{ visitor: VisitorInfo; leadId: string | null }> {
    const chatbot = await this.store.chatbots.get(input.chatbotId);
    if (!chatbot) throw chatbotNotFound();
    const user = await this.store.conversations.chatUsers.get(input.chatUserId);
    if (!user || user.chatbotId !== chatbot.id) throw notFound('Visitor');
    const details = {
      email: input.email ?? null,
      name: input.name ?? null,
      phone: input.phone ?? null,
      customFields: input.customFields ?? {},
    };
    // The rules of a lead whichever path stores it: in a conversation the details would otherwise
    // be taken as an identification, where an empty form or a missing required field passes.
    checkLead(chatbot.settings, details);
    let leadId: string | null;
    if (input.conversationId) {
      const conversation = await this.store.conversations.get(input.conversationId);
      if (!conversation || conversation.chatbotId !== chatbot.id || conversation.chatUserId !== user.id)
        throw notFound('Conversation');
      // The conversations service's leadCaptured hook queues the owner's notice.
      ({ leadId } = await this.conversations.identifyVisitor(chatbot.id, conversation.id, details, 'widget'));
    } else {
      leadId = await this.store.transaction(async (s) => {
        const lead = await captureLead(s, { chatbotId: chatbot.id, chatUserId: user.id, ...details, source: 'widget' });
        await this.onLead?.(s, lead);
        const patch = {
          ...(lead.name ? { name: lead.name } : {}),
          ...(lead.phone ? { phone: lead.phone } : {}),
          ...(lead.email && !user.verified ? { email: lead.email } : {}),
        };
        await s.conversations.chatUsers.update(user.id, { ...patch, updatedAt: nowIso() });
        await this.notify(chatbot.id, lead.id, s);
        return lead.id;
      });
    }
    const fresh = (await this.store.conversations.chatUsers.get(user.id))!;
    return { visitor: visitorInfo(fresh), leadId };
  }

  /**
   * Queues the owner's notice of a new lead, unless the chatbot has disableLeadNotifications; in
   * the lead's own transaction (`within`), so no crash leaves a stored lead without its notice.
   */
  async notify(chatbotId: string, leadId: string, within: Store): Promise<void> {
    const chatbot = await within.chatbots.get(chatbotId);
    if (!chatbot || chatbot.settings.disableLeadNotifications === true) return;
    await this.queue.enqueue(LEAD_NOTICE_JOB, { chatbotId, leadId }, { within });
  }

  /** The owner's notice of a new lead (a queued job: retried when the mail server is away). */
  private async sendNotice(chatbotId: string, leadId: string) {
    const chatbot = await this.store.chatbots.get(chatbotId);
    const lead = chatbot ? await this.store.resources.leads.get(chatbot.id, leadId) : null;
    if (!chatbot || !lead || chatbot.settings.disableLeadNotifications === true) return;
    const owner = await this.store.users.owner(chatbot.accountId);
    if (!owner) return;
    const locale = localeOf(chatbot.settings);
    const t = mailStrings(locale);
    const bot = botName(chatbot);
    const lines = [
      t.leadIntro(bot),
      '',
      ...(lead.name ? [`${t.labels.name}: ${lead.name}`] : []),
      ...(lead.email ? [`${t.labels.email}: ${lead.email}`] : []),
      ...(lead.phone ? [`${t.labels.phone}: ${lead.phone}`] : []),
      ...Object.entries(lead.customFields).map(([k, v]) => `${k}: ${v}`),
      '',
      `${this.siteUrl}/api/v2/chatbots/${chatbot.id}/leads/${lead.id}`,
    ];
    await this.mailer.send({
      to: owner.email,
      subject: t.leadSubject(bot),
      text: lines.join('\n') + '\n',
      language: locale,
    });
  }
}
