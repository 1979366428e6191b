/** Visitor accounts, signed identities, widget leads and knowledge-gap answers, built over one Store. */
import type { ChatbotsService } from '../chatbots.service.js';
import type { ConversationsService } from '../conversations/conversations.service.js';
import type { JobQueue } from '../knowledge/ports.js';
import type { Store } from '../ports.js';
import type { LeadRecord } from '../resources/ports.js';
import type { SecretBox } from '../secrets.js';
import { type CodeLimits, VisitorAccounts } from './accounts.js';
import { GapAnswers } from './gap-answers.js';
import { IdentityService } from './identity.js';
import { VisitorLeads } from './leads.js';
import type { Mailer, PresenceCheck } from './ports.js';

export interface VisitorDeps {
  store: Store;
  chatbots: ChatbotsService;
  conversations: ConversationsService;
  queue: JobQueue;
  mailer: Mailer;
  secrets: SecretBox;
  secretKey: Buffer;
  /** {site_url}, for the dashboard links in the owner's notices. */
  siteUrl: string;
  codeLimits?: Partial<CodeLimits>;
  /** Hears a lead captured outside any conversation, in its transaction (the webhook outbox). */
  onLead?: (store: Store, lead: LeadRecord) => Promise<unknown>;
}

export function createVisitorServices(deps: VisitorDeps) {
  const accounts = new VisitorAccounts(deps.store, deps.mailer, deps.secretKey, deps.codeLimits);
  const identity = new IdentityService(deps.store, deps.chatbots, deps.secrets, accounts);
  const leads = new VisitorLeads(
    deps.store,
    deps.conversations.visitors,
    deps.queue,
    deps.mailer,
    deps.siteUrl,
    deps.onLead,
  );
  const gaps = new GapAnswers(deps.store, deps.conversations.team, deps.queue, deps.mailer);
  return {
    accounts,
    identity,
    leads,
    gaps,
    /** The gateway tells whether a visitor is connected (default: never, so verified visitors get the e-mail). */
    setPresence(check: PresenceCheck) {
      gaps.presence = check;
    },
  };
}

export type VisitorServices = ReturnType<typeof createVisitorServices>;
