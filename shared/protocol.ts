/**
 * The widget <-> server protocol (types only: the widget imports this at zero bytes).
 *
 * One WebSocket per visitor at `/api/widget/ws` (or, when the upgrade is stripped, the same
 * server frames as Server-Sent Events from `/api/widget/sse` with client frames POSTed to
 * `/api/widget/frames`). Every frame is one JSON object discriminated on `type`.
 *
 * Numbers and resume: every event of a conversation carries `seq`, the conversation's event
 * number persisted with the event. A client remembers the highest `seq` it saw per conversation
 * and sends it in `hello.resume`; the server replays exactly the events after it, in order, then
 * a `condition` frame with the current state. `answer.delta` frames are transient (not stored,
 * no `seq` of their own): they carry the `seq` the finished answer will follow, and a client
 * that missed some rebuilds the answer from the stored `message.created` that `answer.done`
 * announces.
 */
import type { MessageFollowUp, MessageSource } from './conversations.js';

/** Bumped on any incompatible change; the server refuses a hello with another major version. */
export const PROTOCOL_VERSION = 1;

/** WebSocket subprotocol a client offers: `parley.v1` plus `parley.session.<token>`. */
export const WS_SUBPROTOCOL = 'parley.v1';
export const WS_SESSION_PROTOCOL_PREFIX = 'parley.session.';

/** Close codes the server uses (1008 policy, 4xxx ours). */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  policy: 1008,
  tooBig: 1009,
  /** The session token is missing, expired or invalid: get a new session, then reconnect. */
  sessionInvalid: 4001,
  /** Origin not in the chatbot's allowed domains. */
  originRefused: 4003,
  /** Too many sockets for this IP or visitor. */
  tooManySockets: 4029,
  /** The reader fell behind (backpressure); reconnect and resume. */
  slowConsumer: 4008,
  /** Logged out (from this or another tab). */
  loggedOut: 4010,
} as const;

// ---------------------------------------------------------------------------------------------
// Public HTTP shapes

/** `POST /api/widget/{chatbotId}/session` body. */
export interface SessionRequest {
  /** A previous session token to renew (same visitor, same history). */
  renew?: string;
  /** Host-page identity: an e-mail signed with the chatbot's identity secret (HMAC-SHA256 hex). */
  identity?: { email: string; signature: string; name?: string };
  /** Page context the host page passes along (URL, title, custom fields), shown to the team and the answer. */
  context?: Record<string, string>;
  locale?: string;
}

/** `POST /api/widget/{chatbotId}/session` data. */
export interface SessionResponse {
  token: string;
  /** ISO 8601; renew before it. */
  expiresAt: string;
  visitor: VisitorInfo;
}

export interface VisitorInfo {
  id: string;
  email: string | null;
  name: string | null;
  phone: string | null;
  /** Verified by OTP or a signed identity. */
  verified: boolean;
}

// ---------------------------------------------------------------------------------------------
// Client frames: declared once, as the schemas the server checks them with (client-frames.ts);
// re-exported here as types only, so importing this file never pulls in TypeBox.

export type {
  ClientFrame,
  EscalateFrame,
  FeedbackFrame,
  HelloFrame,
  LeadFrame,
  ListConversationsFrame,
  LogoutFrame,
  OpenConversationFrame,
  OtpRequestFrame,
  OtpVerifyFrame,
  PingFrame,
  SendMessageFrame,
  TypingFrame,
} from './client-frames.js';

// ---------------------------------------------------------------------------------------------
// Server frames

/**
 * A team member as visitors see them. `name` is their display name, null when they have none
 * (the widget then writes its chatMessage.agentName text); never their e-mail address unless
 * they chose it as their name.
 */
export interface TeamMember {
  id: string;
  name: string | null;
  avatarUrl: string | null;
}

/** A message as the widget shows it (`name` of a team reply: the member's display name, as `agent.name`). */
export interface WireMessage {
  id: string;
  conversationId: string;
  author: 'visitor' | 'ai' | 'agent' | 'system';
  name: string | null;
  text: string;
  sources: MessageSource[];
  followUps: MessageFollowUp[];
  agent: TeamMember | null;
  feedback: 'up' | 'down' | null;
  /** The client id of the visitor message that created it (echoed so the sender can match it). */
  clientId: string | null;
  createdAt: string;
  seq: number;
}

