/**
 * The realtime gateway's shared state for one server instance: every committed conversation
 * change rings the hub (so sockets on any instance catch up from the database), transient frames
 * (answer deltas, typing) travel the hub only, a chatbot's change rings every instance's sockets
 * of that chatbot (`followChatbotChanges`), and the limits are kept here: sockets per IP and
 * per visitor, and concurrent answers per chatbot (counted across instances with Redis, slots.ts).
 */
import { randomUUID } from 'node:crypto';
import type { TeamFrame } from '../../shared/protocol.js';
import type { ChatbotsService } from '../domain/chatbots.service.js';
import type { ChangeEngine } from '../domain/conversations/changes.js';
import type { ConversationEventRecord, ConversationRecord, MessageRecord } from '../domain/conversations/ports.js';
import type { ConversationReads } from '../domain/conversations/reads.js';
import type { ChatbotRecord } from '../domain/ports.js';
import type { PresenceCheck } from '../domain/visitors/ports.js';
import type { WidgetService } from '../domain/widget/widget.service.js';
import { type ChatbotChangedMessage, type HubMessage, type RealtimeHub, topics } from './hub.js';
import { LocalSlots, type Release, type Slots } from './slots.js';
import { Wire } from './wire.js';

export interface GatewayLimits {
  /** Expected heartbeat: the server pings at this interval and ends a socket silent for two. */
  heartbeatMs: number;
  maxSocketsPerIp: number;
  maxSocketsPerVisitor: number;
  /** Team streams one v2 token may hold open (on all instances, with Redis). */
  maxStreamsPerToken: number;
  /** Conversations one team stream keeps following; the least recently active idle one goes beyond it (tracker.ts). */
  teamFollowedMax: number;
  /** Frames a connection may send per `rateWindowMs` before it is closed (1008). */
  framesPerWindow: number;
  rateWindowMs: number;
  /** Bytes queued unsent to one reader before it is closed as too slow (4008) to resume later. */
  bufferLimitBytes: number;
  /** Answers one chatbot may be writing at once (on all instances, with Redis); beyond it visitors get the busy reply. */
  maxAnswersPerChatbot: number;
  /** With Redis: how long a slot (answer, socket) of an instance that stopped renewing it still counts. */
  leaseMs: number;
  /** A socket must say hello (and, without a subprotocol token, authenticate) within this time. */
  helloTimeoutMs: number;
  /** Sockets and streams one IP may open per minute (the upgrade's rate limit). */
  connectsPerMinute: number;
  /**
   * How old the chatbot (and its identity secret's date) that sockets act with may be. A change
   * rings every instance at once (`topics.chatbots`); this re-read is the safety net for a lost ring.
   */
  chatbotRefreshMs: number;
}

/** The last commit of a conversation on this instance: its events (seq `first`..`last`) and added messages. */
interface RecentCommit {
  first: number;
  last: number;
  events: ConversationEventRecord[];
  messages: MessageRecord[];
}

/** A read kept for the sockets of this instance, and when it started. */
interface Kept<T> {
  at: number;
  read: Promise<T>;
}

/** Conversations whose last commit is kept: the ones written to in the last moments. */
const RECENT_COMMITS = 2000;
/** How long the owner's change waits for the hub to take its ring. */
const RING_WAIT_MS = 1000;
/** Chatbots kept for their sockets; past it the map starts over (each is one read away). */
const RECENT_CHATBOTS = 5000;

export class Gateway {
  readonly wire: Wire;
  private readonly widget: Pick<WidgetService, 'chatbot' | 'identitySecretId'>;
  private readonly recent = new Map<string, RecentCommit>();
  private readonly chatbots = new Map<string, Kept<ChatbotRecord>>();
  /** When each chatbot's identity secret was made (null: none), for the sessions of signed identities. */
  private readonly identitySecrets = new Map<string, Kept<string | null>>();
  /** This instance's open connections per chatbot, told when it changes. */
  private readonly followers = new Map<string, Set<() => void>>();
  private readonly detach: () => void;
  private detachChanges: (() => void)[] = [];
  private readonly instance = randomUUID();

