/**
 * Where a visitor's message goes: stored with the change that adds it (and, for a new
 * conversation, with the conversation itself: never one left empty), then answered through
 * `answering.ts` when the conversation's condition lets the AI answer. Also the visitor's other
 * acts in the widget: escalating, rating an answer, submitting the lead form.
 *
 * A visitor message may carry the client's own id (`clientMessageId`: the REST `Idempotency-Key`
 * header, the widget's `clientId`), unique per chatbot. A resend with the same id stores nothing
 * and triggers no answer: it returns the message stored the first time and its answer when there
 * is one (`replayed: true`). Callers acting for visitors (the gateway) prefix the client's id with
 * the visitor's id, so one visitor's ids never meet another's.
 */
import type { ThreadMessage } from '../../../shared/conversations.js';
import type { AuthContext } from '../auth.js';
import type { ChatbotsService } from '../chatbots.service.js';
import { AppError, notFound, validationFailed } from '../errors.js';
import type { ChatbotRecord, Store } from '../ports.js';
import { conversationOfChatbot, reachConversation } from './access.js';
import type { AnswerOptions, Answering } from './answering.js';
import type { ChangeEngine, Opening, VisitorName } from './changes.js';
import { type ConversationRecord, DuplicateClientId, type MessageRecord } from './ports.js';
import { checkVisitor, hasDetails, type VisitorDetails, type VisitorDetailsWriter } from './visitor-details.js';
import { messageView, threadView } from './views.js';

export interface VisitorMessageResult {
  message: ThreadMessage;
  answer: ThreadMessage | null;
  /** True when the client id was seen before: nothing was stored, this is the first result. */
  replayed: boolean;
}

export class VisitorMessages {
  constructor(
    private readonly store: Store,
    private readonly chatbots: ChatbotsService,
    private readonly changes: ChangeEngine,
    private readonly details: VisitorDetailsWriter,
    private readonly answering: Answering,
  ) {}

