/**
 * The `info` lines an operator follows besides requests and jobs: each answer (which answerer,
 * how many sources, whether it had the answer, how long it took) and each hand-off of a
 * conversation (escalated, taken over, handed back, resolved, reopened).
 */
import type { AnsweredInfo } from '../domain/conversations/answering.js';
import type { CommitListener } from '../domain/conversations/changes.js';

export interface InfoLog {
  info(fields: Record<string, unknown>, message: string): void;
}

const ANSWERERS: Record<string, string> = {
  'built-in': 'the built-in answerer',
  openai: 'the language model',
  'custom-response': 'a custom response',
  unavailable: 'the "assistant unavailable" reply (no answerer could answer)',
  busy: 'the "busy" reply (the chatbot was at MAX_ANSWERS_PER_CHATBOT)',
};

export function logAnswer(log: InfoLog, a: AnsweredInfo) {
  const by = ANSWERERS[a.provider] ?? a.provider;
  const what = a.unanswered
    ? 'no answer in the knowledge (a knowledge gap)'
    : `${a.sources} source${a.sources === 1 ? '' : 's'}`;
  log.info({ ...a, refused: a.unanswered }, `answered by ${by}${a.model ? ` (${a.model})` : ''}: ${what}, ${a.ms} ms`);
}

const HAND_OFFS: Partial<Record<string, (payload: Record<string, unknown>) => string>> = {
  'conversation.escalated': () => 'conversation escalated: the visitor asked for a person',
  'conversation.taken_over': (p) => `conversation taken over by team member ${p.agentId}`,
  'conversation.released': () => 'conversation handed back to the AI',
  'conversation.resolved': () => 'conversation resolved',
  'conversation.reopened': () => 'conversation reopened',
};

export function conversationLog(log: InfoLog): CommitListener {
  return (conversation, events) => {
    for (const e of events) {
      const message = HAND_OFFS[e.type]?.(e.payload);
      if (message)
        log.info(
          {
            event: e.type,
            chatbotId: conversation.chatbotId,
            conversationId: conversation.id,
            agentId: conversation.agentId,
          },
          message,
        );
    }
  };
}
