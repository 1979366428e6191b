/** The state table of spec section 3, and our documented result for every other combination. */
import { describe, expect, test } from 'vitest';
import {
  type ConversationEvent,
  type ConversationState,
  transition,
} from '../../../../server/domain/conversations/state.js';

const S = (
  status: 'OPEN' | 'RESOLVED',
  mode: 'AI' | 'AGENT',
  escalated: boolean,
  agentId: string | null = mode === 'AGENT' ? 'a1' : null,
): ConversationState => ({ status, mode, escalated, agentId });
const E: Record<string, ConversationEvent> = {
  message: { type: 'visitor_message' },
  reply: { type: 'agent_reply', agentId: 'a2' },
  escalate: { type: 'escalate' },
  takeOver: { type: 'take_over', agentId: 'a2' },
  release: { type: 'switch_to_ai' },
  resolve: { type: 'resolve' },
  reopen: { type: 'reopen' },
};

describe('spec section 3 rows', () => {
  const resolvedStates = [S('RESOLVED', 'AI', false), S('RESOLVED', 'AGENT', true), S('RESOLVED', 'AGENT', false)];
  test.each(
    resolvedStates.flatMap((s) => ['message', 'escalate', 'release', 'takeOver', 'reply'].map((e) => [s, e] as const)),
  )('resolved (%o) + %s → 409 CONVERSATION_CLOSED, unchanged', (state, e) => {
    expect(transition(state, E[e])).toEqual({ ok: false, code: 'CONVERSATION_CLOSED' });
  });

  test('taken over + visitor message → success, the AI does not answer', () => {
    const state = S('OPEN', 'AGENT', false);
    expect(transition(state, E.message)).toEqual({ ok: true, next: state, effects: [], aiAnswers: false });
  });

  test('taken over, not escalated + escalate → 403 HUMAN_TAKEOVER', () => {
    expect(transition(S('OPEN', 'AGENT', false), E.escalate)).toEqual({ ok: false, code: 'HUMAN_TAKEOVER' });
  });

  test('taken over, already escalated + escalate → success, unchanged', () => {
    const state = S('OPEN', 'AGENT', true);
    expect(transition(state, E.escalate)).toEqual({ ok: true, next: state, effects: [], aiAnswers: false });
  });

  test('taken over + release to AI → the AI answers again', () => {
    const r = transition(S('OPEN', 'AGENT', true), E.release);
    expect(r).toEqual({ ok: true, next: S('OPEN', 'AI', false), effects: ['released'], aiAnswers: false });
    expect(r.ok && transition(r.next, E.message)).toMatchObject({ ok: true, aiAnswers: true });
  });
});

describe('combinations the spec leaves out (our documented choices)', () => {
  const cases: [string, ConversationState, keyof typeof E, ReturnType<typeof transition>][] = [
    [
      'AI, open: visitor message is answered',
      S('OPEN', 'AI', false),
      'message',
      { ok: true, next: S('OPEN', 'AI', false), effects: [], aiAnswers: true },
    ],
    [
      'AI, escalated: the AI stays silent',
      S('OPEN', 'AI', true),
      'message',
      { ok: true, next: S('OPEN', 'AI', true), effects: [], aiAnswers: false },
    ],
    [
      'AI: escalate sets escalated, mode unchanged',
      S('OPEN', 'AI', false),
      'escalate',
      { ok: true, next: S('OPEN', 'AI', true), effects: ['escalated'], aiAnswers: false },
    ],
    [
      'AI, escalated: escalating again changes nothing',
      S('OPEN', 'AI', true),
      'escalate',
      { ok: true, next: S('OPEN', 'AI', true), effects: [], aiAnswers: false },
    ],
    [
      'AI: take over → AGENT by the caller',
      S('OPEN', 'AI', false),
      'takeOver',
      { ok: true, next: S('OPEN', 'AGENT', false, 'a2'), effects: ['taken_over'], aiAnswers: false },
    ],
    [
      'escalated: take over keeps it escalated',
      S('OPEN', 'AI', true),
      'takeOver',
      { ok: true, next: S('OPEN', 'AGENT', true, 'a2'), effects: ['taken_over'], aiAnswers: false },
    ],
    [
      'AGENT: take over again changes the agent',
      S('OPEN', 'AGENT', false, 'a1'),
      'takeOver',
      { ok: true, next: S('OPEN', 'AGENT', false, 'a2'), effects: ['taken_over'], aiAnswers: false },
    ],
    [
      'AI: release changes nothing',
      S('OPEN', 'AI', false),
      'release',
      { ok: true, next: S('OPEN', 'AI', false), effects: [], aiAnswers: false },
    ],
    [
      'AI, escalated: release clears the escalation',
      S('OPEN', 'AI', true),
      'release',
      { ok: true, next: S('OPEN', 'AI', false), effects: ['released'], aiAnswers: false },
    ],
    [
      'AI: an agent reply takes over first',
      S('OPEN', 'AI', false),
      'reply',
      { ok: true, next: S('OPEN', 'AGENT', false, 'a2'), effects: ['taken_over'], aiAnswers: false },
    ],
    [
      'AGENT by someone else: a reply moves it to the replier',
      S('OPEN', 'AGENT', false, 'a1'),
      'reply',
      { ok: true, next: S('OPEN', 'AGENT', false, 'a2'), effects: [], aiAnswers: false },
    ],
    [
      'open: resolve',
      S('OPEN', 'AGENT', true),
      'resolve',
      { ok: true, next: S('RESOLVED', 'AGENT', true), effects: ['resolved'], aiAnswers: false },
    ],
    [
      'resolved: resolve again changes nothing',
      S('RESOLVED', 'AI', false),
      'resolve',
      { ok: true, next: S('RESOLVED', 'AI', false), effects: [], aiAnswers: false },
    ],
    [
      'resolved: reopen → open, AI, not escalated',
      S('RESOLVED', 'AGENT', true),
      'reopen',
      { ok: true, next: S('OPEN', 'AI', false), effects: ['reopened'], aiAnswers: false },
    ],
    [
      'open: reopen changes nothing',
      S('OPEN', 'AGENT', false),
      'reopen',
      { ok: true, next: S('OPEN', 'AGENT', false), effects: [], aiAnswers: false },
    ],
  ];
  test.each(cases)('%s', (_name, state, e, expected) => {
    expect(transition(state, E[e])).toEqual(expected);
  });
});

