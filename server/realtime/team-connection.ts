/**
 * The team's live stream: every change of the conversations of the chatbots a v2 token may see
 * (its chatbot restriction and its user's member role, as they are now: read again before
 * delivering once `chatbotRefreshMs` old, and every heartbeat), with the visitor's numbers and
 * resume. A conversation the stream has not followed yet starts with the change
 * that rang; `conversation.open` or `hello.resume` replays one from any seq.
 */
import { CLOSE, PROTOCOL_VERSION, type TeamFrame } from '../../shared/protocol.js';
import { type AuthContext, requireScopes } from '../domain/auth.js';
import { AppError } from '../domain/errors.js';
import type { ChatbotsService } from '../domain/chatbots.service.js';
import type { ConversationRecord } from '../domain/conversations/ports.js';
import type { ConversationReads } from '../domain/conversations/reads.js';
import type { ChatbotRecord } from '../domain/ports.js';
import type { Gateway } from './gateway.js';
import { type HubMessage, topics } from './hub.js';
import { parseClientFrame } from './frames.js';
import { Tracker } from './tracker.js';
import { CloseError } from './visitor-connection.js';

export interface TeamTransport {
  send(frame: TeamFrame): void;
  close(code: number, reason: string): void;
  /** As `Transport.room` (visitor-connection.ts). */
  room?(): Promise<void>;
}

/** What a team stream acts through: the realtime channel and the domain's services. */
export interface TeamConnectionServices {
  /** This instance's realtime channel: the hub, its limits, transient frames, the wire. */
  gateway: Gateway;
  /** Conversations as they are now and their stored events. */
  reads: ConversationReads;
  /** The chatbots a token reaches. */
  chatbots: Pick<ChatbotsService, 'allReachable'>;
}

