/**
 * The chat's state (signals) and actions. Components read the signals and call the actions;
 * only this model talks to the connection. Frames are applied idempotently: messages by id,
 * answer deltas by index, conditions by seq, so a replay after a reconnect repeats nothing.
 */
import { batch, computed, signal } from '@preact/signals';
import type {
  ClientFrame,
  ConditionChange,
  ConditionState,
  ConversationsFrame,
  HelloFrame,
  SendMessageFrame,
  ServerFrame,
  VisitorInfo,
  WidgetConfig,
  WidgetPrompt,
  WireMessage,
} from '../../shared/protocol.js';
import { LIMITS, PROTOCOL_VERSION } from '../../shared/protocol.js';
import { en, type Strings } from '../i18n/en.js';
import { fill } from '../i18n/locales.js';
import type { ConnectionStatus } from '../transport/connection.js';
import type { WidgetEvent } from './host.js';

export type Item =
  | { kind: 'message'; message: WireMessage; pending?: boolean }
  | { kind: 'stream'; id: string; text: string }
  | { kind: 'notice'; id: string; seq: number; text: string; change: ConditionChange };

export interface Transport {
  start(): void;
  send(frame: ClientFrame): void;
  reconnect(fresh?: boolean): void;
  stop(): void;
}

export interface SessionStore {
  read(): { token: string; conversationId: string | null } | null;
  write(patch: { conversationId?: string | null; token?: string; expiresAt?: string }): void;
  clear(): void;
}

export type View = 'chat' | 'home' | 'account';
export type OtpStage = 'details' | 'code';

interface Stream {
  conversationId: string;
  parts: string[];
  broken: boolean;
}

let counter = 0;
const clientId = () => `c${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 8)}`;

