/**
 * The owed-answer pipeline. An answer owed is an answer given: the visitor's message and an
 * `answers_owed` row are stored in one transaction (`owe`); the answer and the row's removal in
 * another (only the caller that removes the row stores an answer, so it is stored once). While it
 * is being written a heartbeat extends the row's lease; a row whose lease ran out (the process
 * died) is claimed by `answerOwed()`, run periodically by every instance, and answered, or given
 * the locale's "assistant unavailable" reply after MAX_ANSWER_ATTEMPTS claims.
 */
import type { ThreadMessage } from '../../../shared/conversations.js';
import { messagesFor } from '../answers/messages.js';
import { nowIso } from '../ids.js';
import type { ChatbotRecord, Store } from '../ports.js';
import { type ChangeContext, type ChangeEngine, Discard } from './changes.js';
import type { ConversationHooks } from './hooks.js';
import type { Answer, AnswerEngine, MessageRecord, OwedAnswer } from './ports.js';

/** Claims of an owed answer after which the visitor gets the unavailable reply instead. */
const MAX_ANSWER_ATTEMPTS = 3;

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

export interface AnsweringOptions {
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
  /** It answered, saying it is not sure the knowledge covers the question. */
  unsure: boolean;
  ms: number;
}

/** The chatbot is at its cap of concurrent answers. */
class Busy extends Error {}

const localeOf = (settings: Record<string, unknown>) =>
  (settings.localization as { locale?: string } | null)?.locale ?? null;

export class Answering {
  constructor(
    private readonly store: Store,
    private readonly changes: ChangeEngine,
    private readonly answers: AnswerEngine,
    private readonly hooks: Pick<ConversationHooks, 'recordGap'> = {},
    private readonly options: AnsweringOptions = {},
  ) {}

  private get leaseMs() {
    return this.options.answerLeaseMs ?? 30_000;
  }

  private leaseFrom(ms: number) {
    return new Date(ms + this.leaseMs).toISOString();
  }

  /** Within the change that stores the visitor's message: the answer to it is owed, under a lease. */
  owe(ctx: ChangeContext, chatbot: ChatbotRecord, message: MessageRecord) {
    return ctx.s.conversations.owed.insert({
      messageId: message.id,
      conversationId: message.conversationId,
      chatbotId: chatbot.id,
      leaseUntil: this.leaseFrom(Date.now()),
      attempts: 0,
      createdAt: ctx.at,
    });
  }

  /**
   * Answers a message just stored with its owed row. At the chatbot's cap of concurrent answers
   * (`reserve` gives null) the visitor is told so (`busy`) rather than queued.
   */
  async answerNew(
    chatbot: ChatbotRecord,
    question: MessageRecord,
    onToken: ((t: string) => void) | undefined,
    options: Pick<AnswerOptions, 'answerId' | 'reserve' | 'busy'>,
  ): Promise<MessageRecord | null> {
    const release = options.reserve ? await options.reserve() : () => {};
    try {
      return await this.answer(chatbot, question.conversationId, question, onToken, false, {
        answerId: options.answerId,
        ...(!release && { busy: options.busy ?? messagesFor(localeOf(chatbot.settings)).unavailable }),
      });
    } finally {
      release?.();
    }
  }

  /**
   * Answers owed whose writer died (lease ended): claims each with a compare-and-set on its lease,
   * so among instances running this at once one writes it. Returns how many it claimed.
   */
  async answerOwed(limit = 20): Promise<number> {
    const due = await this.store.conversations.owed.expired(nowIso(), limit);
    let claimed = 0;
    for (const row of due) {
      if (!(await this.store.conversations.owed.claim(row.messageId, row.leaseUntil, this.leaseFrom(Date.now()))))
        continue;
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
    const heartbeat = setInterval(
      () => {
        void this.store.conversations.owed.extend([question.id], this.leaseFrom(Date.now())).catch(() => undefined);
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    try {
      if (giveUp) throw new Error('the answer failed too many times');
      if (options.busy !== undefined) throw new Busy();
      const historyCount = Number(chatbot.settings.historyCount ?? 10);
      const history = (await this.store.conversations.messages.last(conversationId, historyCount + 1))
        .filter((m) => m.seq < question.seq)
        .slice(-historyCount);
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
      result = {
        text,
        sources: [],
        followUps: [],
        unanswered: false,
        customResponseId: null,
        provider: busy ? 'busy' : 'unavailable',
        model: null,
      };
    } finally {
      clearInterval(heartbeat);
    }
    const conversation = await this.store.conversations.get(conversationId);
    if (!conversation) return null;
    try {
      const { result: saved } = await this.changes.change(
        conversation,
        null,
        async (ctx) => {
          // The newer condition wins: a take-over, escalation or resolve that came first silences the AI.
          const s = ctx.current;
          if (s.status !== 'OPEN' || s.mode !== 'AI' || s.escalated) throw new Discard();
          // Whoever removes the owed row stores the answer; a second writer (a claim after a lost lease) stores nothing.
          if (!(await ctx.s.conversations.owed.settle(question.id))) throw new Discard();
          const m = await this.changes.addMessage(ctx, chatbot, {
            ...(options.answerId && { id: options.answerId }),
            author: 'ai',
            text: result.text,
            sources: result.sources,
            meta: {
              followUps: result.followUps,
              unanswered: result.unanswered,
              // Analytics count hedged answers apart from sure ones.
              unsure: result.unsure === true,
              customResponseId: result.customResponseId,
              provider: result.provider,
              model: result.model,
              questionId: question.id,
            },
          });
          if (result.unanswered && this.hooks.recordGap) {
            await this.hooks.recordGap(ctx.s, {
              chatbotId: chatbot.id,
              conversationId,
              messageId: m.id,
              question: question.text,
            });
          }
          return m;
        },
        { chatbot },
      );
      this.options.onAnswered?.({
        chatbotId: chatbot.id,
        conversationId,
        messageId: saved.id,
        provider: result.provider,
        model: result.model,
        sources: result.sources.length,
        unanswered: result.unanswered,
        unsure: result.unsure === true,
        ms: Math.round(performance.now() - began),
      });
      return saved;
    } catch (err) {
      if (!(err instanceof Discard)) throw err;
      // Silenced by the condition: nothing is owed any more.
      await this.store.conversations.owed.settle(question.id);
      return null;
    }
  }
}