export type ConditionState = {
  mode: 'AI' | 'AGENT';
  status: 'OPEN' | 'RESOLVED';
  escalated: boolean;
  agent: TeamMember | null;
};

export interface ReadyFrame {
  type: 'ready';
  v: number;
  visitor: VisitorInfo;
  /** Heartbeat the server expects (ms); it pings, and closes a socket silent for twice this. */
  heartbeatMs: number;
}
export interface MessageCreatedFrame {
  type: 'message.created';
  conversationId: string;
  seq: number;
  message: WireMessage;
}
export interface MessageUpdatedFrame {
  type: 'message.updated';
  conversationId: string;
  seq: number;
  message: WireMessage;
}
export interface AnswerDeltaFrame {
  type: 'answer.delta';
  conversationId: string;
  /** The id the stored answer will have. */
  messageId: string;
  /** Position of this delta in the answer (0, 1, 2…): a client drops repeats and detects gaps. */
  index: number;
  delta: string;
}
export interface AnswerDoneFrame {
  type: 'answer.done';
  conversationId: string;
  seq: number;
  message: WireMessage;
}
export interface TypingServerFrame {
  type: 'typing';
  conversationId: string;
  who: 'ai' | 'agent';
  typing: boolean;
  agent?: TeamMember;
}
export type ConditionChange = 'started' | 'escalated' | 'taken_over' | 'released' | 'resolved' | 'reopened';
export interface ConditionFrame {
  type: 'condition';
  conversationId: string;
  seq: number;
  /** What happened; absent on the state sent after a resume. */
  change?: ConditionChange;
  state: ConditionState;
}
export interface ConversationsFrame {
  type: 'conversations';
  items: Array<{
    id: string;
    lastMessage: string | null;
    lastMessageAt: string | null;
    seq: number;
    state: ConditionState;
  }>;
}
/** Sent after a resume or open has replayed everything after the client's seq. */
export interface SyncedFrame {
  type: 'synced';
  conversationId: string;
  seq: number;
}
export interface AckFrame {
  type: 'ack';
  /** The client id of the message.send this acknowledges (stored; a resend is a no-op). */
  clientId: string;
  conversationId: string;
  messageId: string;
  seq: number;
}
export interface OtpSentFrame {
  type: 'otp.sent';
  email: string;
  /** Seconds before another code may be requested. */
  resendAfter: number;
}
export interface VerifiedFrame {
  type: 'verified';
  visitor: VisitorInfo;
  /** A new session token bound to the verified visitor (history on any device). */
  token: string;
  expiresAt: string;
}
export interface LeadSavedFrame {
  type: 'lead.saved';
  visitor: VisitorInfo;
}
export interface LoggedOutFrame {
  type: 'logged_out';
}
export interface PongFrame {
  type: 'pong';
}
export interface ErrorFrame {
  type: 'error';
  /** The spec's codes (VALIDATION_FAILED, CONVERSATION_CLOSED, RATE_LIMITED, …). */
  code: string;
  message: string;
  /** The client frame this answers, when known. */
  ref?: { type?: string; clientId?: string; conversationId?: string };
  /** VALIDATION_FAILED: the failing fields (as in the REST envelope). */
  details?: unknown;
}

export type ServerFrame =
  | ReadyFrame
  | MessageCreatedFrame
  | MessageUpdatedFrame
  | AnswerDeltaFrame
  | AnswerDoneFrame
  | TypingServerFrame
  | ConditionFrame
  | ConversationsFrame
  | SyncedFrame
  | AckFrame
  | OtpSentFrame
  | VerifiedFrame
  | LeadSavedFrame
  | LoggedOutFrame
  | PongFrame
  | ErrorFrame;

// ---------------------------------------------------------------------------------------------
// SSE fallback (when a proxy strips the WebSocket upgrade)
//
// `POST /api/widget/sse` with `Authorization: Bearer <session token>` and the hello frame as the
// body answers `text/event-stream`: one server frame per event (`data:` JSON), and `event: close`
// with `{ code, reason }` before the server ends it. Client frames other than hello go one per
// `POST /api/widget/frames` (same header); the frames meant for that request (ack, errors,
// lists) come back in `data.frames`, conversation events on the stream.

