/**
 * The console's URL is its state: /console/<chatbotId>/<page> for a chatbot's page, /console/<page>
 * for an account page (the chatbot list). Links are plain <a href> (open in a new tab works); a
 * click on one is handled here without reloading.
 */
import { pageById } from '../registry.js';
import { route, type Route, selectChatbot } from './state.js';

export const BASE = '/console';

export function parse(pathname: string): Route {
  const parts = pathname
    .slice(BASE.length)
    .split('/')
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  if (!parts.length) return { chatbotId: null, page: null };
  const page = pageById(parts[0]);
  if (page && !page.chatbot) return { chatbotId: null, page: page.id };
  return { chatbotId: parts[0], page: parts[1] ?? null };
}

/** The URL of a page: a chatbot page needs the chatbot's id. */
export function href(page: string, chatbotId?: string | null): string {
  return chatbotId ? `${BASE}/${encodeURIComponent(chatbotId)}/${page}` : `${BASE}/${page}`;
}

export function navigate(url: string, options: { replace?: boolean } = {}) {
  if (url !== location.pathname + location.search) {
    if (options.replace) history.replaceState(null, '', url);
    else history.pushState(null, '', url);
  }
  sync();
}

function sync() {
  route.value = parse(location.pathname);
  if (route.value.chatbotId) selectChatbot(route.value.chatbotId);
}

export function startRouter() {
  sync();
  addEventListener('popstate', sync);
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element | null)?.closest?.('a');
    if (!a || a.target || a.hasAttribute('download') || a.origin !== location.origin) return;
    if (a.pathname !== BASE && !a.pathname.startsWith(`${BASE}/`)) return;
    e.preventDefault();
    navigate(a.pathname + a.search);
  });
}
