/**
 * What the team does to conversations through the REST API: list and read them, create one,
 * reply, take over, escalate, hand back, resolve and reopen, tag, correct or rate an answer, act
 * on many at once. Each checks the caller's reach, then commits through the change engine.
 */
import type { ThreadMessage } from '../../../shared/conversations.js';
import type { AuthContext } from '../auth.js';
import type { ChatbotsService } from '../chatbots.service.js';
import type { CursorCodec } from '../cursor.js';
import { AppError, confirmationRequired, notFound, validationFailed } from '../errors.js';
import { newId } from '../ids.js';
import { requireFeature } from '../plans.js';
import type { ChatbotRecord, Store } from '../ports.js';
import { keepMaskedSecret } from '../secret-settings.js';
import { conversationOfChatbot, reachConversation } from './access.js';
import { type ChangeEngine, Discard } from './changes.js';
import type { ConversationHooks } from './hooks.js';
import type { ConversationFilter, ConversationRecord, MessageRecord } from './ports.js';
import type { ConversationEvent } from './state.js';
import { checkVisitor, hasDetails, type VisitorDetails, type VisitorDetailsWriter } from './visitor-details.js';
import { messageView, threadView, threadViews } from './views.js';

export class TeamActions {
  constructor(
    private readonly store: Store,
    private readonly chatbots: ChatbotsService,
    private readonly cursors: CursorCodec,
    private readonly changes: ChangeEngine,
    private readonly details: VisitorDetailsWriter,
    private readonly hooks: Pick<ConversationHooks, 'checkWebhookUrl'> = {},
  ) {}

  // ---- reading -----------------------------------------------------------------------------