export class ChatModel {
  readonly open = signal(false);
  readonly expanded = signal(false);
  readonly view = signal<View>('chat');
  readonly strings = signal<Strings>(en);
  readonly locale = signal('en');
  readonly dark = signal(false);
  readonly conversationId = signal<string | null>(null);
  readonly messages = signal<WireMessage[]>([]);
  readonly pending = signal<WireMessage[]>([]);
  readonly notices = signal<Array<Extract<Item, { kind: 'notice' }>>>([]);
  readonly streams = signal<Record<string, Stream>>({});
  readonly condition = signal<ConditionState | null>(null);
  readonly typing = signal<{ who: 'ai' | 'agent'; name: string } | null>(null);
  readonly status = signal<ConnectionStatus>('idle');
  readonly visitor = signal<VisitorInfo | null>(null);
  readonly conversations = signal<ConversationsFrame['items'] | null>(null);
  readonly escalationOpen = signal(false);
  readonly otp = signal<{ stage: OtpStage; email: string; name: string; phone: string; resendAt: number; busy: boolean; error: string | null }>({
    stage: 'details', email: '', name: '', phone: '', resendAt: 0, busy: false, error: null,
  });
  readonly lead = signal<'hidden' | 'asking' | 'busy' | 'saved'>('hidden');
  readonly unread = signal(0);
  readonly error = signal<string | null>(null);
  /** An escalation waiting for the lead form (collectUserDetails ON_ESCALATION). */
  private escalateAfterLead = false;
  private lastSeq: Record<string, number> = {};
  private typingTimer: ReturnType<typeof setTimeout> | null = null;
  private started = false;
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
      if (s.conversationId === cid && !this.messages.value.some((m) => m.id === id)) out.push({ kind: 'stream', id, text: s.parts.join('') });
    }
    return out;
  });

  /** Follow-ups of the newest answer, while it is the newest message. */
  readonly followUps = computed<WidgetPrompt[]>(() => {
    const msgs = this.messages.value;
    const last = msgs[msgs.length - 1];
    if (!last || last.author !== 'ai' || this.pending.value.length || Object.keys(this.streams.value).length) return [];
    return last.followUps.map((f, i) => ({ id: `${last.id}:${i}`, title: f.title, description: f.description, link: f.link, isEscalationPrompt: f.isEscalationPrompt }));
  });

  constructor(
    readonly config: WidgetConfig,
    private readonly transport: Transport,
    private readonly session: SessionStore,
    private readonly emit: (event: WidgetEvent, detail?: unknown) => void,
  ) {
    const stored = session.read();
    if (stored?.conversationId) this.conversationId.value = stored.conversationId;
    if (config.userData.collectUserDetails === 'BEFORE_CONVERSATION' && !stored) this.lead.value = 'asking';
  }

  /** Connect when a previous visit left a session (history, live agent replies). */
  resume() {
    if (this.session.read()) this.connect();
  }

  /** Another tab of this visitor opened a conversation while this one shows none: follow it, its history replayed from the start. */
  follow(cid: string) {
    if (this.conversationId.value || this.pending.value.length) return;
    this.conversationId.value = cid;
    if (this.started) this.transport.reconnect();
    else this.connect();
  }

  private connect() {
    if (this.started) return;
    this.started = true;
    this.transport.start();
  }

  hello(): HelloFrame {
    const cid = this.conversationId.value;
    return { type: 'hello', v: PROTOCOL_VERSION, ...(cid ? { resume: { [cid]: this.lastSeq[cid] ?? 0 } } : {}) };
  }

  // ---- actions ------------------------------------------------------------------------------

  setOpen(open: boolean) {
    if (this.open.value === open) return;
    batch(() => {
      this.open.value = open;
      if (open) this.unread.value = 0;
    });
    this.emit(open ? 'open' : 'close');
    if (open) this.emit('unread', 0);
  }

  send(text: string, via?: { kind: 'starter' | 'followup'; id?: string }) {
    const body = text.trim().slice(0, LIMITS.maxMessageChars);
    if (!body) return;
    const cid = this.conversationId.value;
    const id = clientId();
    const optimistic: WireMessage = {
      id: `local-${id}`, conversationId: cid ?? '', author: 'visitor', name: null, text: body, sources: [], followUps: [],
      agent: null, feedback: null, clientId: id, createdAt: new Date().toISOString(), seq: Number.MAX_SAFE_INTEGER,
    };
    this.pending.value = [...this.pending.value, optimistic];
    this.view.value = 'chat';
    this.error.value = null;
    const frame: SendMessageFrame = { type: 'message.send', clientId: id, text: body, ...(cid ? { conversationId: cid } : {}), ...(via ? { via } : {}) };
    if (cid) this.transport.send(frame);
    else if (this.opener) this.waiting.push(frame);
    else {
      this.opener = id;
      this.transport.send(frame);
    }
    this.connect();
  }

  prompt(prompt: WidgetPrompt, kind: 'starter' | 'followup', openLink: (url: string) => void) {
    if (prompt.isEscalationPrompt) return void (this.escalationOpen.value = true);
    if (prompt.link) return openLink(prompt.link);
    this.send(prompt.description || prompt.title, { kind, id: kind === 'starter' ? prompt.id : undefined });
  }

  feedback(message: WireMessage, value: 'up' | 'down') {
    const next = message.feedback === value ? null : value;
    this.messages.value = this.messages.value.map((m) => (m.id === message.id ? { ...m, feedback: next } : m));
    this.transport.send({ type: 'feedback', conversationId: message.conversationId, messageId: message.id, feedback: next });
  }

  confirmEscalation() {
    this.escalationOpen.value = false;
    const cid = this.conversationId.value;
    if (this.config.userData.collectUserDetails === 'ON_ESCALATION' && !this.visitor.value?.email && this.lead.value !== 'saved') {
      this.escalateAfterLead = true;
      this.lead.value = 'asking';
      return;
    }
    if (cid) this.transport.send({ type: 'escalate', conversationId: cid });
  }

  submitLead(fields: { email?: string; name?: string; phone?: string; customFields?: Record<string, string | number> }) {
    this.lead.value = 'busy';
    const cid = this.conversationId.value;
    this.transport.send({ type: 'lead.submit', ...(cid ? { conversationId: cid } : {}), ...fields });
    this.connect();
  }

  requestOtp(details: { email: string; name: string; phone: string }) {
    this.otp.value = { ...this.otp.value, ...details, busy: true, error: null };
    this.transport.send({ type: 'otp.request', email: details.email, ...(details.name ? { name: details.name } : {}), ...(details.phone ? { phone: details.phone } : {}) });
    this.connect();
  }

  verifyOtp(code: string) {
    this.otp.value = { ...this.otp.value, busy: true, error: null };
    this.transport.send({ type: 'otp.verify', email: this.otp.value.email, code: code.trim() });
  }

  editOtpDetails() {
    this.otp.value = { ...this.otp.value, stage: 'details', error: null, busy: false };
  }

  logout() {
    this.transport.send({ type: 'logout' });
  }

  showHome() {
    this.view.value = 'home';
    if (this.session.read()) {
      this.connect();
      this.transport.send({ type: 'conversations.list' });
    }
  }

  openConversation(id: string) {
    this.switchTo(id);
    this.view.value = 'chat';
    this.transport.send({ type: 'conversation.open', conversationId: id, after: 0 });
  }

  newConversation() {
    this.switchTo(null);
    this.view.value = 'chat';
  }

  typingChanged(typing: boolean) {
    const cid = this.conversationId.value;
    if (cid && this.status.value === 'online') this.transport.send({ type: 'typing', conversationId: cid, typing });
  }

  private switchTo(id: string | null) {
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

  /** Forget the visitor on this device (host page `reset`). */
  reset() {
    this.transport.stop();
    this.session.clear();
    this.started = false;
    this.opener = null;
    this.waiting = [];
    this.switchTo(null);
    this.session.clear();
    batch(() => {
      this.pending.value = [];
      this.visitor.value = null;
      this.conversations.value = null;
      this.view.value = 'chat';
    });
  }

  // ---- frames -------------------------------------------------------------------------------

  setStatus(status: ConnectionStatus) {
    this.status.value = status;
  }

  /** The server ended the session for good (logged out here or in another tab). */
  ended() {
    this.reset();
  }

  apply(frame: ServerFrame) {
    switch (frame.type) {
      case 'ready':
        this.visitor.value = frame.visitor;
        this.emit('ready');
        if (this.view.value === 'home') this.transport.send({ type: 'conversations.list' });
        return;
      case 'ack':
        return this.acked(frame.clientId, frame.conversationId);
      case 'message.created':
      case 'message.updated':
      case 'answer.done':
        return this.upsert(frame.message, frame.type !== 'message.updated');
      case 'answer.delta':
        return this.delta(frame.conversationId, frame.messageId, frame.index, frame.delta);
      case 'typing':
        return this.typingFrame(frame.conversationId, frame.who, frame.typing, frame.agent?.name);
      case 'condition':
        return this.conditionFrame(frame.conversationId, frame.seq, frame.state, frame.change);
      case 'conversations':
        this.conversations.value = frame.items;
        return;
      case 'synced':
        this.seen(frame.conversationId, frame.seq);
        return;
      case 'otp.sent':
        this.otp.value = { ...this.otp.value, stage: 'code', busy: false, error: null, resendAt: Date.now() + frame.resendAfter * 1000 };
        return;
      case 'verified':
        this.session.write({ token: frame.token, expiresAt: frame.expiresAt });
        batch(() => {
          this.visitor.value = frame.visitor;
          this.otp.value = { ...this.otp.value, stage: 'details', busy: false, error: null };
        });
        this.transport.reconnect();
        return;
      case 'lead.saved':
        batch(() => {
          this.lead.value = 'saved';
          this.visitor.value = frame.visitor;
        });
        this.emit('lead', { visitor: frame.visitor });
        if (this.escalateAfterLead) {
          this.escalateAfterLead = false;
          const cid = this.conversationId.value;
          if (cid) this.transport.send({ type: 'escalate', conversationId: cid });
        }
        return;
      case 'logged_out':
        return this.ended();
      case 'error':
        return this.failed(frame.code, frame.message, frame.ref);
      case 'pong':
        return;
    }
  }

  private seen(cid: string, seq: number) {
    if (seq > (this.lastSeq[cid] ?? 0)) this.lastSeq[cid] = seq;
  }

  private adopt(cid: string) {
    if (this.conversationId.value) return;
    this.conversationId.value = cid;
    this.session.write({ conversationId: cid });
  }

  private acked(id: string, cid: string) {
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
    this.pending.value = this.pending.value.map((m) => (m.clientId && ids.has(m.clientId) ? { ...m, conversationId: cid } : m));
    for (const frame of waiting) this.transport.send({ ...frame, conversationId: cid });
  }

  /** The opener was refused for good: the next waiting message opens the conversation instead. */
  private openerRefused(id: string) {
    if (id !== this.opener) return;
    this.opener = null;
    const next = this.waiting.shift();
    if (!next) return;
    this.opener = next.clientId;
    this.transport.send(next);
  }

  private upsert(message: WireMessage, isNew: boolean) {
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
      if (isNew && message.author !== 'visitor') this.arrived(message);
      return;
    }
    const list = this.messages.value;
    const at = list.findIndex((m) => m.id === message.id);
    const known = at >= 0;
    this.messages.value = known ? list.map((m, i) => (i === at ? message : m)) : [...list, message].sort((a, b) => a.seq - b.seq);
    if (this.streams.value[message.id]) {
      const { [message.id]: _done, ...rest } = this.streams.value;
      this.streams.value = rest;
    }
    if (message.author !== 'visitor' && this.typing.value) this.typing.value = null;
    if (!known && isNew) {
      this.arrived(message);
      if (message.author === 'ai' && this.config.userData.collectUserDetails === 'DURING_CONVERSATION' && this.lead.value === 'hidden' && !this.visitor.value?.email) {
        this.lead.value = 'asking';
      }
    }
  }

  private arrived(message: WireMessage) {
    this.emit('message', message);
    if (message.author !== 'visitor' && !this.open.value && Date.now() - Date.parse(message.createdAt) < 120_000) {
      this.unread.value++;
      this.emit('unread', this.unread.value);
    }
  }

  private delta(cid: string, id: string, index: number, text: string) {
    if (this.messages.value.some((m) => m.id === id)) return;
    const current = this.streams.value[id] ?? { conversationId: cid, parts: [], broken: false };
    if (current.broken || index < current.parts.length) return;
    // A gap (deltas lost while reconnecting): wait for answer.done's stored text.
    const next = index === current.parts.length ? { ...current, parts: [...current.parts, text] } : { ...current, broken: true };
    this.streams.value = { ...this.streams.value, [id]: next };
    if (this.typing.value?.who === 'ai') this.typing.value = null;
  }

  private typingFrame(cid: string, who: 'ai' | 'agent', typing: boolean, name?: string | null) {
    if (cid !== this.conversationId.value) return;
    if (this.typingTimer) clearTimeout(this.typingTimer);
    this.typing.value = typing ? { who, name: name ?? (who === 'ai' ? this.config.name : this.strings.value.chatMessage.agentName) } : null;
    // A lost "stopped typing" frame must not leave the dots forever.
    if (typing) this.typingTimer = setTimeout(() => (this.typing.value = null), 30_000);
  }

  private conditionFrame(cid: string, seq: number, state: ConditionState, change?: ConditionChange) {
    this.conversations.value = this.conversations.value?.map((c) => (c.id === cid ? { ...c, state } : c)) ?? null;
    if (cid !== this.conversationId.value) return;
    this.seen(cid, seq);
    this.condition.value = state;
    if (!change || change === 'started') return;
    if (this.notices.value.some((n) => n.seq === seq)) return;
    const s = this.strings.value;
    const text = {
      escalated: s.chatMessage.conversationEscalated,
      taken_over: fill(s.ui.takenOver, { name: state.agent?.name ?? s.chatMessage.agentName }),
      released: s.ui.released,
      resolved: s.ui.resolved,
      reopened: s.ui.reopened,
    }[change];
    this.notices.value = [...this.notices.value, { kind: 'notice', id: `n${seq}`, seq, text, change }];
    if (change === 'escalated') this.emit('escalated', { conversationId: cid });
  }

  private failed(code: string, message: string, ref?: { type?: string; clientId?: string }) {
    if (ref?.type === 'otp.request' || ref?.type === 'otp.verify') {
      this.otp.value = { ...this.otp.value, busy: false, error: message };
      return;
    }
    if (ref?.type === 'lead.submit') this.lead.value = 'asking';
    if (ref?.clientId && code !== 'RATE_LIMITED') {
      this.pending.value = this.pending.value.filter((m) => m.clientId !== ref.clientId);
      this.openerRefused(ref.clientId);
    }
    this.error.value = message || this.strings.value.ui.error;
  }
}
