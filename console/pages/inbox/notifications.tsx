/**
 * Browser notifications of new escalations, only once the member asked for them (the permission
 * prompt comes from their click, never on load) and only while the inbox's tab is not in front.
 */
import { useState } from 'preact/hooks';
import type { ThreadMessage } from '../../../shared/conversations.js';
import { get } from '../../api.js';
import type { Conversation } from './conversation.js';
import { useInboxStrings } from './strings.js';

const supported = () => typeof Notification !== 'undefined';
/** Whether a notification would show now: allowed, and the inbox's tab is not in front. */
export const canNotify = () => supported() && Notification.permission === 'granted' && document.hidden;

export function notifyEscalation(title: string, tag: string, body?: string | null) {
  if (!canNotify()) return;
  const n = new Notification(title, { tag: `parley-escalation-${tag}`, ...(body ? { body } : {}) });
  n.onclick = () => window.focus();
}

/** Characters of a notification's body: about two lines where the system shows them. */
export const BODY_CHARS = 120;

/** What the visitor wrote last (not the AI's answer), on one line, cut at a word to `max` characters. */
export function visitorAsked(messages: Pick<ThreadMessage, 'author' | 'text'>[], max = BODY_CHARS): string | null {
  const last = messages.findLast((m) => m.author === 'visitor' && m.text.trim());
  if (!last) return null;
  const line = last.text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const cut = line.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * The body of a new escalation's notification. The list's latest message is usually the AI's
 * answer or the escalation notice, so one read of the messages finds the visitor's own words.
 */
export async function escalationBody(base: string, c: Conversation): Promise<string | null> {
  if (c.lastMessage?.author === 'visitor') return visitorAsked([c.lastMessage]);
  // Messages come oldest first: past one page the visitor's latest words are not in it.
  if (c.messageCount > 500) return null;
  const page = await get<{ messages: ThreadMessage[] }>(`${base}/${c.threadId}/messages`, { query: { limit: 500 } });
  return visitorAsked(page.messages);
}

export function Notifications() {
  const t = useInboxStrings();
  const [permission, setPermission] = useState(supported() ? Notification.permission : 'denied');
  if (!supported()) return null;
  if (permission === 'granted') return <p class="muted small">{t.notifyOn}</p>;
  if (permission === 'denied') return <p class="muted small">{t.notifyBlocked}</p>;
  return (
    <button
      type="button"
      class="inbox-notify"
      onClick={() => void Notification.requestPermission().then(setPermission)}
    >
      {t.notify}
    </button>
  );
}
