/**
 * One visitor's connection, whatever carries it (a WebSocket, or Server-Sent Events with frames
 * POSTed): the protocol of shared/protocol.ts. It starts with `hello` (authenticating there when
 * the token did not come with the upgrade), follows the visitor's conversations through the hub
 * and answers client frames. Bad frames get an error frame and change nothing.
 */
import { CLOSE, type ClientFrame, PROTOCOL_VERSION, type ServerFrame } from '../../shared/protocol.js';
import { AppError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import type { ConversationRecord } from '../domain/conversations/ports.js';
import type { ConversationReads, VisitorRef } from '../domain/conversations/reads.js';
import type { VisitorMessages } from '../domain/conversations/visitor-messages.js';
import type { VisitorServices } from '../domain/visitors/index.js';
import { visitorInfo } from '../domain/conversations/views.js';
import { busyMessage } from '../domain/widget/busy.js';
import { allowedDomainsOf, originAllowed } from '../domain/widget/origins.js';
import {
  checkIdentitySecret,
  originNotAllowed,
  sessionNotValid,
  type VisitorSession,
  type WidgetService,
} from '../domain/widget/widget.service.js';
import { parseClientFrame } from './frames.js';
import type { Gateway } from './gateway.js';
import { type HubMessage, topics } from './hub.js';
import { Tracker } from './tracker.js';

export interface Transport {
  send(frame: ServerFrame): void;
  close(code: number, reason: string): void;
  /**
   * Resolves once the reader has taken most of what was sent (replays wait on it between frames,
   * so a long resume is paced by the reader instead of tripping the buffer limit); a reader that
   * takes nothing for a heartbeat is closed with 4008 meanwhile.
   */
  room?(): Promise<void>;
}

/** What a visitor's connection acts through: the realtime channel and the domain's services. */
export interface VisitorConnectionServices {
  /** This instance's realtime channel: the hub, its limits, the chatbot as it is now, answer slots. */
  gateway: Gateway;
  /** The visitor's own conversations (the ownership rule) and what is stored of them. */
  reads: ConversationReads;
  /** Where the visitor's messages, escalations and ratings go. */
  messages: VisitorMessages;
  /** Codes, verification, logout and the visitor's conversation list. */
  accounts: VisitorServices['accounts'];
  /** The lead form. */
  leads: VisitorServices['leads'];
  /** Sessions: a token authenticated, a new one issued once verified. */
  widget: WidgetService;
}

const visitorOf = (session: VisitorSession): VisitorRef => ({
  chatbotId: session.chatbot.id,
  chatUserId: session.visitor.id,
});

/** Close codes with their reasons, for both transports. */
export class CloseError extends Error {
  constructor(
    readonly code: number,
    reason: string,
  ) {
    super(reason);
  }
}

export class VisitorConnection {
  private session: VisitorSession | null;
  private tracker: Tracker;
  private unsubscribe: (() => void) | null = null;
  /** Stops the gateway telling this connection of its chatbot's changes. */
  private unfollow: (() => void) | null = null;
  greeted = false;
  private closed = false;

  constructor(
    private readonly services: VisitorConnectionServices,
    session: VisitorSession | null,
    /**
     * `stateless`: one frame POSTed on its own (the SSE fallback): no hello, no subscription.
     * `origin`: the page's `Origin`, checked against the chatbot's allowed domains as they are now.
     */
    private readonly options: { stateless?: boolean; ip: string; origin?: string },
    private readonly transport: Transport,
    /** Checks a session authenticated by the first frame (its chatbot's allowed domains). */
    private readonly admitSession: (session: VisitorSession) => void | Promise<void> = () => {},
  ) {
    this.session = session;
    this.greeted = options.stateless === true;
    this.tracker = new Tracker(
      services.gateway,
      services.reads,
      (f) => this.send(f),
      () => !this.closed,
      (err) => this.fail(err),
      () => transport.room?.(),
    );
  }

  /** The session authenticated before the upgrade. */
  adopt(session: VisitorSession) {
    this.session = session;
  }

  get visitorId() {
    return this.session?.visitor.id ?? null;
  }

  send(frame: ServerFrame) {
    if (!this.closed) this.transport.send(frame);
  }

  close(code: number, reason: string) {
    if (this.closed) return;
    this.transport.close(code, reason);
    this.dispose();
  }

  /** The transport ended (either side). */
  dispose() {
    this.closed = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.unfollow?.();
    this.unfollow = null;
  }

  /**
   * When its chatbot changes (the gateway is told at once, on every instance) and each heartbeat
   * (the safety net): the connection reads its chatbot again and ends, idle or not, once the
   * chatbot is gone, its page no longer allowed, or its signed identity's secret rotated.
   */
  beat() {
    if (!this.greeted || !this.session || this.closed || this.options.stateless) return;
    this.refreshChatbot().catch((err) => {
      if (err instanceof CloseError) this.close(err.code, err.message);
      else this.fail(err);
    });
  }

  private fail(err: unknown) {
    this.gateway.log(err, 'visitor connection failed');
  }

  /** One frame's text from the client. Resolves when the frame has been answered (not its AI answer). */
  async receive(raw: string): Promise<void> {
    if (this.closed) return;
    const parsed = parseClientFrame(raw);
    if (!parsed.ok) {
      this.send({
        type: 'error',
        code: 'VALIDATION_FAILED',
        message: parsed.message,
        details: parsed.details,
        ...(parsed.type && { ref: { type: parsed.type } }),
      });
      return;
    }
    await this.handle(parsed.frame);
  }

  async handle(frame: ClientFrame): Promise<void> {
    try {
      if (frame.type === 'ping') return this.send({ type: 'pong' });
      if (frame.type === 'hello') return await this.hello(frame);
      if (!this.greeted || !this.session) {
        this.send({ type: 'error', code: 'VALIDATION_FAILED', message: 'Send hello first', ref: { type: frame.type } });
        return;
      }
      await this.refreshChatbot();
      // Closed while the chatbot was read (a policy close, the client gone): the frame is not acted on.
      if (this.closed) return;
      switch (frame.type) {
        case 'message.send':
          return await this.sendMessage(frame);
        case 'conversation.open': {
          const c = await this.own(frame.conversationId);
          this.tracker.track(c.id, this.session.chatbot, Math.min(frame.after ?? 0, c.seq));
          await this.tracker.replay(c);
          return;
        }
        case 'typing': {
          const c = await this.own(frame.conversationId);
          this.gateway.transient(c, { type: 'visitor.typing', conversationId: c.id, typing: frame.typing }, false);
          return;
        }
        case 'feedback': {
          const c = await this.own(frame.conversationId);
          await this.services.messages.feedbackAsVisitor(c, frame.messageId, frame.feedback, frame.comment ?? null);
          return;
        }
        case 'escalate': {
          const c = await this.own(frame.conversationId);
          if (this.session.chatbot.settings.mode === 'AI_ONLY') {
            throw new AppError('VALIDATION_FAILED', 'This chatbot does not offer a person to talk to', {
              hint: 'The chat mode is AI_ONLY',
            });
          }
          await this.services.messages.escalateAsVisitor(c);
          return;
        }
        case 'conversations.list': {
          const items = await this.services.accounts.conversations(this.session.chatbot, this.session.visitor.id);
          this.send({ type: 'conversations', items });
          return;
        }
        case 'otp.request': {
          const sent = await this.services.accounts.requestCode({
            chatbotId: this.session.chatbot.id,
            email: frame.email,
            name: frame.name,
            phone: frame.phone,
            ip: this.options.ip,
          });
          this.send({ type: 'otp.sent', email: sent.email, resendAfter: sent.resendAfter });
          return;
        }
        case 'otp.verify': {
          const { chatUser, visitor } = await this.services.accounts.verifyCode({
            chatbotId: this.session.chatbot.id,
            email: frame.email,
            code: frame.code,
            currentChatUserId: this.session.visitor.id,
          });
          const fresh = this.services.widget.sessionFor(this.session.chatbot, chatUser);
          await this.become({
            ...this.session,
            claims: this.services.widget.tokens.read(fresh.token)!,
            visitor: chatUser,
          });
          this.send({ type: 'verified', visitor, token: fresh.token, expiresAt: fresh.expiresAt });
          return;
        }
        case 'lead.submit': {
          if (frame.conversationId) await this.own(frame.conversationId);
          const saved = await this.services.leads.submit({
            chatbotId: this.session.chatbot.id,
            chatUserId: this.session.visitor.id,
            conversationId: frame.conversationId,
            email: frame.email,
            name: frame.name,
            phone: frame.phone,
            customFields: frame.customFields,
          });
          const visitor = await this.services.reads.chatUser(this.session.visitor.id);
          if (visitor) this.session = { ...this.session, visitor };
          this.send({ type: 'lead.saved', visitor: saved.visitor });
          return;
        }
        case 'logout': {
          const { claims } = this.session;
          await this.services.accounts.logout({
            id: claims.sid,
            chatUserId: claims.chatUserId,
            expiresAt: new Date(claims.exp * 1000).toISOString(),
          });
          this.send({ type: 'logged_out' });
          // Every tab of this session, on every instance, closes.
          this.gateway.logout(claims.chatUserId, claims.sid);
          this.close(CLOSE.loggedOut, 'logged out');
          return;
        }
      }
    } catch (err) {
      if (err instanceof CloseError) return this.close(err.code, err.message);
      if (err instanceof AppError) {
        const ref = {
          type: frame.type,
          ...('clientId' in frame && { clientId: frame.clientId }),
          ...('conversationId' in frame && frame.conversationId && { conversationId: frame.conversationId }),
        };
        this.send({
          type: 'error',
          code: err.code,
          message: err.message,
          ...(err.extra.details !== undefined && { details: err.extra.details }),
          ref,
        });
        return;
      }
      this.fail(err);
      this.send({
        type: 'error',
        code: 'INTERNAL_SERVER_ERROR',
        message: 'Something went wrong on our side; nothing was changed',
        ref: { type: frame.type },
      });
    }
  }

  private async hello(frame: Extract<ClientFrame, { type: 'hello' }>) {
    if (this.greeted) throw new AppError('VALIDATION_FAILED', 'hello was already sent on this connection');
    if (frame.v !== PROTOCOL_VERSION)
      throw new CloseError(
        1008,
        `protocol version ${frame.v} is not supported; this server speaks ${PROTOCOL_VERSION}`,
      );
    if (!this.session) {
      if (!frame.token)
        throw new CloseError(CLOSE.sessionInvalid, 'no session: send the token in hello or as a subprotocol');
      try {
        this.session = await this.services.widget.authenticate(frame.token);
        await this.admitSession(this.session);
      } catch (err) {
        if (err instanceof CloseError) throw err;
        throw new CloseError(CLOSE.sessionInvalid, err instanceof AppError ? err.message : 'session not valid');
      }
    }
    const session = this.session;
    this.greeted = true;
    // Resumed conversations are followed from the client's numbers before `ready` goes out: the
    // client sends what it queued offline on `ready`, and a message handled before its
    // conversation was tracked would follow it from now and skip the events the client missed.
    // And before the hub can ring: a doorbell heard first would follow one from its start and
    // send again everything the client has.
    const resumed: ConversationRecord[] = [];
    const unknown: string[] = [];
    for (const [id, seq] of Object.entries(frame.resume ?? {})) {
      const c = await this.services.reads.ofVisitor(visitorOf(session), id);
      if (!c) {
        unknown.push(id);
        continue;
      }
      this.tracker.track(c.id, session.chatbot, Math.min(seq, c.seq));
      resumed.push(c);
    }
    this.unsubscribe = await this.gateway.hub.subscribe(topics.visitor(session.visitor.id), (m) => this.onHub(m));
    if (this.closed) return this.dispose();
    this.unfollow = this.gateway.follow(session.chatbot.id, () => this.beat());
    this.send({
      type: 'ready',
      v: PROTOCOL_VERSION,
      visitor: visitorInfo(session.visitor),
      heartbeatMs: this.gateway.limits.heartbeatMs,
    });
    this.tracker.resume(resumed, unknown);
  }

  /**
   * A socket lives for hours: each frame acts with the chatbot as it is now (the gateway's copy,
   * dropped when the chatbot changes and read again once `chatbotRefreshMs` old), and a chatbot
   * deleted or of an inactive account, a page no longer among its allowed domains, or a signed
   * identity whose secret was rotated, ends the connection as a new one would be refused. A
   * POSTed frame's session was just read.
   */
  private async refreshChatbot() {
    if (this.options.stateless) return;
    const { claims } = this.session!;
    const [chatbot, secretId] = await Promise.all([
      this.gateway.chatbot(claims.chatbotId).catch((err) => {
        if (err instanceof AppError && err.code === 'CHATBOT_NOT_FOUND')
          throw new CloseError(CLOSE.sessionInvalid, sessionNotValid('its chatbot no longer exists').message);
        throw err;
      }),
      claims.via === 'identity' ? this.gateway.identitySecretId(claims.chatbotId) : null,
    ]);
    if (!originAllowed(this.options.origin, allowedDomainsOf(chatbot.settings)))
      throw new CloseError(CLOSE.originRefused, originNotAllowed().message);
    try {
      checkIdentitySecret(claims, secretId);
    } catch (err) {
      throw new CloseError(CLOSE.sessionInvalid, err instanceof AppError ? err.message : 'session not valid');
    }
    // Only the chatbot: another frame may have changed the visitor meanwhile (otp.verify).
    this.session = { ...this.session!, chatbot };
    this.tracker.refresh(chatbot);
  }

  private get gateway() {
    return this.services.gateway;
  }

  /** The connection acts as another visitor from now on (verified: the history of every device). */
  private async become(session: VisitorSession) {
    const previous = this.unsubscribe;
    this.session = session;
    if (this.options.stateless) return;
    this.unsubscribe = await this.gateway.hub.subscribe(topics.visitor(session.visitor.id), (m) => this.onHub(m));
    previous?.();
  }

  private onHub(m: HubMessage) {
    const session = this.session;
    if (!session || this.closed) return;
    if (m.kind === 'logout') {
      if (m.sid === session.claims.sid) this.close(CLOSE.loggedOut, 'logged out');
      return;
    }
    if (m.chatbotId !== session.chatbot.id || m.chatUserId !== session.visitor.id) return;
    if (m.kind === 'transient') {
      if (this.tracker.has(m.conversationId))
        this.tracker.transient(m.conversationId, m.frame as unknown as ServerFrame);
      return;
    }
    // A conversation this connection does not follow yet (another tab started it): all of it.
    this.tracker.track(m.conversationId, session.chatbot, 0);
    void this.tracker.catchUp(m.conversationId, m.seq);
  }

  /** A conversation of this visitor, or NOT_FOUND. */
  private own(conversationId: string): Promise<ConversationRecord> {
    return this.services.reads.own(visitorOf(this.session!), conversationId);
  }

  private async sendMessage(frame: Extract<ClientFrame, { type: 'message.send' }>) {
    const { chatbot, visitor } = this.session!;
    // The conversation and the visitor's name as stored now, in one read (the message is signed with it).
    const found = frame.conversationId
      ? await this.services.reads.ownWithName(visitorOf(this.session!), frame.conversationId)
      : null;
    const existing = found?.conversation ?? null;
    // Before the message, so the team sees the page with the conversation it starts.
    if (frame.page) await this.services.widget.notePage(visitor, frame.page);
    const answerId = newId();
    let conversation: Pick<ConversationRecord, 'id' | 'chatbotId' | 'chatUserId'> = existing ?? {
      id: '',
      chatbotId: chatbot.id,
      chatUserId: visitor.id,
    };
    let index = 0;
    let isStored = false;
    let stored!: () => void;
    const storedPromise = new Promise<void>((resolve) => (stored = resolve));
    const work = this.services.messages.sendAsVisitor(chatbot, visitor.id, existing, frame.text, {
      clientId: frame.clientId,
      ...(found && { visitorName: found.visitorName }),
      // A new conversation is followed from its start; one it did not resume, from now (the client has its history).
      onConversation: (c) => {
        conversation = c;
        this.tracker.track(c.id, chatbot, existing ? c.seq : 0);
      },
      answerId,
      busy: busyMessage(chatbot.settings),
      onStored: (m) => {
        isStored = true;
        this.send({ type: 'ack', clientId: frame.clientId, conversationId: m.threadId, messageId: m.id, seq: m.seq });
        stored();
      },
      reserve: async () => {
        const release = await this.gateway.reserveAnswer(chatbot.id);
        if (release)
          this.gateway.transient(conversation, {
            type: 'typing',
            conversationId: conversation.id,
            who: 'ai',
            typing: true,
          });
        return release;
      },
      onToken: (delta) =>
        this.gateway.transient(conversation, {
          type: 'answer.delta',
          conversationId: conversation.id,
          messageId: answerId,
          index: index++,
          delta,
        }),
    });
    // Failures after the message is stored belong to the answer (logged; resume shows what was stored).
    work.then(
      // A resend whose first ack was lost with its socket (no conversation id yet): the conversation
      // and its answer were stored while nobody listened, so they are replayed to this connection.
      (result) => {
        if (result.replayed && !existing) void this.tracker.catchUp(conversation.id);
      },
      (err) => {
        if (isStored) this.fail(err);
      },
    );
    // The frame is answered once the message is stored (or refused); the AI's answer streams on by itself.
    await Promise.race([storedPromise, work]);
  }
}
