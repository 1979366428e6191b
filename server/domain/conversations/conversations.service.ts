/**
 * Conversations, in five rooms (README.md has the map):
 * - `changes.ts`: the change engine (transition, compare-and-set, events, commit listeners);
 * - `visitor-messages.ts`: where a visitor's message goes, and the visitor's other acts;
 * - `answering.ts`: where an answer is made (the owed-answer pipeline and its leases);
 * - `team-actions.ts`: what the team does through the REST API;
 * - `views.ts`: rows as the API and the realtime frames show them;
 * - `reads.ts`: what live readers read, and the visitor's ownership rule;
 * with `visitor-details.ts` (contact details and leads) and `access.ts` (who reaches what).
 * This class builds them and gives callers one object to hold.
 */
import type { ChatbotsService } from '../chatbots.service.js';
import type { CursorCodec } from '../cursor.js';
import type { Store } from '../ports.js';
import { Answering, type AnsweringOptions } from './answering.js';
import { ChangeEngine } from './changes.js';
import type { ConversationHooks } from './hooks.js';
import type { AnswerEngine } from './ports.js';
import { ConversationReads } from './reads.js';
import { TeamActions } from './team-actions.js';
import { VisitorDetailsWriter } from './visitor-details.js';
import { VisitorMessages } from './visitor-messages.js';

export class ConversationsService {
  readonly changes: ChangeEngine;
  readonly answering: Answering;
  readonly visitors: VisitorMessages;
  readonly team: TeamActions;
  readonly reads: ConversationReads;

  constructor(
    store: Store,
    chatbots: ChatbotsService,
    cursors: CursorCodec,
    answers: AnswerEngine,
    hooks: ConversationHooks = {},
    options: AnsweringOptions = {},
  ) {
    this.changes = new ChangeEngine(store, hooks, options.onError);
    const details = new VisitorDetailsWriter(store, this.changes, hooks);
    this.answering = new Answering(store, this.changes, answers, hooks, options);
    this.visitors = new VisitorMessages(store, chatbots, this.changes, details, this.answering);
    this.team = new TeamActions(store, chatbots, cursors, this.changes, details, hooks);
    this.reads = new ConversationReads(store);
  }
}
