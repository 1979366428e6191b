/**
 * What every page may read: the signed-in user and their scopes (GET /me), the chatbots they
 * reach, the route (from the URL) and the selected chatbot. Signals: a page that reads one
 * re-renders when it changes.
 */
import { computed, signal } from '@preact/signals';
import { get, listAll } from '../api.js';

export interface Me {
  user: { id: string; email: string; name: string | null; role: 'owner' | 'admin' | 'member' };
  account: { id: string; name: string; plan: string; active: boolean };
  scopes: string[];
}

export interface Chatbot {
  id: string;
  title: string;
  description: string;
  createdAt: string;
  updatedAt: string;
  settings: Record<string, Record<string, unknown>>;
}

export const me = signal<Me | null>(null);
export const chatbots = signal<Chatbot[]>([]);
/** The chatbot list is being (re)loaded. */
export const chatbotsLoading = signal(false);

/** The user's role allows `scope` (what the nav and the pages' buttons check). */
export const can = (scope: string) => me.value?.scopes.includes(scope) ?? false;

export async function loadMe() {
  me.value = await get<Me>('/me');
}

/** Reloads the chatbot list (after a create, rename or delete). */
export async function reloadChatbots() {
  chatbotsLoading.value = true;
  try {
    chatbots.value = can('chatbots:read') ? await listAll<Chatbot>('/chatbots', 'chatbots') : [];
  } finally {
    chatbotsLoading.value = false;
  }
}

/** The URL as the console reads it: /console/<chatbotId>/<page> or /console/<page>. */
export interface Route {
  chatbotId: string | null;
  page: string | null;
}

export const route = signal<Route>({ chatbotId: null, page: null });

const LAST_CHATBOT = 'parley.console.chatbot';
/** The chatbot chosen last in this browser: still selected on an account page (the chatbot list). */
export const lastChatbotId = signal<string | null>(globalThis.localStorage?.getItem(LAST_CHATBOT) ?? null);

export function selectChatbot(id: string) {
  lastChatbotId.value = id;
  globalThis.localStorage?.setItem(LAST_CHATBOT, id);
}

/**
 * The selected chatbot: the one the URL names (null when the user does not reach it), else on an
 * account page the one chosen last, else the newest.
 */
export const chatbot = computed(() => {
  const list = chatbots.value;
  if (route.value.chatbotId) return list.find((c) => c.id === route.value.chatbotId) ?? null;
  return list.find((c) => c.id === lastChatbotId.value) ?? list[0] ?? null;
});