  async list(auth: AuthContext, chatbotId: string, q: ConversationFilter & { limit: number; cursor?: string }) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const { limit, cursor, ...filter } = q;
    const list = `conversations:${JSON.stringify(filter)}`;
    const page = await this.store.conversations.page(
      chatbot.id,
      { limit, after: this.cursors.decode(list, cursor) },
      filter,
    );
    return {
      conversations: await threadViews(this.store, page.items),
      nextCursor: this.cursors.encode(list, page.next),
    };
  }

  async get(auth: AuthContext, chatbotId: string, threadId: string) {
    const { conversation } = await this.reach(auth, chatbotId, threadId);
    return { conversation: await threadView(this.store, conversation) };
  }

  async messages(auth: AuthContext, chatbotId: string, threadId: string, limit: number, cursor?: string) {
    const { conversation } = await this.reach(auth, chatbotId, threadId);
    const list = `messages:${conversation.id}`;
    const after = this.cursors.decode(list, cursor);
    const page = await this.store.conversations.messages.page(conversation.id, limit, after ? Number(after.id) : null);
    const last = page.items.at(-1);
    const nextCursor =
      page.more && last ? this.cursors.encode(list, { createdAt: last.createdAt, id: String(last.seq) }) : null;
    return { messages: page.items.map(messageView), nextCursor };
  }

  // ---- writing -----------------------------------------------------------------------------

  /** `POST /chatbots/{id}/conversations`: a new, empty conversation. */
  async create(
    auth: AuthContext,
    chatbotId: string,
    input: {
      visitor?: VisitorDetails;
      tagIds?: string[];
      webhookUrl?: string | null;
      webhookToken?: string | null;
    } = {},
  ) {
    checkVisitor(input.visitor);
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    if (input.webhookUrl || input.webhookToken) requireFeature(auth.account, 'webhooks');
    if (input.webhookUrl) await this.hooks.checkWebhookUrl?.({ webhookUrl: input.webhookUrl });
    const conversation = await this.details.open(chatbot, input.visitor, {
      webhookUrl: input.webhookUrl ?? null,
      webhookToken: input.webhookToken ?? null,
    });
    if (input.tagIds?.length) await this.setTags(chatbot, conversation, input.tagIds);
    return threadView(this.store, conversation);
  }

  /** `POST .../replies`: a reply to the visitor as the team; the agent is the token's user. */
  async reply(auth: AuthContext, chatbotId: string, threadId: string, input: { message: string }) {
    const { chatbot, conversation } = await this.reach(auth, chatbotId, threadId);
    const { result, next } = await this.changes.change(
      conversation,
      { type: 'agent_reply', agentId: auth.user.id },
      (ctx) =>
        this.changes.addMessage(ctx, chatbot, {
          author: 'agent',
          text: input.message,
          agentId: auth.user.id,
          agentName: auth.user.name ?? auth.user.email,
        }),
    );
    return { message: messageView(result), conversation: await threadView(this.store, next) };
  }

  /**
   * A team member's answer posted into a conversation without changing its condition (it may be
   * resolved or with the AI): the answer to a knowledge gap it raised. `claim` runs in the same
   * transaction with the new message's id; when it returns false nothing is posted (null).
   */
  async postTeamAnswer(
    chatbotId: string,
    threadId: string,
    input: { text: string; agentId: string; agentName: string; meta?: Record<string, unknown> },
    claim?: (s: Store, messageId: string) => Promise<boolean>,
  ): Promise<ThreadMessage | null> {
    const { chatbot, conversation } = await conversationOfChatbot(this.store, chatbotId, threadId);
    try {
      const { result } = await this.changes.change(conversation, null, async (ctx) => {
        const id = newId();
        if (claim && !(await claim(ctx.s, id))) throw new Discard();
        return this.changes.addMessage(ctx, chatbot, {
          id,
          author: 'agent',
          text: input.text,
          agentId: input.agentId,
          agentName: input.agentName,
          meta: input.meta ?? {},
        });
      });
      return messageView(result);
    } catch (err) {
      if (err instanceof Discard) return null;
      throw err;
    }
  }

  /** Feedback on an answer, or a team member's correction of it (the AI's text is kept). */
  async patchMessage(
    auth: AuthContext,
    chatbotId: string,
    threadId: string,
    messageId: string,
    input: { feedback?: 'up' | 'down' | null; feedbackComment?: string | null; text?: string },
  ) {
    const { conversation } = await this.reach(auth, chatbotId, threadId);
    const message = await this.store.conversations.messages.get(conversation.id, messageId);
    if (!message) throw notFound('Message');
    if (message.author !== 'ai' && (input.feedback !== undefined || input.text !== undefined)) {
      throw validationFailed([
        {
          path: [input.text !== undefined ? 'text' : 'feedback'],
          message: 'only answers of the AI take feedback or corrections',
        },
      ]);
    }
    const { result } = await this.changes.change(conversation, null, async (ctx) => {
      const patch: Partial<MessageRecord> = { updatedAt: ctx.at };
      if (input.feedback !== undefined) patch.feedback = input.feedback;
      if (input.feedbackComment !== undefined) patch.feedbackComment = input.feedbackComment;
      if (input.text !== undefined && input.text !== message.text) {
        patch.text = input.text;
        patch.originalText = message.originalText ?? message.text;
      }
      await ctx.s.conversations.messages.update(message.id, patch);
      ctx.emit('message.updated', {
        messageId: message.id,
        feedback: patch.feedback,
        corrected: patch.text !== undefined,
      });
      return { ...message, ...patch };
    });
    return { message: messageView(result) };
  }

  /** Legacy v0 `PATCH .../messages/{messageId}`: the same change, the thread found from the message. */
  async patchMessageById(
    auth: AuthContext,
    chatbotId: string,
    messageId: string,
    input: Parameters<TeamActions['patchMessage']>[4],
  ) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const threadId = await this.store.conversations.messages.conversationOf(chatbot.id, messageId);
    if (!threadId) throw notFound('Message');
    return this.patchMessage(auth, chatbotId, threadId, messageId, input);
  }

  // ---- condition changes -------------------------------------------------------------------

  escalate = (auth: AuthContext, chatbotId: string, threadId: string) =>
    this.simple(auth, chatbotId, threadId, { type: 'escalate' });
  takeOver = (auth: AuthContext, chatbotId: string, threadId: string) =>
    this.simple(auth, chatbotId, threadId, { type: 'take_over', agentId: auth.user.id });
  switchToAi = (auth: AuthContext, chatbotId: string, threadId: string) =>
    this.simple(auth, chatbotId, threadId, { type: 'switch_to_ai' });

  private async simple(auth: AuthContext, chatbotId: string, threadId: string, e: ConversationEvent) {
    const { conversation } = await this.reach(auth, chatbotId, threadId);
    const { next } = await this.changes.change(conversation, e, async () => undefined);
    return { conversation: await threadView(this.store, next) };
  }

  /** `PATCH .../conversations/{threadId}`: status (resolve/reopen), tags, the thread-level webhook pair, visitor details, read count. */
  async patch(
    auth: AuthContext,
    chatbotId: string,
    threadId: string,
    input: {
      status?: 'OPEN' | 'RESOLVED';
      tagIds?: string[];
      webhookUrl?: string | null;
      webhookToken?: string | null;
      visitor?: VisitorDetails;
      totalMessagesRead?: number;
    },
  ) {
    checkVisitor(input.visitor);
    const { chatbot, conversation } = await this.reach(auth, chatbotId, threadId);
    if (input.webhookUrl || input.webhookToken) requireFeature(auth.account, 'webhooks');
    if (input.webhookUrl) await this.hooks.checkWebhookUrl?.({ webhookUrl: input.webhookUrl });
    if (input.tagIds) await this.setTags(chatbot, conversation, input.tagIds);
    if (input.visitor && hasDetails(input.visitor)) await this.details.identify(chatbot, conversation, input.visitor);
    const fields: Partial<ConversationRecord> = {};
    if (input.webhookUrl !== undefined) fields.webhookUrl = input.webhookUrl;
    if (input.webhookToken !== undefined)
      fields.webhookToken = keepMaskedSecret('webhookToken', input.webhookToken, conversation.webhookToken) as
        string | null;
    if (input.totalMessagesRead !== undefined) fields.totalMessagesRead = input.totalMessagesRead;
    const e: ConversationEvent | null =
      input.status === 'RESOLVED' ? { type: 'resolve' } : input.status === 'OPEN' ? { type: 'reopen' } : null;
    const fresh = (await this.store.conversations.get(conversation.id))!;
    if (e || Object.keys(fields).length) {
      const { next } = await this.changes.change(fresh, e, async (ctx) => {
        Object.assign(ctx.patch, fields);
        if (Object.keys(fields).length) ctx.emit('conversation.updated', { fields: Object.keys(fields) });
      });
      return { conversation: await threadView(this.store, next) };
    }
    return { conversation: await threadView(this.store, fresh) };
  }

  async bulk(
    auth: AuthContext,
    chatbotId: string,
    input: {
      action: 'resolve' | 'reopen' | 'tag' | 'untag' | 'delete';
      threadIds: string[];
      tagIds?: string[];
      confirm?: boolean;
    },
  ) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    if (input.action === 'delete' && input.confirm !== true)
      throw confirmationRequired('Send "confirm": true in the body to delete these conversations');
    if ((input.action === 'tag' || input.action === 'untag') && !input.tagIds?.length)
      throw validationFailed([{ path: ['tagIds'], message: `is required for ${input.action}` }]);
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
        else if (input.action === 'resolve' || input.action === 'reopen')
          await this.changes.change(conversation, { type: input.action }, async () => undefined);
        else {
          const current = (await this.store.conversations.tags([threadId])).get(threadId)!.map((t) => t.id);
          const tagIds =
            input.action === 'tag'
              ? [...new Set([...current, ...input.tagIds!])]
              : current.filter((id) => !input.tagIds!.includes(id));
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

  private reach(auth: AuthContext, chatbotId: string, threadId: string) {
    return reachConversation(this.store, this.chatbots, auth, chatbotId, threadId);
  }

  private async setTags(chatbot: ChatbotRecord, conversation: ConversationRecord, tagIds: string[]) {
    const unique = [...new Set(tagIds)];
    const known = await this.store.conversations.knownTags(chatbot.id, unique);
    const unknown = unique.filter((id) => !known.includes(id));
    if (unknown.length)
      throw validationFailed(unknown.map((id) => ({ path: ['tagIds'], message: `no tag "${id}" on this chatbot` })));
    await this.changes.change(conversation, null, async (ctx) => {
      await ctx.s.conversations.setTags(conversation.id, unique);
      ctx.emit('conversation.updated', { fields: ['tags'], tagIds: unique });
    });
  }
}