  /** `POST /chatbots/{id}/messages`: a new conversation with the visitor's first message, and its answer. */
  async start(
    auth: AuthContext,
    chatbotId: string,
    input: { message: string; visitor?: VisitorDetails; clientMessageId?: string },
    onToken?: (t: string) => void,
  ) {
    checkVisitor(input.visitor);
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const key = input.clientMessageId;
    const replay = async () => {
      const r = (await this.replay(chatbot, key!))!;
      return {
        conversation: await threadView(this.store, (await this.store.conversations.get(r.message.threadId))!),
        ...r,
      };
    };
    if (key && (await this.store.conversations.messages.byClientId(chatbot.id, key))) return replay();
    // Without visitor details the conversation is stored with its first message, all or nothing.
    const opening = input.visitor && hasDetails(input.visitor) ? undefined : this.changes.draft(chatbot, {});
    const conversation = opening?.conversation ?? (await this.details.open(chatbot, input.visitor, {}));
    try {
      const result = await this.visitorMessage(chatbot, conversation, input.message, onToken, key, { opening });
      return {
        conversation: await threadView(this.store, (await this.store.conversations.get(conversation.id))!),
        ...result,
      };
    } catch (err) {
      if (!(err instanceof DuplicateClientId)) throw err;
      // A concurrent resend won: a conversation opened for this one stays empty, so it goes.
      if (!opening) await this.store.conversations.delete([conversation.id]);
      return replay();
    }
  }

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
    const { chatbot, conversation } = await reachConversation(this.store, this.chatbots, auth, chatbotId, threadId);
    const key = input.clientMessageId;
    const replay = async () => {
      const r = (await this.replay(chatbot, key!))!;
      if (r.message.threadId !== conversation.id) {
        throw validationFailed([
          {
            path: ['clientMessageId'],
            message: 'was already used for a message of another conversation; use a new id for each message',
          },
        ]);
      }
      return r;
    };
    if (key && (await this.store.conversations.messages.byClientId(chatbot.id, key))) return replay();
    let current = conversation;
    if (input.visitor && hasDetails(input.visitor)) {
      await this.details.identify(chatbot, conversation, input.visitor);
      current = (await this.store.conversations.get(conversation.id))!;
    }
    try {
      return await this.visitorMessage(chatbot, current, input.message, onToken, key);
    } catch (err) {
      if (err instanceof DuplicateClientId) return replay();
      throw err;
    }
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
    options: AnswerOptions & {
      clientId: string;
      onConversation?: (c: ConversationRecord) => void;
      /** The visitor's name as read with `conversation` (ConversationReads.ownWithName). */
      visitorName?: string | null;
    },
  ): Promise<VisitorMessageResult> {
    const key = `${chatUserId}:${options.clientId}`;
    const replay = async () => {
      const r = (await this.replay(chatbot, key))!;
      if (conversation && r.message.threadId !== conversation.id) {
        throw validationFailed([
          {
            path: ['clientId'],
            message: 'was already used for a message of another conversation; use a new id for each message',
          },
        ]);
      }
      options.onConversation?.((await this.store.conversations.get(r.message.threadId))!);
      options.onStored?.(r.message);
      return r;
    };
    const stored = () => this.store.conversations.messages.byClientId(chatbot.id, key);
    // Written without reading the client id first: its unique index refuses a resend inside the
    // write (DuplicateClientId), which stores nothing, and a new conversation is stored with its
    // first message, all or nothing, so a resend that would start one opens none.
    const opening = conversation ? undefined : this.changes.draft(chatbot, { chatUserId });
    const target = conversation ?? opening!.conversation;
    options.onConversation?.(target);
    try {
      return await this.visitorMessage(chatbot, target, text, options.onToken, key, {
        ...options,
        meta: { clientId: options.clientId },
        opening,
        ...(options.visitorName !== undefined && { visitor: { chatUserId, name: options.visitorName } }),
      });
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
    return (await this.changes.change(conversation, { type: 'escalate' }, async () => undefined)).next;
  }

  /** The visitor rates an answer of the AI. */
  async feedbackAsVisitor(
    conversation: ConversationRecord,
    messageId: string,
    feedback: 'up' | 'down' | null,
    comment: string | null,
  ) {
    const message = await this.store.conversations.messages.get(conversation.id, messageId);
    if (!message) throw notFound('Message');
    if (message.author !== 'ai')
      throw validationFailed([{ path: ['messageId'], message: 'only answers of the AI take feedback' }]);
    const { result } = await this.changes.change(conversation, null, async (ctx) => {
      const patch: Partial<MessageRecord> = { updatedAt: ctx.at, feedback, feedbackComment: comment };
      await ctx.s.conversations.messages.update(message.id, patch);
      ctx.emit('message.updated', { messageId: message.id, feedback });
      return { ...message, ...patch };
    });
    return messageView(result);
  }

  /** The lead form a visitor submitted in a conversation of theirs (checked by the lead rules): a lead, whatever it holds. */
  async identifyVisitor(
    chatbotId: string,
    threadId: string,
    details: VisitorDetails,
    source = 'widget',
  ): Promise<{ leadId: string | null }> {
    const { chatbot, conversation } = await conversationOfChatbot(this.store, chatbotId, threadId);
    return this.details.identify(chatbot, conversation, details, source, true);
  }

  /** The message stored under a client id, with its answer when one was stored. */
  private async replay(chatbot: ChatbotRecord, clientMessageId: string): Promise<VisitorMessageResult | null> {
    const message = await this.store.conversations.messages.byClientId(chatbot.id, clientMessageId);
    if (!message) return null;
    const after = await this.store.conversations.messages.page(message.conversationId, 50, message.seq);
    const answer = after.items.find((m) => m.author === 'ai' && m.meta.questionId === message.id) ?? null;
    return { message: messageView(message), answer: answer ? messageView(answer) : null, replayed: true };
  }

  /** Stores the message (owing its answer when the AI answers it), then answers it. */
  private async visitorMessage(
    chatbot: ChatbotRecord,
    conversation: ConversationRecord,
    text: string,
    onToken?: (t: string) => void,
    clientMessageId?: string,
    options: AnswerOptions & { meta?: Record<string, unknown>; opening?: Opening; visitor?: VisitorName } = {},
  ): Promise<VisitorMessageResult> {
    let owed = false;
    // A resend's message is refused by the store (DuplicateClientId), nothing of the change stored.
    const out = await this.changes.change(
      conversation,
      { type: 'visitor_message' },
      async (ctx) => {
        const m = await this.changes.addMessage(
          ctx,
          chatbot,
          {
            author: 'visitor',
            text,
            clientMessageId: clientMessageId ?? null,
            ...(options.meta && { meta: options.meta }),
          },
          options.visitor,
        );
        owed = ctx.aiAnswers && chatbot.settings.mode !== 'HUMAN_ONLY';
        if (owed) await this.answering.owe(ctx, chatbot, m);
        return m;
      },
      { opening: options.opening, chatbot },
    );
    const message = out.result;
    options.onStored?.(messageView(message));
    const answer = owed ? await this.answering.answerNew(chatbot, message, onToken, options) : null;
    return { message: messageView(message), answer: answer ? messageView(answer) : null, replayed: false };
  }
}