/**
 * The team's live stream (`/api/v2/stream`, a v2 token with conversations:read) carries the
 * server frames above for every chatbot the token may see, and these. Client frames: hello
 * (resume, token), conversation.open, typing (as the token's user: `typing` who `agent` to the
 * visitor), ping.
 */
export interface TeamReadyFrame {
  type: 'team.ready';
  v: number;
  /** The chatbots this stream carries (the token's reach at connect time). */
  chatbotIds: string[];
  heartbeatMs: number;
}
export interface VisitorTypingFrame {
  type: 'visitor.typing';
  conversationId: string;
  typing: boolean;
}
export type TeamFrame = ServerFrame | TeamReadyFrame | VisitorTypingFrame;

/** Limits shared by both sides. */
export const LIMITS = {
  maxPayloadBytes: 64 * 1024,
  maxMessageChars: 4000,
  clientIdMax: 64,
  /** The page a visitor writes from (`message.send` `page`): an http(s) address without its fragment. */
  pageUrlMax: 2048,
} as const;

// ---------------------------------------------------------------------------------------------
// `GET /api/widget/{chatbotId}/config` data: only what the widget needs (never instructions,
// personas, prompts, webhook targets or tokens, secrets, metadata or extraData).

/** Spec QuickPrompt (starter) / FollowUpPrompt: a click sends `description`, or opens `link` when set. */
export interface WidgetPrompt {
  id: string;
  title: string;
  description: string;
  link: string | null;
  isEscalationPrompt?: boolean;
}

export interface WidgetConfig {
  chatbotId: string;
  /** The localised botName, else the chatbot title. */
  name: string;
  /** BCP 47 tag of the widget's own text (`en` when the setting is null). */
  locale: string;
  /**
   * welcomeMessage, placeholderText and watermark.text: null while the setting still holds the
   * English text a chatbot starts with (the widget writes its own text in `locale`), '' when the
   * owner cleared it (nothing shown), else the owner's text.
   */
  appearance: {
    /** null: the welcome message is used. */
    tooltip: string | null;
    hideTooltip: boolean;
    welcomeMessage: string | null;
    placeholderText: string | null;
    brandColor: string;
    brandTextColor: string;
    rtl: boolean;
    autoOpenChatWindowInDesktop: 'ALWAYS_OPEN_WITH_DELAY' | 'DONT_OPEN';
    autoOpenChatWindowInMobile: 'ALWAYS_OPEN_WITH_DELAY' | 'DONT_OPEN';
    autoOpenChatWindowDelayInDesktop: number;
    autoOpenChatWindowDelayInMobile: number;
    distanceFromBottom: number;
    horizontalDistance: number;
    fontSize: number;
    iconSize: 'SMALL' | 'MEDIUM' | 'LARGE';
    iconPosition: 'BOTTOM_RIGHT' | 'BOTTOM_LEFT';
    height: number | null;
    maxWidth: number;
    ctaText: string | null;
    ctaLink: string | null;
  };
  /** Absolute URLs of the uploaded icons (null: the widget's built-in icon). */
  icons: { icon: string | null; person: string | null; agent: string | null; bubble: string | null };
  watermark: { hide: boolean; text: string | null; link: string | null; iconUrl: string | null };
  /** The owner's localisation overrides, group by group, as the settings hold them (spec ChatbotLocalizationSettings). */
  localization: Record<string, unknown> | null;
  chat: {
    mode: 'AI_WITH_HUMAN_ESCALATION' | 'AI_ONLY' | 'HUMAN_ONLY';
    hideSources: boolean;
    hideFeedbackButtons: boolean;
    disableSmartFollowUpPrompts: boolean;
    smartFollowUpPromptsCount: number;
  };
  userData: {
    collectUserDetails: 'DONT_COLLECT' | 'BEFORE_CONVERSATION' | 'DURING_CONVERSATION' | 'ON_ESCALATION';
    collectUserData: { name: boolean; phone: boolean };
    leadFields: Array<{
      key: string;
      label: string;
      type: 'text' | 'email' | 'phone' | 'number' | 'select';
      required: boolean;
      options?: string[];
    }>;
  };
  starters: WidgetPrompt[];
  followUps: WidgetPrompt[];
}