describe('rules that hold for every (condition, operation) pair', () => {
  const states = (['OPEN', 'RESOLVED'] as const).flatMap((st) =>
    (['AI', 'AGENT'] as const).flatMap((m) => [true, false].map((esc) => S(st, m, esc))),
  );
  const pairs = states.flatMap((s) => Object.entries(E).map(([name, e]) => [s, name, e] as const));

  test('a resolved conversation refuses everything but resolve and reopen, and only with CONVERSATION_CLOSED', () => {
    for (const [s, name, e] of pairs) {
      const r = transition(s, e);
      if (s.status === 'RESOLVED' && name !== 'resolve' && name !== 'reopen')
        expect(r, `${name} on ${JSON.stringify(s)}`).toEqual({ ok: false, code: 'CONVERSATION_CLOSED' });
      else if (!r.ok)
        expect({ name, s, code: r.code }).toEqual({
          name: 'escalate',
          s: S('OPEN', 'AGENT', false),
          code: 'HUMAN_TAKEOVER',
        });
    }
  });

  test('the AI answers only a visitor message in an open, AI, not escalated conversation', () => {
    for (const [s, name, e] of pairs) {
      const r = transition(s, e);
      const expected = name === 'message' && s.status === 'OPEN' && s.mode === 'AI' && !s.escalated;
      expect(r.ok && r.aiAnswers, `${name} on ${JSON.stringify(s)}`).toBe(expected);
    }
  });

  test('an agent is named exactly when a team member has the conversation', () => {
    for (const [s, name, e] of pairs) {
      const r = transition(s, e);
      if (r.ok) expect(r.next.agentId !== null, `${name} on ${JSON.stringify(s)}`).toBe(r.next.mode === 'AGENT');
    }
  });

  test('an operation applied twice changes nothing the second time (a retry after a lost compare-and-set is harmless)', () => {
    for (const [s, name, e] of pairs) {
      const first = transition(s, e);
      if (!first.ok) continue;
      const again = transition(first.next, e);
      expect(again.ok && again.next, `${name} twice from ${JSON.stringify(s)}`).toEqual(first.next);
    }
  });

  test('only an escalation, take-over, release, resolve or reopen announces an effect, and each announces its own', () => {
    const own: Record<string, string> = {
      escalate: 'escalated',
      takeOver: 'taken_over',
      reply: 'taken_over',
      release: 'released',
      resolve: 'resolved',
      reopen: 'reopened',
    };
    for (const [s, name, e] of pairs) {
      const r = transition(s, e);
      if (!r.ok) continue;
      for (const effect of r.effects) expect(effect, `${name} on ${JSON.stringify(s)}`).toBe(own[name]);
      // A condition that changed (status, mode, escalation) is always announced.
      const changed = r.next.status !== s.status || r.next.mode !== s.mode || r.next.escalated !== s.escalated;
      if (changed) expect(r.effects, `${name} on ${JSON.stringify(s)}`).toHaveLength(1);
    }
  });
});