  constructor(
    readonly hub: RealtimeHub,
    deps: {
      /** Every committed change rings the hub. */
      changes: Pick<ChangeEngine, 'onCommit'>;
      /** What frames name: messages, team members. */
      reads: Pick<ConversationReads, 'agent' | 'message'>;
      /** The chatbot and its identity secret, as sockets act with them. */
      widget: Pick<WidgetService, 'chatbot' | 'identitySecretId'>;
      /** Tells the knowledge-gap answers who is connected. */
      setPresence(check: PresenceCheck): void;
    },
    readonly limits: GatewayLimits,
    private readonly onError: (err: unknown, msg: string) => void,
    readonly slots: Slots = new LocalSlots(),
  ) {
    this.widget = deps.widget;
    this.wire = new Wire(deps.reads);
    this.detach = deps.changes.onCommit((c, events, added) => {
      this.remember(c.id, events, added);
      this.ring(
        c,
        events.at(-1)!.seq,
        events.map((e) => e.type),
      );
    });
    // A knowledge-gap answer is e-mailed only to visitors connected to no instance (with Redis,
    // any of them). Should the hub not answer, the visitor counts as away: an e-mail too many
    // rather than an answer never seen.
    deps.setPresence(({ chatUserId }) =>
      hub.presence.present(chatUserId).catch((err) => {
        onError(err, 'realtime presence unavailable');
        return false;
      }),
    );
  }

  /**
   * Keeps a conversation's last commit, so its readers on this instance send it without reading
   * it back (every visitor message was two reads per socket). Only a newer commit replaces it.
   */
  private remember(conversationId: string, events: ConversationEventRecord[], messages: MessageRecord[]) {
    const first = events[0].seq;
    const last = events.at(-1)!.seq;
    const known = this.recent.get(conversationId);
    if (known && known.last >= last) return;
    this.recent.delete(conversationId);
    if (this.recent.size >= RECENT_COMMITS) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(conversationId, { first, last, events, messages });
  }

  /**
   * The events after `sent` when this instance's last commit of the conversation holds exactly
   * those, up to at least `upTo` (the seq a doorbell announced); null when they must be read.
   * Later events belong to a later commit, whose own doorbell follows.
   */
  committedAfter(conversationId: string, sent: number, upTo: number): RecentCommit | null {
    const c = this.recent.get(conversationId);
    return c && c.first === sent + 1 && c.last >= upTo ? c : null;
  }

  /** Tells every reader of the conversation that events up to `seq` are stored. */
  private ring(c: ConversationRecord, seq: number, types: string[]) {
    this.publish(c, {
      kind: 'committed',
      conversationId: c.id,
      chatbotId: c.chatbotId,
      chatUserId: c.chatUserId,
      seq,
      types,
    });
  }

  /** A frame that is not stored (answer deltas, typing) to the readers of a conversation. */
  transient(c: Pick<ConversationRecord, 'id' | 'chatbotId' | 'chatUserId'>, frame: TeamFrame, toVisitor = true) {
    this.publish(
      { ...c },
      {
        kind: 'transient',
        conversationId: c.id,
        chatbotId: c.chatbotId,
        chatUserId: c.chatUserId,
        frame: frame as unknown as Record<string, unknown>,
      },
      toVisitor,
    );
  }

  private publish(c: Pick<ConversationRecord, 'chatbotId' | 'chatUserId'>, message: HubMessage, toVisitor = true) {
    const fail = (err: unknown) => this.onError(err, 'realtime hub publish failed');
    this.hub.publish(topics.chatbot(c.chatbotId), message).catch(fail);
    if (toVisitor && c.chatUserId) this.hub.publish(topics.visitor(c.chatUserId), message).catch(fail);
  }

  log(err: unknown, msg: string) {
    this.onError(err, msg);
  }

  logout(chatUserId: string, sid: string) {
    this.hub
      .publish(topics.visitor(chatUserId), { kind: 'logout', chatUserId, sid })
      .catch((err) => this.onError(err, 'realtime hub publish failed'));
  }

