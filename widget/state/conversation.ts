/**
 * The conversation on screen and the visitor's list of conversations. Frames are applied
 * idempotently: messages by id, answer deltas by index, conditions by seq, so a replay after a
 * reconnect repeats nothing.
 */
import { batch, computed, signal } from '@preact/signals';
import type {
  AnswerDeltaFrame,
  ConditionChange,
  ConditionFrame,
  ConversationsFrame,
  HelloFrame,
  SendMessageFrame,
  TypingServerFrame,
  WidgetConfig,
  WidgetPrompt,
  WireMessage,
} from '../../shared/protocol.js';
import { LIMITS, PROTOCOL_VERSION } from '../../shared/protocol.js';
import { fill } from '../i18n/locales.js';
import { pageUrl } from './page-url.js';
import type { ConnectionModel } from './connection.js';
import type { I18nModel } from './i18n.js';
import type { SessionStore } from './session-store.js';

export type Item =
  | { kind: 'message'; message: WireMessage; pending?: boolean }
  | { kind: 'stream'; id: string; text: string }
  | { kind: 'notice'; id: string; seq: number; text: string; change: ConditionChange };

interface Stream {
  conversationId: string;
  parts: string[];
  broken: boolean;
}

export type Via = { kind: 'starter' | 'followup'; id?: string };

let counter = 0;
const clientId = () =>
  `c${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 8)}`;

export class ConversationModel {
  readonly conversationId = signal<string | null>(null);
  readonly messages = signal<WireMessage[]>([]);
  readonly pending = signal<WireMessage[]>([]);
  readonly notices = signal<Array<Extract<Item, { kind: 'notice' }>>>([]);
  readonly streams = signal<Record<string, Stream>>({});
  readonly condition = signal<ConditionFrame['state'] | null>(null);
  readonly typing = signal<{ who: 'ai' | 'agent'; name: string } | null>(null);
  readonly conversations = signal<ConversationsFrame['items'] | null>(null);
  private lastSeq: Record<string, number> = {};
  private typingTimer: ReturnType<typeof setTimeout> | null = null;
  /**
   * The message opening a new conversation, until the server acknowledges it: messages typed
   * meanwhile (a fast typist, or offline) wait here and then go to its conversation, instead of
   * each opening a conversation of its own.
   */
  private opener: string | null = null;
  private waiting: SendMessageFrame[] = [];

  readonly items = computed<Item[]>(() => {
    const cid = this.conversationId.value;
    const list: Array<Item & { order: number }> = [];
    for (const m of this.messages.value) list.push({ kind: 'message', message: m, order: m.seq });
    for (const n of this.notices.value) list.push({ ...n, order: n.seq });
    list.sort((a, b) => a.order - b.order);
    const out: Item[] = list;
    for (const m of this.pending.value) out.push({ kind: 'message', message: m, pending: true });
    for (const [id, s] of Object.entries(this.streams.value)) {
      if (s.conversationId === cid && !this.messages.value.some((m) => m.id === id))
        out.push({ kind: 'stream', id, text: s.parts.join('') });
    }
    return out;
  });

  /** Follow-ups of the newest answer, while it is the newest message. */
  readonly followUps = computed<WidgetPrompt[]>(() => {
    const msgs = this.messages.value;
    const last = msgs[msgs.length - 1];
    if (!last || last.author !== 'ai' || this.pending.value.length || Object.keys(this.streams.value).length) return [];
    return last.followUps.map((f, i) => ({
      id: `${last.id}:${i}`,
      title: f.title,
      description: f.description,
      link: f.link,
      isEscalationPrompt: f.isEscalationPrompt,
    }));
  });

  constructor(
    private readonly config: WidgetConfig,
    private readonly connection: ConnectionModel,
    private readonly session: SessionStore,
    private readonly i18n: I18nModel,
    /** A message stored for the first time (`inView`: in the conversation on screen). */
    private readonly arrived: (message: WireMessage, inView: boolean) => void,
    private readonly escalated: (conversationId: string) => void,
  ) {
    const stored = session.read();
    if (stored?.conversationId) this.conversationId.value = stored.conversationId;
  }

