/**
 * The conversation shapes of the v2 API (types only). The spec shows Thread's fields and leaves
 * ThreadMessage and ChatUser open; these are ours.
 */

/** A visitor of a chatbot (spec: ChatUser). */
export interface ChatUser {
  id: string;
  email: string | null;
  name: string | null;
  phone: string | null;
  /** The e-mail address was verified with a one-time code. */
  verified: boolean;
  /** What the site passed about the visitor's page (the widget's `context`). */
  context: Record<string, string>;
  /** The page the visitor last wrote from, as the widget saw it (http(s), no fragment); null before their first message. */
  page: string | null;
  createdAt: string;
}

/** A place in a source that an answer cites. */
export interface MessageSource {
  documentId: string;
  title: string;
  url: string | null;
  /** Straight to the place: a `#:~:text=` fragment, `#page=N` of a PDF, `t=Ns` of a video. */
  link: string | null;
  headingPath: string[];
  page?: number;
  startSeconds?: number;
}

export interface MessageFollowUp {
  title: string;
  description: string;
  link: string | null;
  isEscalationPrompt: boolean;
}

/** One message of a conversation (spec: ThreadMessage). */
export interface ThreadMessage {
  id: string;
  threadId: string;
  /** Who wrote it: the visitor, the AI, a team member (agent) or the system. */
  author: 'visitor' | 'ai' | 'agent' | 'system';
  /** The author's display name when it was written: the visitor's name (null until given), the bot's name (localised botName or the chatbot title), the agent's name. */
  name: string | null;
  text: string;
  /** AI answers: the places cited (empty when the chatbot hides sources). */
  sources: MessageSource[];
  /** AI answers: suggested next questions (smart and owner-defined). */
  followUps: MessageFollowUp[];
  /** Agent messages: who replied. */
  agent: { id: string; name: string } | null;
  /** AI answers: the visitor's (or a team member's) rating. */
  feedback: 'up' | 'down' | null;
  feedbackComment: string | null;
  /** AI answers corrected by the team keep the AI's own text here. */
  originalText: string | null;
  /** AI answers the knowledge could not support (recorded as a knowledge gap). */
  unanswered: boolean;
  /** The conversation event number of this message (only grows). */
  seq: number;
  createdAt: string;
  updatedAt: string;
}

/** Characters of `Thread.lastMessage.text`: enough to tell conversations apart in a list. */
export const LAST_MESSAGE_PREVIEW = 160;

/** A conversation (spec: Thread). */
export interface Thread {
  threadId: string;
  chatbotId: string;
  chatUserId: string | null;
  chatUser: ChatUser | null;
  mode: 'AI' | 'AGENT';
  status: 'OPEN' | 'RESOLVED';
  escalated: boolean;
  /** The team member who took the conversation over, when mode is AGENT. */
  agentId: string | null;
  startedAt: string;
  updatedAt: string;
  endedAt: string | null;
  webhookUrl: string | null;
  webhookToken: string | null;
  totalMessagesRead: number;
  messageCount: number;
  lastMessageAt: string | null;
  /** The latest message, its text cut to `LAST_MESSAGE_PREVIEW` characters (what a list shows). */
  lastMessage: { id: string; author: ThreadMessage['author']; text: string; createdAt: string } | null;
  tags: { id: string; name: string; color: string | null }[];
  /** The last event number; a client that saw it has seen every change before it. */
  seq: number;
}