  /**
   * The chatbot as it is now, for the sockets acting with it: read again once it is
   * `chatbotRefreshMs` old, one read for all of this instance's sockets rather than two reads
   * per frame on the message's hot path. CHATBOT_NOT_FOUND, never kept, when it was deleted or
   * its account is inactive.
   */
  chatbot(id: string): Promise<ChatbotRecord> {
    return this.keep(this.chatbots, id, () => this.widget.chatbot(id));
  }

  /** The id of the chatbot's identity secret (null: it has none), kept as `chatbot` is. */
  identitySecretId(chatbotId: string): Promise<string | null> {
    return this.keep(this.identitySecrets, chatbotId, () => this.widget.identitySecretId(chatbotId));
  }

  private keep<T>(map: Map<string, Kept<T>>, id: string, read: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const kept = map.get(id);
    if (kept && now - kept.at < this.limits.chatbotRefreshMs) return kept.read;
    if (map.size >= RECENT_CHATBOTS) map.clear();
    const entry = { at: now, read: read() };
    map.set(id, entry);
    entry.read.catch(() => {
      if (map.get(id) === entry) map.delete(id);
    });
    return entry.read;
  }

  /**
   * Rings every instance when a chatbot changes (settings, identity secret, deletion) and
   * listens for the rings: each instance forgets what it kept of that chatbot and tells its open
   * connections of it, which read it again at once (and end when it is gone, their page is no
   * longer allowed, or their signed identity's secret was rotated). The owner's change is told to
   * this instance's connections before the owner's request is answered.
   */
  async followChatbotChanges(chatbots: ChatbotsService): Promise<void> {
    this.detachChanges.push(
      await this.hub.subscribe<ChatbotChangedMessage>(topics.chatbots, (m) => {
        if (m.from !== this.instance) this.chatbotChanged(m.chatbotId);
      }),
    );
    this.detachChanges.push(
      chatbots.onChange(async (chatbotId) => {
        // Here at once: through Redis the ring would come back only after the owner's answer may have gone.
        this.chatbotChanged(chatbotId);
        const ring = this.hub
          .publish(topics.chatbots, { kind: 'chatbot', chatbotId, from: this.instance })
          .catch((err) => this.onError(err, 'realtime hub publish failed'));
        // The owner's answer waits for the ring, not for a Redis that does not answer (the re-read catches up).
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([ring, new Promise<void>((resolve) => (timer = setTimeout(resolve, RING_WAIT_MS)))]);
        clearTimeout(timer);
      }),
    );
  }

  private chatbotChanged(chatbotId: string) {
    this.chatbots.delete(chatbotId);
    this.identitySecrets.delete(chatbotId);
    for (const follower of [...(this.followers.get(chatbotId) ?? [])]) follower();
  }

  /** Calls `onChange` whenever the chatbot changes, until the returned function is called. */
  follow(chatbotId: string, onChange: () => void): () => void {
    let set = this.followers.get(chatbotId);
    if (!set) this.followers.set(chatbotId, (set = new Set()));
    set.add(onChange);
    return () => {
      set.delete(onChange);
      if (!set.size && this.followers.get(chatbotId) === set) this.followers.delete(chatbotId);
    };
  }

  /** Reserves one of the chatbot's answer slots; null when all are taken. */
  reserveAnswer(chatbotId: string): Promise<Release | null> {
    return this.slots.take(`answers:${chatbotId}`, this.limits.maxAnswersPerChatbot);
  }

  /** Counts a socket or stream of this IP (or visitor, or a team stream's token); null when it is at its limit. */
  async admit(kind: 'ip' | 'visitor' | 'token', key: string): Promise<Release | null> {
    const max =
      kind === 'ip'
        ? this.limits.maxSocketsPerIp
        : kind === 'visitor'
          ? this.limits.maxSocketsPerVisitor
          : this.limits.maxStreamsPerToken;
    const slot = `${kind}:${key}`;
    const release = await this.slots.take(slot, max);
    if (!release) return null;
    // Every time, not only for the first: two admissions resolving in one tick both see two held.
    if (kind === 'visitor') this.hub.presence.set(key, true);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
      if (kind === 'visitor' && !this.slots.held(slot)) this.hub.presence.set(key, false);
    };
  }

  close() {
    this.detach();
    for (const detach of this.detachChanges) detach();
    this.detachChanges = [];
  }
}