  hello(): HelloFrame {
    const cid = this.conversationId.value;
    return { type: 'hello', v: PROTOCOL_VERSION, ...(cid ? { resume: { [cid]: this.lastSeq[cid] ?? 0 } } : {}) };
  }

  /** Another tab of this visitor opened a conversation while this one shows none: follow it, its history replayed from the start. */
  follow(cid: string) {
    if (this.conversationId.value || this.pending.value.length) return;
    this.conversationId.value = cid;
    this.connection.restart();
  }

  send(text: string, via?: Via) {
    const body = text.trim().slice(0, LIMITS.maxMessageChars);
    if (!body) return;
    const cid = this.conversationId.value;
    const id = clientId();
    const optimistic: WireMessage = {
      id: `local-${id}`,
      conversationId: cid ?? '',
      author: 'visitor',
      name: null,
      text: body,
      sources: [],
      followUps: [],
      agent: null,
      feedback: null,
      clientId: id,
      createdAt: new Date().toISOString(),
      seq: Number.MAX_SAFE_INTEGER,
    };
    this.pending.value = [...this.pending.value, optimistic];
    const page = pageUrl();
    const frame: SendMessageFrame = {
      type: 'message.send',
      clientId: id,
      text: body,
      ...(cid ? { conversationId: cid } : {}),
      ...(via ? { via } : {}),
      ...(page ? { page } : {}),
    };
    if (cid) this.connection.send(frame);
    else if (this.opener) this.waiting.push(frame);
    else {
      this.opener = id;
      this.connection.send(frame);
    }
    this.connection.connect();
  }

  feedback(message: WireMessage, value: 'up' | 'down') {
    const next = message.feedback === value ? null : value;
    this.messages.value = this.messages.value.map((m) => (m.id === message.id ? { ...m, feedback: next } : m));
    this.connection.send({
      type: 'feedback',
      conversationId: message.conversationId,
      messageId: message.id,
      feedback: next,
    });
  }

  escalate() {
    const cid = this.conversationId.value;
    if (cid) this.connection.send({ type: 'escalate', conversationId: cid });
  }

  typingChanged(typing: boolean) {
    const cid = this.conversationId.value;
    if (cid && this.connection.status.value === 'online')
      this.connection.send({ type: 'typing', conversationId: cid, typing });
  }

  list() {
    this.connection.send({ type: 'conversations.list' });
  }

  open(id: string) {
    this.switchTo(id);
    this.connection.send({ type: 'conversation.open', conversationId: id, after: 0 });
  }

  switchTo(id: string | null) {
    batch(() => {
      this.conversationId.value = id;
      this.messages.value = [];
      this.notices.value = [];
      this.streams.value = {};
      this.condition.value = null;
      this.typing.value = null;
    });
    if (id) delete this.lastSeq[id];
    this.session.write({ conversationId: id });
  }

  /** Nothing waits to be sent any more (the visitor is forgotten on this device). */
  forget() {
    this.opener = null;
    this.waiting = [];
    this.switchTo(null);
  }

  /** After forget() and the session's end: no pending messages, no list. */
  cleared() {
    batch(() => {
      this.pending.value = [];
      this.conversations.value = null;
    });
  }

  // ---- frames -------------------------------------------------------------------------------

  listed(items: ConversationsFrame['items']) {
    this.conversations.value = items;
  }

  seen(cid: string, seq: number) {
    if (seq > (this.lastSeq[cid] ?? 0)) this.lastSeq[cid] = seq;
  }

  private adopt(cid: string) {
    if (this.conversationId.value) return;
    this.conversationId.value = cid;
    this.session.write({ conversationId: cid });
  }

  acked(id: string, cid: string) {
    if (this.pending.value.some((m) => m.clientId === id)) this.adopt(cid);
    this.opened(id, cid);
  }

