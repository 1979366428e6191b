/**
 * Conversations: starting them, visitor messages and AI answers, team replies, escalation,
 * take-over and hand-back, resolving, tags, feedback. Every change runs `transition()` on the
 * current condition and commits with a compare-and-set on the conversation's sequence number,
 * together with the events it emits (one per change, numbered by that sequence) in the same
 * transaction; when another change came first, the change is evaluated again on the newer
 * condition. The realtime gateway and the webhook outbox read those events.
 *
 * Delivery guarantees:
 * - A visitor message may carry the client's own id (`clientMessageId`: the REST
 *   `Idempotency-Key` header, the widget's `clientId`), unique per chatbot. A resend with the same
 *   id stores nothing and triggers no answer: it returns the message stored the first time and
 *   its answer when there is one (`replayed: true`). Callers acting for visitors (the gateway)
 *   prefix the client's id with the visitor's id, so one visitor's ids never meet another's.
 * - An answer owed is an answer given: the message and an `answers_owed` row are stored in one
 *   transaction; the answer and the row's removal in another (only the caller that removes the
 *   row stores an answer, so it is stored once). While it is being written a heartbeat extends
 *   the row's lease; a row whose lease ran out (the process died) is claimed by `answerOwed()`,
 *   run periodically by every instance, and answered, or given the locale's "assistant
 *   unavailable" reply after MAX_ANSWER_ATTEMPTS claims. A take-over, escalation or resolve
 *   removes the conversation's owed rows with its change: the AI never answers late what the
 *   team has taken on, even after a hand-back.
 * - A new conversation is stored with the visitor message that opens it, never empty.
 */
import { type ChatUser, LAST_MESSAGE_PREVIEW, type MessageSource, type Thread, type ThreadMessage } from '../../../shared/conversations.js';
import type { AuthContext } from '../auth.js';
import { currentPeriod, METERS } from '../billing.service.js';
import type { ChatbotsService } from '../chatbots.service.js';
import type { CursorCodec } from '../cursor.js';
import { AppError, confirmationRequired, notFound, validationFailed } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { messagesFor } from '../answers/messages.js';
import { freeFormErrors } from '../free-form.js';
import { requireFeature } from '../plans.js';
import { keepMaskedSecret, maskSecret } from '../secret-settings.js';
import type { ChatbotRecord, Store } from '../ports.js';
import type {
  Answer,
  AnswerEngine,
  ChatUserRecord,
  ConversationEventRecord,
  ConversationEventType,
  ConversationFilter,
  ConversationRecord,
  MessageRecord,
  OwedAnswer,
} from './ports.js';
import { DuplicateClientId } from './ports.js';
import { type ConversationEvent, type ConversationState, type Effect, transition } from './state.js';

export interface VisitorDetails {
  email?: string | null;
  name?: string | null;
  phone?: string | null;
  customFields?: Record<string, unknown>;
}

/** Hooks into the leads and knowledge-gap resources, run inside the change's transaction. */
export interface ConversationHooks {
  captureLead?(store: Store, lead: { chatbotId: string; conversationId: string; chatUserId: string; name: string | null; email: string | null; phone: string | null; customFields: Record<string, unknown>; source: string }): Promise<{ id: string }>;
  recordGap?(store: Store, gap: { chatbotId: string; conversationId: string; messageId: string; question: string }): Promise<void>;
  /** Sees every change's events in its transaction (the webhook outbox writes its rows here). */
  onEvents?(store: Store, conversation: ConversationRecord, events: ConversationEventRecord[]): Promise<unknown>;
  /** Refuses a thread-level webhook URL that is not HTTPS or points inside. */
  checkWebhookUrl?(fields: { webhookUrl?: string | null }): Promise<void>;
  /** A lead was captured, in its transaction (queues the owner's notice with it). */
  leadCaptured?(store: Store, chatbotId: string, leadId: string): Promise<void>;
}

const EFFECT_EVENT: Record<Effect, ConversationEventType> = {
  escalated: 'conversation.escalated',
  taken_over: 'conversation.taken_over',
  released: 'conversation.released',
  resolved: 'conversation.resolved',
  reopened: 'conversation.reopened',
};

class Conflict extends Error {}

const noop = () => {};

/**
 * Hears every committed change: the conversation as it now is, the events the change appended
 * and the messages it added, exactly as stored (the realtime gateway sends them without reading
 * them back).
 */
export type CommitListener = (conversation: ConversationRecord, events: ConversationEventRecord[], added: MessageRecord[]) => void;

/** How a visitor message is answered (the realtime gateway streams and caps answers). */
export interface AnswerOptions {
  onToken?: (t: string) => void;
  /** The id the stored answer gets, known before it is generated (streamed deltas carry it). */
  answerId?: string;
  /** Reserves an answer slot; null when the chatbot is at its cap: the `busy` text is stored instead. */
  reserve?: () => (() => void) | null | Promise<(() => void) | null>;
  busy?: string;
  /** Called once the visitor's message is stored (or found stored under its client id), before any answer. */
  onStored?: (message: ThreadMessage) => void;
}

/**
 * Attempts of one change against concurrent changes of the same conversation. Every conflict
 * means another change committed (progress, never a livelock); the changes of one SQLite group
 * commit were all evaluated on the same condition, so of N at once one commits per batch and the
 * last needs N attempts: a visitor's burst (a dozen messages queued offline, sent on `ready`)
 * failed its ninth message with 8.
 */
const MAX_CHANGE_ATTEMPTS = 64;

/** Claims of an owed answer after which the visitor gets the unavailable reply instead. */
const MAX_ANSWER_ATTEMPTS = 3;

