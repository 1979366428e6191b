/**
 * The inbox's rules about a conversation: which of the four states it is in, what a member may
 * do with it in that state, who its visitor is in words, and what is unread.
 */
import type { Thread } from '../../../shared/conversations.js';

export type Conversation = Thread;
export type State = 'escalated' | 'takenOver' | 'ai' | 'resolved';
export const STATES: State[] = ['escalated', 'takenOver', 'ai', 'resolved'];

/** One state, the one a member acts on: a taken-over conversation may still carry its escalation. */
export function stateOf(c: Pick<Conversation, 'mode' | 'status' | 'escalated'>): State {
  if (c.status === 'RESOLVED') return 'resolved';
  if (c.mode === 'AGENT') return 'takenOver';
  return c.escalated ? 'escalated' : 'ai';
}

/** The actions that apply (spec section 3): nothing is offered that the API would refuse or that would do nothing. */
export function actionsFor(c: Pick<Conversation, 'mode' | 'status' | 'escalated' | 'agentId'>, me: string | null) {
  const open = c.status === 'OPEN';
  return {
    takeOver: open && (c.mode === 'AI' || c.agentId !== me),
    handBack: open && (c.mode === 'AGENT' || c.escalated),
    resolve: open,
    reopen: !open,
    reply: open,
  };
}

export const unreadOf = (c: Pick<Conversation, 'messageCount' | 'totalMessagesRead'>) =>
  Math.max(0, c.messageCount - c.totalMessagesRead);

// Names made from the visitor's id, so the same visitor keeps the same name on every screen.
const ADJECTIVES = [
  'Amber',
  'Azure',
  'Brave',
  'Bright',
  'Calm',
  'Clever',
  'Coral',
  'Cosmic',
  'Gentle',
  'Golden',
  'Happy',
  'Jade',
  'Kind',
  'Lively',
  'Lucky',
  'Mellow',
  'Misty',
  'Noble',
  'Olive',
  'Quiet',
  'Rapid',
  'Ruby',
  'Silver',
  'Sunny',
  'Swift',
  'Teal',
  'Velvet',
  'Witty',
];
const ANIMALS = [
  'Badger',
  'Beaver',
  'Crane',
  'Dolphin',
  'Falcon',
  'Fox',
  'Gecko',
  'Hare',
  'Heron',
  'Koala',
  'Lynx',
  'Marten',
  'Otter',
  'Owl',
  'Panda',
  'Puffin',
  'Raven',
  'Robin',
  'Seal',
  'Sparrow',
  'Swan',
  'Tiger',
  'Turtle',
  'Walrus',
  'Whale',
  'Wolf',
  'Wren',
  'Yak',
];

/** A stable, friendly made-up name for a visitor who gave none ("Amber Otter"): never a raw id. */
export function madeUpName(id: string): string {
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619) >>> 0;
  return `${ADJECTIVES[h % ADJECTIVES.length]} ${ANIMALS[Math.floor(h / ADJECTIVES.length) % ANIMALS.length]}`;
}

/** Who the visitor is in words: the name they gave, else their e-mail, else a made-up name. */
export function visitorName(c: Pick<Conversation, 'threadId' | 'chatUserId' | 'chatUser'>): string {
  return c.chatUser?.name?.trim() || c.chatUser?.email || madeUpName(c.chatUserId ?? c.threadId);
}

/** The page the visitor was on, when the site passed it (the widget's context). */
export function pageOf(context: Record<string, string> | undefined): string | null {
  const url = context?.url ?? context?.page ?? context?.href ?? null;
  return url && /^https?:\/\//i.test(url) ? url : null;
}

/** Does the conversation match a search: the visitor's name (given or made up), e-mail or the latest text. */
export function matches(c: Conversation, query: string): boolean {
  const q = query.trim().toLocaleLowerCase();
  if (!q) return true;
  return [visitorName(c), c.chatUser?.email, c.chatUser?.name, c.lastMessage?.text]
    .filter(Boolean)
    .some((s) => s!.toLocaleLowerCase().includes(q));
}

/** Newest activity first. */
export const latestFirst = (a: Conversation, b: Conversation) =>
  (b.lastMessageAt ?? b.startedAt).localeCompare(a.lastMessageAt ?? a.startedAt);