  /** The opener is stored: what waited for it goes to its conversation. */
  private opened(id: string, cid: string) {
    if (id !== this.opener) return;
    this.opener = null;
    const waiting = this.waiting.splice(0);
    if (!waiting.length) return;
    const ids = new Set(waiting.map((f) => f.clientId));
    this.pending.value = this.pending.value.map((m) =>
      m.clientId && ids.has(m.clientId) ? { ...m, conversationId: cid } : m,
    );
    for (const frame of waiting) this.connection.send({ ...frame, conversationId: cid });
  }

  /** A message was refused for good: it leaves the pending list, and if it was the opener the next waiting message opens the conversation instead. */
  refused(id: string) {
    this.pending.value = this.pending.value.filter((m) => m.clientId !== id);
    if (id !== this.opener) return;
    this.opener = null;
    const next = this.waiting.shift();
    if (!next) return;
    this.opener = next.clientId;
    this.connection.send(next);
  }

  upsert(message: WireMessage, isNew: boolean) {
    const cid = message.conversationId;
    this.seen(cid, message.seq);
    if (message.clientId) this.opened(message.clientId, cid);
    if (message.clientId && this.pending.value.some((m) => m.clientId === message.clientId)) {
      this.adopt(cid);
      this.pending.value = this.pending.value.filter((m) => m.clientId !== message.clientId);
    } else if (!this.conversationId.value && message.author === 'visitor') {
      // Another tab of this visitor started a conversation: follow it.
      this.adopt(cid);
    }
    if (cid !== this.conversationId.value) {
      if (isNew && message.author !== 'visitor') this.arrived(message, false);
      return;
    }
    const list = this.messages.value;
    const at = list.findIndex((m) => m.id === message.id);
    const known = at >= 0;
    this.messages.value = known
      ? list.map((m, i) => (i === at ? message : m))
      : [...list, message].sort((a, b) => a.seq - b.seq);
    if (this.streams.value[message.id]) {
      const { [message.id]: _done, ...rest } = this.streams.value;
      this.streams.value = rest;
    }
    if (message.author !== 'visitor' && this.typing.value) this.typing.value = null;
    if (!known && isNew) this.arrived(message, true);
  }

  delta({ conversationId: cid, messageId: id, index, delta: text }: AnswerDeltaFrame) {
    if (this.messages.value.some((m) => m.id === id)) return;
    const current = this.streams.value[id] ?? { conversationId: cid, parts: [], broken: false };
    if (current.broken || index < current.parts.length) return;
    // A gap (deltas lost while reconnecting): wait for answer.done's stored text.
    const next =
      index === current.parts.length ? { ...current, parts: [...current.parts, text] } : { ...current, broken: true };
    this.streams.value = { ...this.streams.value, [id]: next };
    if (this.typing.value?.who === 'ai') this.typing.value = null;
  }

  typingFrame({ conversationId: cid, who, typing, agent }: TypingServerFrame) {
    if (cid !== this.conversationId.value) return;
    if (this.typingTimer) clearTimeout(this.typingTimer);
    this.typing.value = typing
      ? { who, name: agent?.name ?? (who === 'ai' ? this.config.name : this.i18n.strings.value.chatMessage.agentName) }
      : null;
    // A lost "stopped typing" frame must not leave the dots forever.
    if (typing) this.typingTimer = setTimeout(() => (this.typing.value = null), 30_000);
  }

  conditionFrame({ conversationId: cid, seq, state, change }: ConditionFrame) {
    this.conversations.value = this.conversations.value?.map((c) => (c.id === cid ? { ...c, state } : c)) ?? null;
    if (cid !== this.conversationId.value) return;
    this.seen(cid, seq);
    this.condition.value = state;
    if (!change || change === 'started') return;
    if (this.notices.value.some((n) => n.seq === seq)) return;
    const s = this.i18n.strings.value;
    const text = {
      escalated: s.chatMessage.conversationEscalated,
      taken_over: fill(s.ui.takenOver, { name: state.agent?.name ?? s.chatMessage.agentName }),
      released: s.ui.released,
      resolved: s.ui.resolved,
      reopened: s.ui.reopened,
    }[change];
    this.notices.value = [...this.notices.value, { kind: 'notice', id: `n${seq}`, seq, text, change }];
    if (change === 'escalated') this.escalated(cid);
  }
}