export interface ConversationsOptions {
  /** How long an owed answer's claim lasts without a heartbeat (ANSWER_LEASE_MS). */
  answerLeaseMs?: number;
  onError?: (err: unknown, context: Record<string, unknown>) => void;
  /** Hears each stored AI answer (the operator's log line). */
  onAnswered?: (answer: AnsweredInfo) => void;
}

/** What one stored answer was: who wrote it, from how many sources, whether it had the answer. */
export interface AnsweredInfo {
  chatbotId: string;
  conversationId: string;
  messageId: string;
  /** `built-in`, `openai`, `custom-response`, or `unavailable` / `busy` when no answerer could write it. */
  provider: string;
  model: string | null;
  sources: number;
  /** The answerer found nothing to answer with (a knowledge gap). */
  unanswered: boolean;
  ms: number;
}

export interface VisitorMessageResult {
  message: ThreadMessage;
  answer: ThreadMessage | null;
  /** True when the client id was seen before: nothing was stored, this is the first result. */
  replayed: boolean;
}

interface ChangeContext {
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
}

const stateOf = (c: ConversationRecord): ConversationState => ({ status: c.status, mode: c.mode, escalated: c.escalated, agentId: c.agentId });

export const messageView = (m: MessageRecord): ThreadMessage => ({
  id: m.id,
  threadId: m.conversationId,
  author: m.author,
  name: typeof m.meta.name === 'string' ? m.meta.name : m.author === 'agent' ? m.agentName : null,
  text: m.text,
  sources: m.sources.map(
    (s): MessageSource => ({
      documentId: s.documentId,
      title: s.title,
      url: s.url,
      link: s.link,
      headingPath: s.location?.headingPath ?? [],
      ...(s.location?.page !== undefined && { page: s.location.page }),
      ...(s.location?.startSeconds !== undefined && { startSeconds: s.location.startSeconds }),
    }),
  ),
  followUps: (m.meta.followUps as ThreadMessage['followUps']) ?? [],
  agent: m.agentId ? { id: m.agentId, name: m.agentName ?? '' } : null,
  feedback: m.feedback,
  feedbackComment: m.feedbackComment,
  originalText: m.originalText,
  unanswered: m.meta.unanswered === true,
  seq: m.seq,
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
});

/** A message as a list shows it: its text's first characters (whole code points), `…` when cut. */
function preview(m: MessageRecord | undefined): Thread['lastMessage'] {
  if (!m) return null;
  const chars = [...m.text];
  const text = chars.length > LAST_MESSAGE_PREVIEW ? `${chars.slice(0, LAST_MESSAGE_PREVIEW - 1).join('').trimEnd()}…` : m.text;
  return { id: m.id, author: m.author, text, createdAt: m.createdAt };
}

const chatUserView = (u: ChatUserRecord): ChatUser => ({ id: u.id, email: u.email, name: u.name, phone: u.phone, verified: u.verified, createdAt: u.createdAt });

export class ConversationsService {
  private readonly listeners = new Set<CommitListener>();

  constructor(
    private readonly store: Store,
    private readonly chatbots: ChatbotsService,
    private readonly cursors: CursorCodec,
    private readonly answers: AnswerEngine,
    private readonly hooks: ConversationHooks = {},
    private readonly options: ConversationsOptions = {},
  ) {}

