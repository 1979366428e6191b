/**
 * The chat: one model per concern, and what crosses them. Components read the models' signals
 * and call actions (never assigning a signal); only the models talk to the connection. Server
 * frames go through one handler per frame type (`handlers`).
 *
 *   ui            window open, expanded, view, escalation dialog, unread count, error banner
 *   i18n          locale and strings
 *   connection    status, one start
 *   conversation  the conversation on screen, pending messages, answer streams, the list
 *   account       the visitor, the one-time code
 *   lead          the lead form
 */
import { batch, type ReadonlySignal, type Signal } from '@preact/signals';
import type {
  ErrorFrame,
  HelloFrame,
  ServerFrame,
  WidgetConfig,
  WidgetPrompt,
  WireMessage,
} from '../../shared/protocol.js';
import type { ConnectionStatus } from '../transport/connection.js';
import { AccountModel } from './account.js';
import { ConnectionModel, type Transport } from './connection.js';
import { ConversationModel, type Via } from './conversation.js';
import type { Emit } from './host.js';
import { I18nModel } from './i18n.js';
import { LeadModel } from './lead.js';
import type { SessionStore } from './session-store.js';
import { UiModel } from './ui.js';

/** A model as components see it: every signal read-only, so state changes only through actions. */
type ReadOnly<M> = { readonly [K in keyof M]: M[K] extends Signal<infer T> ? ReadonlySignal<T> : M[K] };

type FrameHandlers = { [K in ServerFrame['type']]: (frame: Extract<ServerFrame, { type: K }>) => void };

export class ChatModel {
  readonly ui: ReadOnly<UiModel>;
  readonly i18n: ReadOnly<I18nModel>;
  readonly connection: ReadOnly<ConnectionModel>;
  readonly conversation: ReadOnly<ConversationModel>;
  readonly account: ReadOnly<AccountModel>;
  readonly lead: ReadOnly<LeadModel>;

  constructor(
    readonly config: WidgetConfig,
    transport: Transport,
    private readonly session: SessionStore,
    private readonly emit: Emit,
  ) {
    const i18n = new I18nModel(config.localization);
    const connection = new ConnectionModel(transport);
    this.ui = new UiModel(emit);
    this.i18n = i18n;
    this.connection = connection;
    this.account = new AccountModel(connection, session);
    this.lead = new LeadModel(config, connection, !session.read());
    this.conversation = new ConversationModel(
      config,
      connection,
      session,
      i18n,
      (message, inView) => this.arrived(message, inView),
      (conversationId) => emit('escalated', { conversationId }),
    );
  }

  /** Connect when a previous visit left a session (history, live agent replies). */
  resume() {
    if (this.session.read()) this.connection.connect();
  }

  follow(cid: string) {
    this.conversation.follow(cid);
  }

  hello(): HelloFrame {
    return this.conversation.hello();
  }

  // ---- actions that span models -----------------------------------------------------------

  send(text: string, via?: Via) {
    if (!text.trim()) return;
    this.conversation.send(text, via);
    batch(() => {
      this.ui.show('chat');
      this.ui.clearError();
    });
  }

  prompt(prompt: WidgetPrompt, kind: 'starter' | 'followup', openLink: (url: string) => void) {
    if (prompt.isEscalationPrompt) return this.ui.askEscalation();
    if (prompt.link) return openLink(prompt.link);
    this.send(prompt.description || prompt.title, { kind, id: kind === 'starter' ? prompt.id : undefined });
  }

  confirmEscalation() {
    this.ui.closeEscalation();
    if (this.lead.askBeforeEscalation(this.account.visitor.value?.email)) return;
    this.conversation.escalate();
  }

  submitLead(fields: Parameters<LeadModel['submit']>[1]) {
    this.lead.submit(this.conversation.conversationId.value, fields);
  }

  showHome() {
    this.ui.show('home');
    if (this.session.read()) {
      this.connection.connect();
      this.conversation.list();
    }
  }

  openConversation(id: string) {
    this.conversation.open(id);
    this.ui.show('chat');
  }

  newConversation() {
    this.conversation.switchTo(null);
    this.ui.show('chat');
  }

  /** Forget the visitor on this device (host page `reset`). */
  reset() {
    this.connection.stop();
    this.session.clear();
    this.conversation.forget();
    this.session.clear();
    batch(() => {
      this.conversation.cleared();
      this.account.known(null);
      this.ui.show('chat');
    });
  }

  // ---- frames -------------------------------------------------------------------------------

  setStatus(status: ConnectionStatus) {
    this.connection.setStatus(status);
  }

  /** The server ended the session for good (logged out here or in another tab). */
  ended() {
    this.reset();
  }

  apply(frame: ServerFrame) {
    (this.handlers[frame.type] as (frame: ServerFrame) => void)(frame);
  }

  private readonly handlers: FrameHandlers = {
    ready: (f) => {
      this.account.known(f.visitor);
      this.emit('ready');
      if (this.ui.view.value === 'home') this.conversation.list();
    },
    ack: (f) => this.conversation.acked(f.clientId, f.conversationId),
    'message.created': (f) => this.conversation.upsert(f.message, true),
    'message.updated': (f) => this.conversation.upsert(f.message, false),
    'answer.done': (f) => this.conversation.upsert(f.message, true),
    'answer.delta': (f) => this.conversation.delta(f),
    typing: (f) => this.conversation.typingFrame(f),
    condition: (f) => this.conversation.conditionFrame(f),
    conversations: (f) => this.conversation.listed(f.items),
    synced: (f) => this.conversation.seen(f.conversationId, f.seq),
    'otp.sent': (f) => this.account.otpSent(f.resendAfter),
    verified: (f) => this.account.verified(f),
    'lead.saved': (f) => {
      let escalate = false;
      batch(() => {
        escalate = this.lead.saved();
        this.account.known(f.visitor);
      });
      this.emit('lead', { visitor: f.visitor });
      if (escalate) this.conversation.escalate();
    },
    logged_out: () => this.ended(),
    error: (f) => this.failed(f),
    pong: () => {},
  };

  private arrived(message: WireMessage, inView: boolean) {
    this.emit('message', message);
    this.ui.arrived(message);
    if (inView) this.lead.answered(message, this.account.visitor.value?.email);
  }

  private failed({ code, message, ref }: ErrorFrame) {
    if (ref?.type === 'otp.request' || ref?.type === 'otp.verify') return this.account.otpRefused(message);
    if (ref?.type === 'lead.submit') this.lead.refused();
    if (ref?.clientId && code !== 'RATE_LIMITED') this.conversation.refused(ref.clientId);
    this.ui.fail(message || this.i18n.strings.value.ui.error);
  }
}