export class TeamConnection {
  greeted = false;
  /** Set as hello starts: a second hello sent before the first finished is refused too. */
  private hailed = false;
  private closed = false;
  private readonly tracker: Tracker;
  private readonly chatbots = new Map<string, ChatbotRecord>();
  private readonly subscriptions = new Map<string, () => void>();
  private checkedAt = 0;
  private checking: Promise<boolean> | null = null;
  /** Hub messages wait here, in order, for the token to be checked. */
  private delivering: Promise<unknown> = Promise.resolve();
  private recheckTimer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly services: TeamConnectionServices,
    private auth: AuthContext | null,
    private readonly transport: TeamTransport,
    /** Resolves a token sent in hello (null: not valid). */
    private readonly authenticate: (token: string) => Promise<AuthContext>,
    /** The caller as it is now; throws an AppError when the token may no longer stream. */
    private readonly reauthorize: (auth: AuthContext) => Promise<AuthContext>,
    /** Counts the stream against its token's limit; false when the token holds all it may. */
    private readonly admitToken: (tokenId: string) => Promise<boolean> = async () => true,
  ) {
    const { gateway } = services;
    this.tracker = new Tracker(
      gateway,
      services.reads,
      (f) => this.send(f),
      () => !this.closed,
      (err) => gateway.log(err, 'team stream failed'),
      () => transport.room?.(),
      gateway.limits.teamFollowedMax,
    );
  }

  private get gateway() {
    return this.services.gateway;
  }

  send(frame: TeamFrame) {
    if (!this.closed) this.transport.send(frame);
  }

  dispose() {
    this.closed = true;
    if (this.recheckTimer) clearInterval(this.recheckTimer);
    for (const off of this.subscriptions.values()) off();
    this.subscriptions.clear();
  }

  private close(code: number, reason: string) {
    if (this.closed) return;
    this.transport.close(code, reason);
    this.dispose();
  }

  async receive(raw: string): Promise<void> {
    if (this.closed) return;
    const parsed = parseClientFrame(raw);
    if (!parsed.ok) {
      this.send({ type: 'error', code: 'VALIDATION_FAILED', message: parsed.message, details: parsed.details });
      return;
    }
    const frame = parsed.frame;
    try {
      if (this.greeted && frame.type !== 'ping' && frame.type !== 'hello' && !(await this.current())) return;
      switch (frame.type) {
        case 'ping':
          return this.send({ type: 'pong' });
        case 'hello':
          return await this.hello(frame.v, frame.resume ?? {}, frame.token);
        case 'conversation.open': {
          if (!this.greeted) throw new AppError('VALIDATION_FAILED', 'Send hello first');
          const c = await this.reach(frame.conversationId);
          this.tracker.track(c.id, this.chatbots.get(c.chatbotId)!, Math.min(frame.after ?? 0, c.seq));
          await this.tracker.replay(c);
          return;
        }
        case 'typing': {
          if (!this.greeted) throw new AppError('VALIDATION_FAILED', 'Send hello first');
          // Visitors and colleagues see it as a person about to reply: a read-only token may not.
          requireScopes(this.auth!, ['conversations:write']);
          const c = await this.reach(frame.conversationId);
          const agent = await this.gateway.wire.agent(this.chatbots.get(c.chatbotId)!, this.auth!.user.id);
          // The visitor sees a person typing only while one is on the conversation (escalated or
          // taken over); while the AI answers alone it would promise a person who is not there.
          const personOn = c.status === 'OPEN' && (c.mode === 'AGENT' || c.escalated);
          this.gateway.transient(
            c,
            { type: 'typing', conversationId: c.id, who: 'agent', typing: frame.typing, ...(agent && { agent }) },
            personOn,
          );
          return;
        }
        default:
          throw new AppError(
            'VALIDATION_FAILED',
            `${frame.type} is a visitor's frame; the team stream takes hello, conversation.open, typing and ping`,
          );
      }
    } catch (err) {
      if (err instanceof CloseError) return this.close(err.code, err.message);
      if (err instanceof AppError)
        return this.send({ type: 'error', code: err.code, message: err.message, ref: { type: frame.type } });
      this.gateway.log(err, 'team stream frame failed');
      this.send({
        type: 'error',
        code: 'INTERNAL_SERVER_ERROR',
        message: 'Something went wrong on our side',
        ref: { type: frame.type },
      });
    }
  }

  private async hello(v: number, resume: Record<string, number>, token?: string) {
    if (this.hailed) throw new AppError('VALIDATION_FAILED', 'hello was already sent on this connection');
    this.hailed = true;
    if (v !== PROTOCOL_VERSION)
      throw new CloseError(
        CLOSE.policy,
        `protocol version ${v} is not supported; this server speaks ${PROTOCOL_VERSION}`,
      );
    if (!this.auth) {
      if (!token)
        throw new CloseError(
          CLOSE.sessionInvalid,
          'no token: send Authorization, the parley.token.<token> subprotocol, or hello.token',
        );
      try {
        this.auth = await this.authenticate(token);
      } catch (err) {
        throw new CloseError(CLOSE.sessionInvalid, err instanceof Error ? err.message : 'token not valid');
      }
    }
    if (!(await this.admitToken(this.auth.token.id)))
      throw new CloseError(CLOSE.tooManySockets, 'too many streams for this token');
    this.greeted = true;
    this.checkedAt = Date.now();
    for (const chatbot of await this.services.chatbots.allReachable(this.auth)) this.chatbots.set(chatbot.id, chatbot);
    // Resumed conversations are followed from the client's numbers before the hub can ring: a
    // doorbell for one of them heard first would follow it from the change that rang, and the
    // events between the client's number and that change would never be sent.
    const resumed: ConversationRecord[] = [];
    const unknown: string[] = [];
    for (const [id, seq] of Object.entries(resume)) {
      const c = await this.services.reads.get(id);
      if (!c || !this.chatbots.has(c.chatbotId)) {
        unknown.push(id);
        continue;
      }
      this.tracker.track(c.id, this.chatbots.get(c.chatbotId)!, Math.min(seq, c.seq));
      resumed.push(c);
    }
    for (const id of [...this.chatbots.keys()]) await this.follow(id);
    if (this.closed) return this.dispose();
    // An idle stream learns of a revocation, or of a chatbot shared with it, within a heartbeat.
    this.recheckTimer = setInterval(() => void this.current().catch(() => {}), this.gateway.limits.heartbeatMs);
    this.recheckTimer.unref?.();
    this.send({
      type: 'team.ready',
      v: PROTOCOL_VERSION,
      chatbotIds: [...this.chatbots.keys()],
      heartbeatMs: this.gateway.limits.heartbeatMs,
    });
    this.tracker.resume(resumed, unknown);
  }

  private async follow(chatbotId: string) {
    const hub = await this.gateway.hub.subscribe(topics.chatbot(chatbotId), (m) => this.onHub(m));
    if (this.closed || !this.chatbots.has(chatbotId) || this.subscriptions.has(chatbotId)) return hub();
    // A change of the chatbot (settings, deletion) rings: read it again now, not at the next refresh.
    const rung = this.gateway.follow(chatbotId, () => this.stale());
    this.subscriptions.set(chatbotId, () => (hub(), rung()));
  }

  /** Reads the token and its chatbots again at once (a chatbot changed); after a read under way, which may predate the change. */
  private stale() {
    const again = () => {
      this.checkedAt = 0;
      void this.current();
    };
    if (this.checking) void this.checking.then(again);
    else again();
  }

  /**
   * True when the token may still stream, its chatbots read again once `chatbotRefreshMs` old
   * (one read at a time); a revoked token, a lost scope or an inactive account closes with 4001.
   */
  private current(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (Date.now() - this.checkedAt < this.gateway.limits.chatbotRefreshMs) return Promise.resolve(true);
    this.checking ??= this.recheck()
      .catch((err) => {
        // Fail closed: nothing is delivered on permissions that could not be read.
        this.gateway.log(err, 'team stream could not read its token');
        this.close(CLOSE.goingAway, 'try again: reconnect and resume');
        return false;
      })
      .finally(() => (this.checking = null));
    return this.checking;
  }

  private async recheck(): Promise<boolean> {
    const started = Date.now();
    let auth: AuthContext;
    try {
      auth = await this.reauthorize(this.auth!);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      this.close(CLOSE.sessionInvalid, err.message.slice(0, 120));
      return false;
    }
    const now = new Map((await this.services.chatbots.allReachable(auth)).map((c) => [c.id, c]));
    if (this.closed) return false;
    this.auth = auth;
    for (const id of [...this.chatbots.keys()]) {
      if (now.has(id)) continue;
      this.chatbots.delete(id);
      this.subscriptions.get(id)?.();
      this.subscriptions.delete(id);
      this.tracker.untrack(id);
    }
    for (const [id, chatbot] of now) {
      const known = this.chatbots.has(id);
      this.chatbots.set(id, chatbot);
      this.tracker.refresh(chatbot);
      if (!known) await this.follow(id);
    }
    this.checkedAt = started;
    return !this.closed;
  }

  private async reach(conversationId: string) {
    const c = await this.services.reads.get(conversationId);
    if (!c || !this.chatbots.has(c.chatbotId)) throw new AppError('NOT_FOUND', 'Conversation not found');
    return c;
  }

  private onHub(m: HubMessage) {
    if (this.closed || m.kind === 'logout') return;
    // A failed delivery is logged and the chain goes on: a rejected link would stop every later one.
    this.delivering = this.delivering
      .then(() => this.current())
      .then((ok) => ok && this.deliver(m))
      .catch((err) => this.gateway.log(err, 'team stream failed'));
  }

  private deliver(m: HubMessage) {
    if (this.closed || m.kind === 'logout') return;
    const chatbot = this.chatbots.get(m.chatbotId);
    if (!chatbot) return;
    if (m.kind === 'transient') {
      if (this.tracker.has(m.conversationId))
        this.tracker.transient(m.conversationId, m.frame as unknown as TeamFrame as never);
      else this.send(m.frame as unknown as TeamFrame);
      return;
    }
    // Not followed yet: from the change that rang (a new conversation: from its start).
    this.tracker.track(m.conversationId, chatbot, m.seq - m.types.length);
    void this.tracker.catchUp(m.conversationId, m.seq);
  }
}
