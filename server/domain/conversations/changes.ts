/**
 * The change engine: every change to a conversation runs `transition()` on its current condition
 * and commits with a compare-and-set on the conversation's sequence number, together with the
 * events it emits (one per change, numbered by that sequence) in the same transaction; when
 * another change came first, the change is evaluated again on the newer condition. Commit
 * listeners (the realtime gateway, the activity log) hear each committed change.
 */
import { AppError, notFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import type { ChatbotRecord, Store } from '../ports.js';
import type { ConversationHooks } from './hooks.js';
import { MessageMeter } from './message-meter.js';
import type { ConversationEventRecord, ConversationEventType, ConversationRecord, MessageRecord } from './ports.js';
import { type ConversationEvent, type ConversationState, type Effect, transition } from './state.js';
import { newMessage } from './messages.js';

/**
 * Hears every committed change: the conversation as it now is, the events the change appended
 * and the messages it added, exactly as stored (the realtime gateway sends them without reading
 * them back).
 */
export type CommitListener = (
  conversation: ConversationRecord,
  events: ConversationEventRecord[],
  added: MessageRecord[],
) => void;

export interface ChangeContext {
  s: Store;
  current: ConversationRecord;
  next: ConversationState;
  /** The AI answers the message this change adds. */
  aiAnswers: boolean;
  at: string;
  /** Appends an event; returns its sequence number. */
  emit(type: ConversationEventType, payload: Record<string, unknown>): number;
  /** Extra conversation fields to write with the compare-and-set. */
  patch: Partial<ConversationRecord>;
  /** The messages this change added, as stored. */
  added: MessageRecord[];
  /** Messages to count on the account's meter once the change commits (message-meter.ts). */
  metered: { accountId: string; messages: number } | null;
}

/** A chat user's name as read with their conversation. */
export interface VisitorName {
  chatUserId: string;
  name: string | null;
}

/** A conversation to store with the change that adds its first message. */
export interface Opening {
  conversation: ConversationRecord;
  started: ConversationEventRecord[];
}

/** What a caller of `change` may hand over. */
export interface ChangeOptions {
  /** A conversation to store with this change (`draft`): never one left without its first message. */
  opening?: Opening;
  /**
   * The conversation's chatbot as the caller holds it (a socket's copy follows every stored change
   * of it: realtime/README.md), so the commit's hooks do not read it again in the transaction.
   */
  chatbot?: ChatbotRecord;
}

/** Thrown by a change's write to give up: nothing of the change is committed. */
export class Discard extends Error {}

class Conflict extends Error {}

const EFFECT_EVENT: Record<Effect, ConversationEventType> = {
  escalated: 'conversation.escalated',
  taken_over: 'conversation.taken_over',
  released: 'conversation.released',
  resolved: 'conversation.resolved',
  reopened: 'conversation.reopened',
};

/**
 * Attempts of one change against concurrent changes of the same conversation. Every conflict
 * means another change committed (progress, never a livelock); the changes of one SQLite group
 * commit were all evaluated on the same condition, so of N at once one commits per batch and the
 * last needs N attempts: a visitor's burst (a dozen messages queued offline, sent on `ready`)
 * failed its ninth message with 8.
 */
const MAX_CHANGE_ATTEMPTS = 64;

const stateOf = (c: ConversationRecord): ConversationState => ({
  status: c.status,
  mode: c.mode,
  escalated: c.escalated,
  agentId: c.agentId,
});

export function event(
  c: Pick<ConversationRecord, 'id' | 'chatbotId'>,
  seq: number,
  type: ConversationEventType,
  payload: Record<string, unknown>,
  at: string,
): ConversationEventRecord {
  return { id: newId(), conversationId: c.id, chatbotId: c.chatbotId, seq, type, payload, createdAt: at };
}

export class ChangeEngine {
  private readonly listeners = new Set<CommitListener>();

  /** The account's message meter, written after each commit. */
  readonly meter: MessageMeter;

  constructor(
    private readonly store: Store,
    private readonly hooks: Pick<ConversationHooks, 'onEvents'> = {},
    private readonly onError?: (err: unknown, context: Record<string, unknown>) => void,
  ) {
    this.meter = new MessageMeter(store, onError);
  }

  /** Calls `listener` after every commit (realtime doorbells); returns the unsubscribe function. */
  onCommit(listener: CommitListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private committed(conversation: ConversationRecord, events: ConversationEventRecord[], added: MessageRecord[] = []) {
    for (const listener of this.listeners) {
      try {
        listener(conversation, events, added);
      } catch (err) {
        // a listener's failure never undoes or fails a committed change
        this.onError?.(err, { conversationId: conversation.id });
      }
    }
  }

  /** A new conversation and its first event, not stored yet. */
  draft(chatbot: ChatbotRecord, extra: Partial<ConversationRecord>): Opening {
    const at = nowIso();
    const humanOnly = chatbot.settings.mode === 'HUMAN_ONLY';
    const conversation: ConversationRecord = {
      id: newId(),
      chatbotId: chatbot.id,
      chatUserId: null,
      status: 'OPEN',
      mode: humanOnly ? 'AGENT' : 'AI',
      escalated: false,
      agentId: null,
      seq: 1,
      webhookUrl: null,
      webhookToken: null,
      totalMessagesRead: 0,
      messageCount: 0,
      lastMessageAt: null,
      createdAt: at,
      updatedAt: at,
      endedAt: null,
      ...extra,
    };
    return { conversation, started: [event(conversation, 1, 'conversation.started', { mode: conversation.mode }, at)] };
  }

  /** Stores a new, empty conversation with its first event. */
  async start(chatbot: ChatbotRecord, extra: Partial<ConversationRecord>): Promise<ConversationRecord> {
    const { conversation, started } = this.draft(chatbot, extra);
    await this.store.transaction(async (s) => {
      await s.conversations.insert(conversation);
      await s.conversations.events.insert(started);
    });
    this.committed(conversation, started);
    return conversation;
  }

  /**
   * Applies `event` (or none) to the conversation's current condition and commits `write`'s
   * changes with the conversation's new condition and events, all or nothing. On a
   * concurrent change the whole step is evaluated again on the newer condition.
   */
  async change<T>(
    conversation: ConversationRecord,
    e: ConversationEvent | null,
    write: (ctx: ChangeContext) => Promise<T>,
    options: ChangeOptions = {},
  ): Promise<{ result: T; next: ConversationRecord; aiAnswers: boolean }> {
    const { opening, chatbot } = options;
    let current = conversation;
    for (let attempt = 0; attempt < MAX_CHANGE_ATTEMPTS; attempt++) {
      // A conversation this change opens is not stored before it commits: nothing newer to read.
      if (attempt > 0 && !opening) {
        const fresh = await this.store.conversations.get(conversation.id);
        if (!fresh) throw notFound('Conversation');
        current = fresh;
      }
      const t = e
        ? transition(stateOf(current), e)
        : { ok: true as const, next: stateOf(current), effects: [] as Effect[], aiAnswers: false };
      if (!t.ok) {
        throw t.code === 'CONVERSATION_CLOSED'
          ? new AppError('CONVERSATION_CLOSED', 'This conversation is resolved', {
              hint: 'Reopen it first: PATCH the conversation with {"status":"OPEN"}',
            })
          : new AppError('HUMAN_TAKEOVER', 'A team member has taken this conversation over', {
              hint: 'The team is already handling it; hand it back with switch-to-ai to escalate later',
            });
      }
      const at = nowIso();
      try {
        const out = await this.store.transaction(
          async (s) => {
            // An opened conversation's first events go in with the change's own: one insert.
            if (opening) await s.conversations.insert(opening.conversation);
            const events: ConversationEventRecord[] = [];
            let seq = current.seq;
            const ctx: ChangeContext = {
              s,
              current,
              next: t.next,
              aiAnswers: t.aiAnswers,
              at,
              emit: (type, payload) => {
                events.push(event(current, ++seq, type, payload, at));
                return seq;
              },
              patch: {},
              added: [],
              metered: null,
            };
            for (const effect of t.effects)
              ctx.emit(EFFECT_EVENT[effect], {
                mode: t.next.mode,
                escalated: t.next.escalated,
                agentId: t.next.agentId,
              });
            // A take-over, escalation or resolve silences the AI on what it was asked before: answers
            // still owed (one being written, or one a killed process left) are owed no more, so a
            // hand-back cannot bring a stale answer after the team's replies.
            if (t.effects.some((x) => x === 'taken_over' || x === 'escalated' || x === 'resolved'))
              await s.conversations.owed.settleConversation(current.id);
            const result = await write(ctx);
            if (seq === current.seq) {
              if (opening) await s.conversations.events.insert(opening.started);
              return { result, next: current, events: null, added: ctx.added, metered: ctx.metered };
            }
            const patch: Partial<ConversationRecord> = {
              ...ctx.patch,
              status: t.next.status,
              mode: t.next.mode,
              escalated: t.next.escalated,
              agentId: t.next.agentId,
              updatedAt: at,
              ...(t.effects.includes('resolved') && { endedAt: at }),
              ...(t.effects.includes('reopened') && { endedAt: null }),
            };
            if (!(await s.conversations.cas(current.id, current.seq, seq, patch))) throw new Conflict();
            await s.conversations.events.insert(opening ? [...opening.started, ...events] : events);
            const next = { ...current, ...patch, seq };
            await this.hooks.onEvents?.(s, next, events, chatbot);
            return { result, next, events, added: ctx.added, metered: ctx.metered };
          },
          { group: true },
        );
        if (out.metered) this.meter.add(out.metered.accountId, out.metered.messages);
        if (out.events) this.committed(out.next, opening ? [...opening.started, ...out.events] : out.events, out.added);
        return { result: out.result, next: out.next, aiAnswers: t.aiAnswers };
      } catch (err) {
        if (err instanceof Conflict) continue;
        throw err;
      }
    }
    throw new Error('conversation changed too often concurrently');
  }

  /**
   * Adds a message within a change: numbered by the change's sequence, counted on the conversation
   * and (after the commit) the account's meter. `visitor`: the chat user's name as the caller just
   * read it (with the conversation), used when the conversation is still theirs.
   */
  async addMessage(
    ctx: ChangeContext,
    chatbot: ChatbotRecord,
    m: Partial<MessageRecord> & Pick<MessageRecord, 'author' | 'text'>,
    visitor?: VisitorName,
  ): Promise<MessageRecord> {
    const message = newMessage({
      id: newId(),
      conversationId: ctx.current.id,
      chatbotId: chatbot.id,
      seq: 0,
      createdAt: ctx.at,
      updatedAt: ctx.at,
      ...m,
    });
    message.meta = { ...message.meta, name: await authorName(ctx, chatbot, message, visitor) };
    message.seq = ctx.emit('message.added', { messageId: message.id, author: message.author });
    await ctx.s.conversations.messages.insert(message);
    ctx.added.push(message);
    ctx.patch.messageCount = ctx.current.messageCount + 1;
    ctx.patch.lastMessageAt = ctx.at;
    ctx.metered = { accountId: chatbot.accountId, messages: (ctx.metered?.messages ?? 0) + 1 };
    return message;
  }
}

/** The display name of a message's author at the time it is written. */
async function authorName(
  ctx: ChangeContext,
  chatbot: ChatbotRecord,
  m: Pick<MessageRecord, 'author' | 'agentName'>,
  visitor?: VisitorName,
): Promise<string | null> {
  if (m.author === 'agent') return m.agentName;
  if (m.author === 'ai') {
    const localized = (chatbot.settings.localization as { chatMessage?: { botName?: string | null } } | null)
      ?.chatMessage?.botName;
    return localized || chatbot.title;
  }
  if (m.author === 'visitor' && visitor && visitor.chatUserId === ctx.current.chatUserId) return visitor.name;
  if (m.author === 'visitor' && ctx.current.chatUserId)
    return (await ctx.s.conversations.chatUsers.get(ctx.current.chatUserId))?.name ?? null;
  return null;
}