  private get leaseMs() {
    return this.options.answerLeaseMs ?? 30_000;
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
        this.options.onError?.(err, { conversationId: conversation.id });
      }
    }
  }

  // ---- starting ----------------------------------------------------------------------------

  /** `POST /chatbots/{id}/conversations`: a new, empty conversation. */
  async create(auth: AuthContext, chatbotId: string, input: { visitor?: VisitorDetails; tagIds?: string[]; webhookUrl?: string | null; webhookToken?: string | null } = {}) {
    checkVisitor(input.visitor);
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    if (input.webhookUrl || input.webhookToken) requireFeature(auth.account, 'webhooks');
    if (input.webhookUrl) await this.hooks.checkWebhookUrl?.({ webhookUrl: input.webhookUrl });
    const conversation = await this.open(chatbot, input.visitor, { webhookUrl: input.webhookUrl ?? null, webhookToken: input.webhookToken ?? null });
    if (input.tagIds?.length) await this.setTags(chatbot, conversation, input.tagIds);
    return this.view(conversation);
  }

  /** `POST /chatbots/{id}/messages`: a new conversation with the visitor's first message, and its answer. */
  async start(auth: AuthContext, chatbotId: string, input: { message: string; visitor?: VisitorDetails; clientMessageId?: string }, onToken?: (t: string) => void) {
    checkVisitor(input.visitor);
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const key = input.clientMessageId;
    const replay = async () => {
      const r = (await this.replay(chatbot, key!))!;
      return { conversation: await this.view((await this.store.conversations.get(r.message.threadId))!), ...r };
    };
    if (key && (await this.store.conversations.messages.byClientId(chatbot.id, key))) return replay();
    // Without visitor details the conversation is stored with its first message, all or nothing.
    const opening = input.visitor && hasDetails(input.visitor) ? undefined : this.draft(chatbot, {});
    const conversation = opening?.conversation ?? (await this.open(chatbot, input.visitor, {}));
    try {
      const result = await this.visitorMessage(chatbot, conversation, input.message, onToken, key, { opening });
      return { conversation: await this.view((await this.store.conversations.get(conversation.id))!), ...result };
    } catch (err) {
      if (!(err instanceof DuplicateClientId)) throw err;
      // A concurrent resend won: a conversation opened for this one stays empty, so it goes.
      if (!opening) await this.store.conversations.delete([conversation.id]);
      return replay();
    }
  }

  private async open(chatbot: ChatbotRecord, visitor: VisitorDetails | undefined, extra: Partial<ConversationRecord>): Promise<ConversationRecord> {
    const { conversation, started } = this.draft(chatbot, extra);
    await this.store.transaction(async (s) => {
      await s.conversations.insert(conversation);
      await s.conversations.events.insert(started);
    });
    this.committed(conversation, started);
    if (!visitor || !hasDetails(visitor)) return conversation;
    await this.identify(chatbot, conversation, visitor);
    return (await this.store.conversations.get(conversation.id))!;
  }

  /** A new conversation and its first event, not stored yet. */
  private draft(chatbot: ChatbotRecord, extra: Partial<ConversationRecord>): Opening {
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

  // ---- messages ----------------------------------------------------------------------------

  /**
   * `POST .../conversations/{threadId}/messages`: the visitor's message, and the AI's answer when
   * the condition lets it answer. With `clientMessageId`, a resend returns the first result.
   */
  async sendVisitorMessage(
    auth: AuthContext,
    chatbotId: string,
    threadId: string,
    input: { message: string; visitor?: VisitorDetails; clientMessageId?: string },
    onToken?: (t: string) => void,
  ): Promise<VisitorMessageResult> {
    checkVisitor(input.visitor);
    const { chatbot, conversation } = await this.reach(auth, chatbotId, threadId);
    const key = input.clientMessageId;
    const replay = async () => {
      const r = (await this.replay(chatbot, key!))!;
      if (r.message.threadId !== conversation.id) {
        throw validationFailed([{ path: ['clientMessageId'], message: 'was already used for a message of another conversation; use a new id for each message' }]);
      }
      return r;
    };
    if (key && (await this.store.conversations.messages.byClientId(chatbot.id, key))) return replay();
    let current = conversation;
    if (input.visitor && hasDetails(input.visitor)) {
      await this.identify(chatbot, conversation, input.visitor);
      current = (await this.store.conversations.get(conversation.id))!;
    }
    try {
      return await this.visitorMessage(chatbot, current, input.message, onToken, key);
    } catch (err) {
      if (err instanceof DuplicateClientId) return replay();
      throw err;
    }
  }

  /** The message stored under a client id, with its answer when one was stored. */
  private async replay(chatbot: ChatbotRecord, clientMessageId: string): Promise<VisitorMessageResult | null> {
    const message = await this.store.conversations.messages.byClientId(chatbot.id, clientMessageId);
    if (!message) return null;
    const after = await this.store.conversations.messages.page(message.conversationId, 50, message.seq);
    const answer = after.items.find((m) => m.author === 'ai' && m.meta.questionId === message.id) ?? null;
    return { message: messageView(message), answer: answer ? messageView(answer) : null, replayed: true };
  }

  /**
   * A visitor of the widget writes (the gateway has authenticated their session for this chatbot):
   * in `conversation`, or in a new one of theirs when it is null (`onConversation` hears which).
   * The client's id is kept per visitor: a resend stores nothing and answers nothing again.
   */
  async sendAsVisitor(
    chatbot: ChatbotRecord,
    chatUserId: string,
    conversation: ConversationRecord | null,
    text: string,
    options: AnswerOptions & { clientId: string; onConversation?: (c: ConversationRecord) => void },
  ): Promise<VisitorMessageResult> {
    const key = `${chatUserId}:${options.clientId}`;
    const replay = async () => {
      const r = (await this.replay(chatbot, key))!;
      if (conversation && r.message.threadId !== conversation.id) {
        throw validationFailed([{ path: ['clientId'], message: 'was already used for a message of another conversation; use a new id for each message' }]);
      }
      options.onConversation?.((await this.store.conversations.get(r.message.threadId))!);
      options.onStored?.(r.message);
      return r;
    };
    const stored = () => this.store.conversations.messages.byClientId(chatbot.id, key);
    // A resend that would start a conversation is found before one is opened for it. Into a
    // conversation it has, a visitor's message is written without that read: the client id's
    // unique index refuses a resend inside the write (DuplicateClientId), which stores nothing.
    if (!conversation && (await stored())) return replay();
    // A new conversation is stored with its first message, all or nothing: never one left empty.
    const opening = conversation ? undefined : this.draft(chatbot, { chatUserId });
    const target = conversation ?? opening!.conversation;
    options.onConversation?.(target);
    try {
      return await this.visitorMessage(chatbot, target, text, options.onToken, key, { ...options, meta: { clientId: options.clientId }, opening });
    } catch (err) {
      // A concurrent resend won (nothing of this one was stored, a conversation it opened neither).
      if (err instanceof DuplicateClientId) return replay();
      // Refused by the conversation's condition (resolved since): a resend of a message stored before still gets its ack.
      if (conversation && err instanceof AppError && (await stored())) return replay();
      throw err;
    }
  }

  /** The visitor asks for a person (the rules of the v2 escalate). */
  async escalateAsVisitor(conversation: ConversationRecord): Promise<ConversationRecord> {
    return (await this.change(conversation, { type: 'escalate' }, async () => undefined)).next;
  }

  /** The visitor rates an answer of the AI. */
  async feedbackAsVisitor(conversation: ConversationRecord, messageId: string, feedback: 'up' | 'down' | null, comment: string | null) {
    const message = await this.store.conversations.messages.get(conversation.id, messageId);
    if (!message) throw notFound('Message');
    if (message.author !== 'ai') throw validationFailed([{ path: ['messageId'], message: 'only answers of the AI take feedback' }]);
    const { result } = await this.change(conversation, null, async (ctx) => {
      const patch: Partial<MessageRecord> = { updatedAt: ctx.at, feedback, feedbackComment: comment };
      await ctx.s.conversations.messages.update(message.id, patch);
      ctx.emit('message.updated', { messageId: message.id, feedback });
      return { ...message, ...patch };
    });
    return messageView(result);
  }

  private async visitorMessage(
    chatbot: ChatbotRecord,
    conversation: ConversationRecord,
    text: string,
    onToken?: (t: string) => void,
    clientMessageId?: string,
    options: AnswerOptions & { meta?: Record<string, unknown>; opening?: Opening } = {},
  ): Promise<VisitorMessageResult> {
    let owed = false;
    const out = await this.change(conversation, { type: 'visitor_message' }, async (ctx) => {
      const m = await this.addMessage(ctx, chatbot, { author: 'visitor', text, clientMessageId: clientMessageId ?? null, ...(options.meta && { meta: options.meta }) });
      owed = ctx.aiAnswers && chatbot.settings.mode !== 'HUMAN_ONLY';
      if (owed) {
        await ctx.s.conversations.owed.insert({ messageId: m.id, conversationId: m.conversationId, chatbotId: chatbot.id, leaseUntil: this.leaseFrom(Date.now()), attempts: 0, createdAt: ctx.at });
      }
      return m;
    }, options.opening);
    const message = out.result;
    options.onStored?.(messageView(message));
    let answer: MessageRecord | null = null;
    if (owed) {
      const release = options.reserve ? await options.reserve() : noop;
      try {
        // At the chatbot's cap of concurrent answers the visitor is told so rather than queued.
        answer = await this.answer(chatbot, conversation.id, message, onToken, false, { answerId: options.answerId, ...(!release && { busy: options.busy ?? messagesFor(localeOf(chatbot.settings)).unavailable }) });
      } finally {
        release?.();
      }
    }
    return { message: messageView(message), answer: answer ? messageView(answer) : null, replayed: false };
  }

  private leaseFrom(ms: number) {
    return new Date(ms + this.leaseMs).toISOString();
  }

  /**
   * Answers owed whose writer died (lease ended): claims each with a compare-and-set on its lease,
   * so among instances running this at once one writes it. Returns how many it claimed.
   */
  async answerOwed(limit = 20): Promise<number> {
    const due = await this.store.conversations.owed.expired(nowIso(), limit);
    let claimed = 0;
    for (const row of due) {
      if (!(await this.store.conversations.owed.claim(row.messageId, row.leaseUntil, this.leaseFrom(Date.now())))) continue;
      claimed++;
      try {
        await this.answerClaimed(row);
      } catch (err) {
        this.options.onError?.(err, { messageId: row.messageId, conversationId: row.conversationId });
      }
    }
    return claimed;
  }

  private async answerClaimed(row: OwedAnswer) {
    const chatbot = await this.store.chatbots.get(row.chatbotId);
    const question = chatbot ? await this.store.conversations.messages.get(row.conversationId, row.messageId) : null;
    if (!chatbot || !question) {
      await this.store.conversations.owed.settle(row.messageId);
      return;
    }
    // This claim is attempt `attempts + 1`: past the limit the answer keeps failing, so the visitor hears so.
    await this.answer(chatbot, row.conversationId, question, undefined, row.attempts + 1 > MAX_ANSWER_ATTEMPTS);
  }

  /**
   * Generates the answer outside any transaction (the owed row's lease kept alive meanwhile), then
   * stores it with the owed row's removal, only if the AI may still answer and no one else did.
   * An engine failure (or `giveUp`) stores the locale's "assistant unavailable" reply instead.
   */
  private async answer(
    chatbot: ChatbotRecord,
    conversationId: string,
    question: MessageRecord,
    onToken?: (t: string) => void,
    giveUp = false,
    options: { answerId?: string; busy?: string } = {},
  ): Promise<MessageRecord | null> {
    let result: Answer;
    const began = performance.now();
    const heartbeat = setInterval(() => {
      void this.store.conversations.owed.extend([question.id], this.leaseFrom(Date.now())).catch(() => undefined);
    }, Math.max(50, Math.floor(this.leaseMs / 3)));
    try {
      if (giveUp) throw new Error('the answer failed too many times');
      if (options.busy !== undefined) throw new Busy();
      const historyCount = Number(chatbot.settings.historyCount ?? 10);
      const history = (await this.store.conversations.messages.last(conversationId, historyCount + 1)).filter((m) => m.seq < question.seq).slice(-historyCount);
      result = await this.answers.answer({
        chatbotId: chatbot.id,
        accountId: chatbot.accountId,
        conversationId,
        settings: chatbot.settings,
        question: question.text,
        history: history.map((m) => ({ author: m.author, text: m.text })),
        onToken,
      });
    } catch (err) {
      // The engine turns provider failures into its own reply; anything else (storage, retrieval) ends here.
      const busy = err instanceof Busy;
      if (!giveUp && !busy) this.options.onError?.(err, { conversationId, messageId: question.id });
      const text = busy ? options.busy! : messagesFor(localeOf(chatbot.settings)).unavailable;
      onToken?.(text);
      result = { text, sources: [], followUps: [], unanswered: false, customResponseId: null, provider: busy ? 'busy' : 'unavailable', model: null };
    } finally {
      clearInterval(heartbeat);
    }
    const conversation = await this.store.conversations.get(conversationId);
    if (!conversation) return null;
    try {
      const { result: saved } = await this.change(conversation, null, async (ctx) => {
        // The newer condition wins: a take-over, escalation or resolve that came first silences the AI.
        const s = ctx.current;
        if (s.status !== 'OPEN' || s.mode !== 'AI' || s.escalated) throw new Discard();
        // Whoever removes the owed row stores the answer; a second writer (a claim after a lost lease) stores nothing.
        if (!(await ctx.s.conversations.owed.settle(question.id))) throw new Discard();
        const m = await this.addMessage(ctx, chatbot, {
          ...(options.answerId && { id: options.answerId }),
          author: 'ai',
          text: result.text,
          sources: result.sources,
          meta: { followUps: result.followUps, unanswered: result.unanswered, customResponseId: result.customResponseId, provider: result.provider, model: result.model, questionId: question.id },
        });
        if (result.unanswered && this.hooks.recordGap) {
          await this.hooks.recordGap(ctx.s, { chatbotId: chatbot.id, conversationId, messageId: m.id, question: question.text });
        }
        return m;
      });
      this.options.onAnswered?.({
        chatbotId: chatbot.id, conversationId, messageId: saved.id, provider: result.provider, model: result.model,
        sources: result.sources.length, unanswered: result.unanswered, ms: Math.round(performance.now() - began),
      });
      return saved;
    } catch (err) {
      if (!(err instanceof Discard)) throw err;
      // Silenced by the condition: nothing is owed any more.
      await this.store.conversations.owed.settle(question.id);
      return null;
    }
  }

  /** `POST .../replies`: a reply to the visitor as the team; the agent is the token's user. */
  async reply(auth: AuthContext, chatbotId: string, threadId: string, input: { message: string }) {
    const { chatbot, conversation } = await this.reach(auth, chatbotId, threadId);
    const { result, next } = await this.change(conversation, { type: 'agent_reply', agentId: auth.user.id }, (ctx) =>
      this.addMessage(ctx, chatbot, { author: 'agent', text: input.message, agentId: auth.user.id, agentName: auth.user.name ?? auth.user.email }),
    );
    return { message: messageView(result), conversation: await this.view(next) };
  }

  async messages(auth: AuthContext, chatbotId: string, threadId: string, limit: number, cursor?: string) {
    const { conversation } = await this.reach(auth, chatbotId, threadId);
    const list = `messages:${conversation.id}`;
    const after = this.cursors.decode(list, cursor);
    const page = await this.store.conversations.messages.page(conversation.id, limit, after ? Number(after.id) : null);
    const last = page.items.at(-1);
    const nextCursor = page.more && last ? this.cursors.encode(list, { createdAt: last.createdAt, id: String(last.seq) }) : null;
    return { messages: page.items.map(messageView), nextCursor };
  }

  /** Feedback on an answer, or a team member's correction of it (the AI's text is kept). */
  async patchMessage(auth: AuthContext, chatbotId: string, threadId: string, messageId: string, input: { feedback?: 'up' | 'down' | null; feedbackComment?: string | null; text?: string }) {
    const { conversation } = await this.reach(auth, chatbotId, threadId);
    const message = await this.store.conversations.messages.get(conversation.id, messageId);
    if (!message) throw notFound('Message');
    if (message.author !== 'ai' && (input.feedback !== undefined || input.text !== undefined)) {
      throw validationFailed([{ path: [input.text !== undefined ? 'text' : 'feedback'], message: 'only answers of the AI take feedback or corrections' }]);
    }
    const { result } = await this.change(conversation, null, async (ctx) => {
      const patch: Partial<MessageRecord> = { updatedAt: ctx.at };
      if (input.feedback !== undefined) patch.feedback = input.feedback;
      if (input.feedbackComment !== undefined) patch.feedbackComment = input.feedbackComment;
      if (input.text !== undefined && input.text !== message.text) {
        patch.text = input.text;
        patch.originalText = message.originalText ?? message.text;
      }
      await ctx.s.conversations.messages.update(message.id, patch);
      ctx.emit('message.updated', { messageId: message.id, feedback: patch.feedback, corrected: patch.text !== undefined });
      return { ...message, ...patch };
    });
    return { message: messageView(result) };
  }

  /** Legacy v0 `PATCH .../messages/{messageId}`: the same change, the thread found from the message. */
  async patchMessageById(auth: AuthContext, chatbotId: string, messageId: string, input: Parameters<ConversationsService['patchMessage']>[4]) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const threadId = await this.store.conversations.messages.conversationOf(chatbot.id, messageId);
    if (!threadId) throw notFound('Message');
    return this.patchMessage(auth, chatbotId, threadId, messageId, input);
  }

  // ---- condition changes -------------------------------------------------------------------

  escalate = (auth: AuthContext, chatbotId: string, threadId: string) => this.simple(auth, chatbotId, threadId, { type: 'escalate' });
  takeOver = (auth: AuthContext, chatbotId: string, threadId: string) => this.simple(auth, chatbotId, threadId, { type: 'take_over', agentId: auth.user.id });
  switchToAi = (auth: AuthContext, chatbotId: string, threadId: string) => this.simple(auth, chatbotId, threadId, { type: 'switch_to_ai' });

  private async simple(auth: AuthContext, chatbotId: string, threadId: string, e: ConversationEvent) {
    const { conversation } = await this.reach(auth, chatbotId, threadId);
    const { next } = await this.change(conversation, e, async () => undefined);
    return { conversation: await this.view(next) };
  }

  /** `PATCH .../conversations/{threadId}`: status (resolve/reopen), tags, the thread-level webhook pair, visitor details, read count. */
  async patch(auth: AuthContext, chatbotId: string, threadId: string, input: { status?: 'OPEN' | 'RESOLVED'; tagIds?: string[]; webhookUrl?: string | null; webhookToken?: string | null; visitor?: VisitorDetails; totalMessagesRead?: number }) {
    checkVisitor(input.visitor);
    const { chatbot, conversation } = await this.reach(auth, chatbotId, threadId);
    if (input.webhookUrl || input.webhookToken) requireFeature(auth.account, 'webhooks');
    if (input.webhookUrl) await this.hooks.checkWebhookUrl?.({ webhookUrl: input.webhookUrl });
    if (input.tagIds) await this.setTags(chatbot, conversation, input.tagIds);
    if (input.visitor && hasDetails(input.visitor)) await this.identify(chatbot, conversation, input.visitor);
    const fields: Partial<ConversationRecord> = {};
    if (input.webhookUrl !== undefined) fields.webhookUrl = input.webhookUrl;
    if (input.webhookToken !== undefined) fields.webhookToken = keepMaskedSecret('webhookToken', input.webhookToken, conversation.webhookToken) as string | null;
    if (input.totalMessagesRead !== undefined) fields.totalMessagesRead = input.totalMessagesRead;
    const e: ConversationEvent | null = input.status === 'RESOLVED' ? { type: 'resolve' } : input.status === 'OPEN' ? { type: 'reopen' } : null;
    const fresh = (await this.store.conversations.get(conversation.id))!;
    if (e || Object.keys(fields).length) {
      const { next } = await this.change(fresh, e, async (ctx) => {
        Object.assign(ctx.patch, fields);
        if (Object.keys(fields).length) ctx.emit('conversation.updated', { fields: Object.keys(fields) });
      });
      return { conversation: await this.view(next) };
    }
    return { conversation: await this.view(fresh) };
  }

  async bulk(auth: AuthContext, chatbotId: string, input: { action: 'resolve' | 'reopen' | 'tag' | 'untag' | 'delete'; threadIds: string[]; tagIds?: string[]; confirm?: boolean }) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    if (input.action === 'delete' && input.confirm !== true) throw confirmationRequired('Send "confirm": true in the body to delete these conversations');
    if ((input.action === 'tag' || input.action === 'untag') && !input.tagIds?.length) throw validationFailed([{ path: ['tagIds'], message: `is required for ${input.action}` }]);
    const results: { threadId: string; ok: boolean; error?: { code: string; message: string } }[] = [];
    const deletable: string[] = [];
    for (const threadId of [...new Set(input.threadIds)]) {
      const conversation = await this.store.conversations.get(threadId);
      if (!conversation || conversation.chatbotId !== chatbot.id) {
        results.push({ threadId, ok: false, error: { code: 'NOT_FOUND', message: 'Conversation not found' } });
        continue;
      }
      try {
        if (input.action === 'delete') deletable.push(threadId);
        else if (input.action === 'resolve' || input.action === 'reopen') await this.change(conversation, { type: input.action }, async () => undefined);
        else {
          const current = (await this.store.conversations.tags([threadId])).get(threadId)!.map((t) => t.id);
          const tagIds = input.action === 'tag' ? [...new Set([...current, ...input.tagIds!])] : current.filter((id) => !input.tagIds!.includes(id));
          await this.setTags(chatbot, conversation, tagIds);
        }
        results.push({ threadId, ok: true });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        results.push({ threadId, ok: false, error: { code: err.code, message: err.message } });
      }
    }
    if (deletable.length) await this.store.conversations.delete(deletable);
    return { action: input.action, results };
  }

  // ---- reading -----------------------------------------------------------------------------

  async list(auth: AuthContext, chatbotId: string, q: ConversationFilter & { limit: number; cursor?: string }) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const { limit, cursor, ...filter } = q;
    const list = `conversations:${JSON.stringify(filter)}`;
    const page = await this.store.conversations.page(chatbot.id, { limit, after: this.cursors.decode(list, cursor) }, filter);
    return { conversations: await this.views(page.items), nextCursor: this.cursors.encode(list, page.next) };
  }

  async get(auth: AuthContext, chatbotId: string, threadId: string) {
    const { conversation } = await this.reach(auth, chatbotId, threadId);
    return { conversation: await this.view(conversation) };
  }

  /** Events after `afterSeq` (resume), for the realtime gateway and the outbox. */
  events(conversationId: string, afterSeq: number, limit = 500) {
    return this.store.conversations.events.after(conversationId, afterSeq, limit);
  }

  // ---- helpers -----------------------------------------------------------------------------

  private async reach(auth: AuthContext, chatbotId: string, threadId: string) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const conversation = await this.store.conversations.get(threadId);
    if (!conversation || conversation.chatbotId !== chatbot.id) throw notFound('Conversation');
    return { chatbot, conversation };
  }

  /**
   * Applies `event` (or none) to the conversation's current condition and commits `write`'s
   * changes with the conversation's new condition and events, all or nothing. On a
   * concurrent change the whole step is evaluated again on the newer condition.
   */
  private async change<T>(conversation: ConversationRecord, e: ConversationEvent | null, write: (ctx: ChangeContext) => Promise<T>, opening?: Opening): Promise<{ result: T; next: ConversationRecord; aiAnswers: boolean }> {
    let current = conversation;
    for (let attempt = 0; attempt < MAX_CHANGE_ATTEMPTS; attempt++) {
      // A conversation this change opens is not stored before it commits: nothing newer to read.
      if (attempt > 0 && !opening) {
        const fresh = await this.store.conversations.get(conversation.id);
        if (!fresh) throw notFound('Conversation');
        current = fresh;
      }
      const t = e ? transition(stateOf(current), e) : { ok: true as const, next: stateOf(current), effects: [] as Effect[], aiAnswers: false };
      if (!t.ok) {
        throw t.code === 'CONVERSATION_CLOSED'
          ? new AppError('CONVERSATION_CLOSED', 'This conversation is resolved', { hint: 'Reopen it first: PATCH the conversation with {"status":"OPEN"}' })
          : new AppError('HUMAN_TAKEOVER', 'A team member has taken this conversation over', { hint: 'The team is already handling it; hand it back with switch-to-ai to escalate later' });
      }
      const at = nowIso();
      try {
        const out = await this.store.transaction(async (s) => {
          if (opening) {
            await s.conversations.insert(opening.conversation);
            await s.conversations.events.insert(opening.started);
          }
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
          };
          for (const effect of t.effects) ctx.emit(EFFECT_EVENT[effect], { mode: t.next.mode, escalated: t.next.escalated, agentId: t.next.agentId });
          // A take-over, escalation or resolve silences the AI on what it was asked before: answers
          // still owed (one being written, or one a killed process left) are owed no more, so a
          // hand-back cannot bring a stale answer after the team's replies.
          if (t.effects.some((x) => x === 'taken_over' || x === 'escalated' || x === 'resolved')) await s.conversations.owed.settleConversation(current.id);
          const result = await write(ctx);
          if (seq === current.seq) return { result, next: current, events: null, added: ctx.added };
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
          await s.conversations.events.insert(events);
          const next = { ...current, ...patch, seq };
          await this.hooks.onEvents?.(s, next, events);
          return { result, next, events, added: ctx.added };
        }, { group: true });
        if (out.events) this.committed(out.next, opening ? [...opening.started, ...out.events] : out.events, out.added);
        return { result: out.result, next: out.next, aiAnswers: t.aiAnswers };
      } catch (err) {
        if (err instanceof Conflict) continue;
        throw err;
      }
    }
    throw new Error('conversation changed too often concurrently');
  }

  private async addMessage(ctx: ChangeContext, chatbot: ChatbotRecord, m: Partial<MessageRecord> & Pick<MessageRecord, 'author' | 'text'>): Promise<MessageRecord> {
    const message: MessageRecord = {
      id: newId(),
      conversationId: ctx.current.id,
      chatbotId: chatbot.id,
      seq: 0,
      sources: [],
      agentId: null,
      agentName: null,
      feedback: null,
      feedbackComment: null,
      originalText: null,
      meta: {},
      clientMessageId: null,
      createdAt: ctx.at,
      updatedAt: ctx.at,
      ...m,
    };
    message.meta = { ...message.meta, name: await this.authorName(ctx, chatbot, message) };
    message.seq = ctx.emit('message.added', { messageId: message.id, author: message.author });
    await ctx.s.conversations.messages.insert(message);
    ctx.added.push(message);
    ctx.patch.messageCount = ctx.current.messageCount + 1;
    ctx.patch.lastMessageAt = ctx.at;
    await ctx.s.usage.add(chatbot.accountId, METERS.messages, currentPeriod().key, 1);
    return message;
  }

  /** The display name of a message's author at the time it is written. */
  private async authorName(ctx: ChangeContext, chatbot: ChatbotRecord, m: Pick<MessageRecord, 'author' | 'agentName'>): Promise<string | null> {
    if (m.author === 'agent') return m.agentName;
    if (m.author === 'ai') {
      const localized = (chatbot.settings.localization as { chatMessage?: { botName?: string | null } } | null)?.chatMessage?.botName;
      return localized || chatbot.title;
    }
    if (m.author === 'visitor' && ctx.current.chatUserId) return (await ctx.s.conversations.chatUsers.get(ctx.current.chatUserId))?.name ?? null;
    return null;
  }

  /**
   * Stores the visitor's contact details on the conversation's chat user and captures a lead
   * (`source` says where). A verified visitor's address stays: it is who they proved to be.
   * Details given with a conversation are a lead once they hold a way to reach the visitor (a
   * name alone only names them); `asLead`: a lead form the visitor submitted, a lead whatever it holds.
   */
  private async identify(chatbot: ChatbotRecord, conversation: ConversationRecord, v: VisitorDetails, source = 'conversation', asLead = false): Promise<{ leadId: string | null }> {
    const email = v.email?.trim().toLowerCase() || null;
    const clean = { email, name: v.name?.trim() || null, phone: v.phone?.trim() || null };
    const { result } = await this.change(conversation, null, async (ctx) => {
      const at = ctx.at;
      let userId = ctx.current.chatUserId;
      if (userId) {
        const user = await ctx.s.conversations.chatUsers.get(userId);
        const fields = Object.entries(clean).filter(([k, x]) => x !== null && !(k === 'email' && user?.verified));
        await ctx.s.conversations.chatUsers.update(userId, { ...Object.fromEntries(fields), updatedAt: at });
      } else {
        userId = newId();
        await ctx.s.conversations.chatUsers.insert({ id: userId, chatbotId: chatbot.id, ...clean, verified: false, metadata: {}, createdAt: at, updatedAt: at });
        ctx.patch.chatUserId = userId;
      }
      if (this.hooks.captureLead && (asLead || clean.email || clean.phone || (v.customFields && Object.keys(v.customFields).length))) {
        const lead = await this.hooks.captureLead(ctx.s, { chatbotId: chatbot.id, conversationId: conversation.id, chatUserId: userId, ...clean, customFields: v.customFields ?? {}, source });
        await this.hooks.leadCaptured?.(ctx.s, chatbot.id, lead.id);
        ctx.emit('lead.captured', { leadId: lead.id });
        return lead.id;
      }
      ctx.emit('conversation.updated', { fields: ['chatUser'] });
      return null;
    });
    return { leadId: result };
  }

  // ---- the visitor gateway (no token: the gateway has checked the visitor's session) -------

  /** The lead form a visitor submitted in a conversation of theirs (checked by the lead rules): a lead, whatever it holds. */
  async identifyVisitor(chatbotId: string, threadId: string, details: VisitorDetails, source = 'widget'): Promise<{ leadId: string | null }> {
    const conversation = await this.store.conversations.get(threadId);
    const chatbot = await this.store.chatbots.get(chatbotId);
    if (!conversation || !chatbot || conversation.chatbotId !== chatbot.id) throw notFound('Conversation');
    return this.identify(chatbot, conversation, details, source, true);
  }

  /**
   * A team member's answer posted into a conversation without changing its condition (it may be
   * resolved or with the AI): the answer to a knowledge gap it raised. `claim` runs in the same
   * transaction with the new message's id; when it returns false nothing is posted (null).
   */
  async postTeamAnswer(chatbotId: string, threadId: string, input: { text: string; agentId: string; agentName: string; meta?: Record<string, unknown> }, claim?: (s: Store, messageId: string) => Promise<boolean>): Promise<ThreadMessage | null> {
    const conversation = await this.store.conversations.get(threadId);
    const chatbot = await this.store.chatbots.get(chatbotId);
    if (!conversation || !chatbot || conversation.chatbotId !== chatbot.id) throw notFound('Conversation');
    try {
      const { result } = await this.change(conversation, null, async (ctx) => {
        const id = newId();
        if (claim && !(await claim(ctx.s, id))) throw new Discard();
        return this.addMessage(ctx, chatbot, { id, author: 'agent', text: input.text, agentId: input.agentId, agentName: input.agentName, meta: input.meta ?? {} });
      });
      return messageView(result);
    } catch (err) {
      if (err instanceof Discard) return null;
      throw err;
    }
  }

  private async setTags(chatbot: ChatbotRecord, conversation: ConversationRecord, tagIds: string[]) {
    const unique = [...new Set(tagIds)];
    const known = await this.store.conversations.knownTags(chatbot.id, unique);
    const unknown = unique.filter((id) => !known.includes(id));
    if (unknown.length) throw validationFailed(unknown.map((id) => ({ path: ['tagIds'], message: `no tag "${id}" on this chatbot` })));
    await this.change(conversation, null, async (ctx) => {
      await ctx.s.conversations.setTags(conversation.id, unique);
      ctx.emit('conversation.updated', { fields: ['tags'], tagIds: unique });
    });
  }

  private async views(list: ConversationRecord[]): Promise<Thread[]> {
    const tags = await this.store.conversations.tags(list.map((c) => c.id));
    const ids = list.flatMap((c) => (c.chatUserId ? [c.chatUserId] : []));
    const users = new Map((await this.store.conversations.chatUsers.many(ids)).map((u): [string, ChatUserRecord] => [u.id, u]));
    const latest = new Map((await this.store.conversations.messages.latest(list.map((c) => c.id))).map((m): [string, MessageRecord] => [m.conversationId, m]));
    return list.map((c) => {
      const user = c.chatUserId ? users.get(c.chatUserId) : null;
      return {
        threadId: c.id,
        chatbotId: c.chatbotId,
        chatUserId: c.chatUserId,
        chatUser: user ? chatUserView(user) : null,
        mode: c.mode,
        status: c.status,
        escalated: c.escalated,
        agentId: c.agentId,
        startedAt: c.createdAt,
        updatedAt: c.updatedAt,
        endedAt: c.endedAt,
        webhookUrl: c.webhookUrl,
        webhookToken: maskSecret(c.webhookToken),
        totalMessagesRead: c.totalMessagesRead,
        messageCount: c.messageCount,
        lastMessageAt: c.lastMessageAt,
        lastMessage: preview(latest.get(c.id)),
        tags: tags.get(c.id) ?? [],
        seq: c.seq,
      };
    });
  }

  private async view(c: ConversationRecord): Promise<Thread> {
    return (await this.views([c]))[0];
  }
}

class Discard extends Error {}
/** A conversation to store with the change that adds its first message. */
interface Opening {
  conversation: ConversationRecord;
  started: ConversationEventRecord[];
}
/** The chatbot is at its cap of concurrent answers. */
class Busy extends Error {}

function event(c: Pick<ConversationRecord, 'id' | 'chatbotId'>, seq: number, type: ConversationEventType, payload: Record<string, unknown>, at: string): ConversationEventRecord {
  return { id: newId(), conversationId: c.id, chatbotId: c.chatbotId, seq, type, payload, createdAt: at };
}

const localeOf = (settings: Record<string, unknown>) => (settings.localization as { locale?: string } | null)?.locale ?? null;

/** Free-form visitor fields within bounds, checked before anything is stored. */
function checkVisitor(v: VisitorDetails | undefined) {
  const bounds = freeFormErrors(v?.customFields, ['visitor', 'customFields']);
  if (bounds.length) throw validationFailed(bounds);
}

const hasDetails = (v: VisitorDetails) => !!(v.email || v.name || v.phone || (v.customFields && Object.keys(v.customFields).length));
