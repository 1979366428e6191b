/**
 * Stored rows as the API and the realtime frames show them: a message, a chat user, a thread
 * with its visitor, tags and a preview of its latest message.
 */
import {
  type ChatUser,
  LAST_MESSAGE_PREVIEW,
  type MessageSource,
  type Thread,
  type ThreadMessage,
} from '../../../shared/conversations.js';
import type { VisitorInfo } from '../../../shared/protocol.js';
import type { Store } from '../ports.js';
import { maskSecret } from '../secret-settings.js';
import type { ChatUserRecord, ConversationRecord, MessageRecord } from './ports.js';

export const messageView = (m: MessageRecord): ThreadMessage => ({
  id: m.id,
  threadId: m.conversationId,
  author: m.author,
  name: typeof m.meta.name === 'string' ? m.meta.name : m.author === 'agent' ? m.agentName : null,
  text: m.text,
  sources: m.sources.map((s): MessageSource => ({
    documentId: s.documentId,
    title: s.title,
    url: s.url,
    link: s.link,
    headingPath: s.location?.headingPath ?? [],
    ...(s.location?.page !== undefined && { page: s.location.page }),
    ...(s.location?.startSeconds !== undefined && { startSeconds: s.location.startSeconds }),
  })),
  followUps: (m.meta.followUps as ThreadMessage['followUps']) ?? [],
  agent: m.agentId ? { id: m.agentId, name: m.agentName ?? '' } : null,
  feedback: m.feedback,
  feedbackComment: m.feedbackComment,
  originalText: m.originalText,
  unanswered: m.meta.unanswered === true,
  seq: m.seq,
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
});

/** A message as a list shows it: its text's first characters (whole code points), `…` when cut. */
export function preview(m: MessageRecord | undefined): Thread['lastMessage'] {
  if (!m) return null;
  const chars = [...m.text];
  const text =
    chars.length > LAST_MESSAGE_PREVIEW
      ? `${chars
          .slice(0, LAST_MESSAGE_PREVIEW - 1)
          .join('')
          .trimEnd()}…`
      : m.text;
  return { id: m.id, author: m.author, text, createdAt: m.createdAt };
}

/** The visitor as the widget knows itself (the protocol's VisitorInfo). */
export const visitorInfo = (u: ChatUserRecord): VisitorInfo => ({
  id: u.id,
  email: u.email,
  name: u.name,
  phone: u.phone,
  verified: u.verified,
});

export const chatUserView = (u: ChatUserRecord): ChatUser => ({
  ...visitorInfo(u),
  context: pageContext(u.metadata),
  page: typeof u.metadata.page === 'string' ? u.metadata.page : null,
  createdAt: u.createdAt,
});

/** The page context stored with the visitor's session (widget.service cleans it), as strings only. */
function pageContext(metadata: Record<string, unknown>): Record<string, string> {
  const context = metadata.context;
  if (!context || typeof context !== 'object') return {};
  return Object.fromEntries(Object.entries(context).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** Threads of these conversations, in their order: tags, chat users and latest messages read once for all. */
export async function threadViews(store: Store, list: ConversationRecord[]): Promise<Thread[]> {
  const tags = await store.conversations.tags(list.map((c) => c.id));
  const ids = list.flatMap((c) => (c.chatUserId ? [c.chatUserId] : []));
  const users = new Map(
    (await store.conversations.chatUsers.many(ids)).map((u): [string, ChatUserRecord] => [u.id, u]),
  );
  const latest = new Map(
    (await store.conversations.messages.latest(list.map((c) => c.id))).map((m): [string, MessageRecord] => [
      m.conversationId,
      m,
    ]),
  );
  return list.map((c) => {
    const user = c.chatUserId ? users.get(c.chatUserId) : null;
    return {
      threadId: c.id,
      chatbotId: c.chatbotId,
      chatUserId: c.chatUserId,
      chatUser: user ? chatUserView(user) : null,
      mode: c.mode,
      status: c.status,
      escalated: c.escalated,
      agentId: c.agentId,
      startedAt: c.createdAt,
      updatedAt: c.updatedAt,
      endedAt: c.endedAt,
      webhookUrl: c.webhookUrl,
      webhookToken: maskSecret(c.webhookToken),
      totalMessagesRead: c.totalMessagesRead,
      messageCount: c.messageCount,
      lastMessageAt: c.lastMessageAt,
      lastMessage: preview(latest.get(c.id)),
      tags: tags.get(c.id) ?? [],
      seq: c.seq,
    };
  });
}

export const threadView = async (store: Store, c: ConversationRecord): Promise<Thread> =>
  (await threadViews(store, [c]))[0];
