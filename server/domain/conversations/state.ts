/**
 * The conversation state machine of spec section 3, as a pure function. The service applies
 * its result with a compare-and-set on the conversation's sequence number, so when the
 * condition changed while a request ran, the newer condition is what gets evaluated.
 *
 * Rows the spec gives (resolved → 409 for message/escalate/release/take-over; taken over →
 * message saved with the AI silent, escalate 403 HUMAN_TAKEOVER unless already escalated,
 * release → the AI answers again) are implemented as written. Our choices for the rest:
 * - open, AI, not escalated: a visitor message is answered by the AI.
 * - escalated while in AI mode: the visitor asked for a person, so the AI stays silent until
 *   a team member takes over or the conversation is released back to the AI.
 * - escalate in AI mode: escalated = true (mode unchanged until someone takes over);
 *   escalating again is a success that changes nothing.
 * - take over: mode AGENT, by the calling team member (taking over an escalated conversation
 *   keeps it escalated; taking over again just changes the agent).
 * - release to AI when already in AI mode: success; either way the escalation is cleared,
 *   since the team has handled it.
 * - an agent reply in AI mode takes the conversation over first (mode AGENT), so the AI does
 *   not answer over the team; on a resolved conversation it is 409 CONVERSATION_CLOSED.
 * - resolve: status RESOLVED (endedAt set); resolving a resolved conversation changes nothing.
 * - reopen: a resolved conversation is open again in AI mode, not escalated; reopening an
 *   open one changes nothing.
 */
export type Mode = 'AI' | 'AGENT';
export type Status = 'OPEN' | 'RESOLVED';

export interface ConversationState {
  status: Status;
  mode: Mode;
  escalated: boolean;
  agentId: string | null;
}

export type ConversationEvent =
  | { type: 'visitor_message' }
  | { type: 'agent_reply'; agentId: string }
  | { type: 'escalate' }
  | { type: 'take_over'; agentId: string }
  | { type: 'switch_to_ai' }
  | { type: 'resolve' }
  | { type: 'reopen' };

/** What a successful transition changed, for the events to emit. */
export type Effect = 'escalated' | 'taken_over' | 'released' | 'resolved' | 'reopened';

export type Transition =
  | { ok: true; next: ConversationState; effects: Effect[]; aiAnswers: boolean }
  | { ok: false; code: 'CONVERSATION_CLOSED' | 'HUMAN_TAKEOVER' };

const closed: Transition = { ok: false, code: 'CONVERSATION_CLOSED' };
const same = (s: ConversationState, effects: Effect[] = []): Transition => ({
  ok: true,
  next: s,
  effects,
  aiAnswers: false,
});

export function transition(state: ConversationState, event: ConversationEvent): Transition {
  const open = state.status === 'OPEN';
  switch (event.type) {
    case 'visitor_message':
      if (!open) return closed;
      return { ok: true, next: state, effects: [], aiAnswers: state.mode === 'AI' && !state.escalated };
    case 'agent_reply':
      if (!open) return closed;
      if (state.mode === 'AGENT' && state.agentId === event.agentId) return same(state);
      return same({ ...state, mode: 'AGENT', agentId: event.agentId }, state.mode === 'AGENT' ? [] : ['taken_over']);
    case 'escalate':
      if (!open) return closed;
      if (state.escalated) return same(state);
      if (state.mode === 'AGENT') return { ok: false, code: 'HUMAN_TAKEOVER' };
      return same({ ...state, escalated: true }, ['escalated']);
    case 'take_over':
      if (!open) return closed;
      return same({ ...state, mode: 'AGENT', agentId: event.agentId }, ['taken_over']);
    case 'switch_to_ai':
      if (!open) return closed;
      if (state.mode === 'AI' && !state.escalated) return same(state);
      return same({ ...state, mode: 'AI', escalated: false, agentId: null }, ['released']);
    case 'resolve':
      if (!open) return same(state);
      return same({ ...state, status: 'RESOLVED' }, ['resolved']);
    case 'reopen':
      if (open) return same(state);
      return same({ status: 'OPEN', mode: 'AI', escalated: false, agentId: null }, ['reopened']);
  }
}
