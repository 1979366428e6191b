import type { MessageRecord } from './ports.js';

/** What a new message holds besides its author's text: no sources, agent, feedback, correction, meta or client id. */
export const newMessage = (
  m: Pick<
    MessageRecord,
    'id' | 'conversationId' | 'chatbotId' | 'seq' | 'author' | 'text' | 'createdAt' | 'updatedAt'
  > &
    Partial<MessageRecord>,
): MessageRecord => ({
  sources: [],
  agentId: null,
  agentName: null,
  feedback: null,
  feedbackComment: null,
  originalText: null,
  meta: {},
  clientMessageId: null,
  ...m,
});
