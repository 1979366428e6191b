/**
 * Stored conversation events -> server frames (shared/protocol.ts). Every frame of a stored
 * event carries that event's seq. A stored AI answer is `answer.done` (it closes the streamed
 * deltas of the same message id, or stands alone on a replay); every other stored message is
 * `message.created`. Events a visitor has no use for (tags, lead captured) produce no frame.
 */
import type {
  ConditionChange,
  ConditionFrame,
  ConditionState,
  ServerFrame,
  WireMessage,
} from '../../shared/protocol.js';
import { messageView } from '../domain/conversations/views.js';
import type { ConversationEventRecord, ConversationRecord, MessageRecord } from '../domain/conversations/ports.js';
import type { ConversationReads } from '../domain/conversations/reads.js';
import type { ChatbotRecord } from '../domain/ports.js';

type Agent = NonNullable<ConditionState['agent']>;

const CHANGE: Partial<Record<ConversationEventRecord['type'], ConditionChange>> = {
  'conversation.started': 'started',
  'conversation.escalated': 'escalated',
  'conversation.taken_over': 'taken_over',
  'conversation.released': 'released',
  'conversation.resolved': 'resolved',
  'conversation.reopened': 'reopened',
};

export class Wire {
  constructor(private readonly reads: Pick<ConversationReads, 'agent' | 'message'>) {}

  agent(chatbot: Pick<ChatbotRecord, 'settings'>, agentId: string | null): Promise<Agent | null> {
    return this.reads.agent(chatbot, agentId);
  }

  async message(chatbot: Pick<ChatbotRecord, 'settings'>, m: MessageRecord): Promise<WireMessage> {
    const v = messageView(m);
    // A team reply carries the member's display name as it is now (the stored agentName may be an e-mail).
    const agent = await this.agent(chatbot, m.agentId);
    return {
      id: v.id,
      conversationId: v.threadId,
      author: v.author,
      name: v.author === 'agent' ? (agent?.name ?? null) : v.name,
      text: v.text,
      sources: chatbot.settings.hideSources === true ? [] : v.sources,
      followUps: v.followUps,
      agent,
      feedback: v.feedback,
      clientId:
        typeof m.meta.clientId === 'string'
          ? m.meta.clientId
          : ((m as { clientMessageId?: string | null }).clientMessageId ?? null),
      createdAt: v.createdAt,
      seq: v.seq,
    };
  }

  async state(
    chatbot: Pick<ChatbotRecord, 'settings'>,
    c: Pick<ConversationRecord, 'mode' | 'status' | 'escalated' | 'agentId'>,
  ): Promise<ConditionState> {
    return { mode: c.mode, status: c.status, escalated: c.escalated, agent: await this.agent(chatbot, c.agentId) };
  }

  /** The current condition, after a replay. */
  async condition(chatbot: Pick<ChatbotRecord, 'settings'>, c: ConversationRecord): Promise<ConditionFrame> {
    return { type: 'condition', conversationId: c.id, seq: c.seq, state: await this.state(chatbot, c) };
  }

  /**
   * The frame of one stored event, or null when visitors see nothing of it. `added`: messages the
   * event's commit added, as stored (a message.added event's message is then not read back).
   */
  async frame(
    chatbot: Pick<ChatbotRecord, 'settings'>,
    e: ConversationEventRecord,
    added: MessageRecord[] = [],
  ): Promise<ServerFrame | null> {
    if (e.type === 'message.added' || e.type === 'message.updated') {
      const id = String(e.payload.messageId);
      const m =
        (e.type === 'message.added' && added.find((x) => x.id === id)) ||
        (await this.reads.message(e.conversationId, id));
      if (!m) return null;
      const message = await this.message(chatbot, m);
      if (e.type === 'message.updated')
        return { type: 'message.updated', conversationId: e.conversationId, seq: e.seq, message };
      return {
        type: m.author === 'ai' ? 'answer.done' : 'message.created',
        conversationId: e.conversationId,
        seq: e.seq,
        message,
      };
    }
    const change = CHANGE[e.type];
    if (!change) return null;
    const p = e.payload as { mode?: 'AI' | 'AGENT'; escalated?: boolean; agentId?: string | null };
    const state = await this.state(chatbot, {
      mode: p.mode ?? 'AI',
      status: change === 'resolved' ? 'RESOLVED' : 'OPEN',
      escalated: p.escalated ?? false,
      agentId: p.agentId ?? null,
    });
    return { type: 'condition', conversationId: e.conversationId, seq: e.seq, change, state };
  }
}
