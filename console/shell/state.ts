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

/** The selected chatbot, or null when the route names none (or one the user does not reach). */
export const chatbot = computed(() => chatbots.value.find((c) => c.id === route.value.chatbotId) ?? null);
