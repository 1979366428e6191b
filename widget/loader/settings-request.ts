/**
 * The first statement of widget.js (index.ts imports this module before any other): the chatbot's
 * public settings are requested before the rest of the script is even evaluated. The bubble waits
 * on two requests in a row (widget.js, then these settings), so every moment the second one starts
 * earlier shows the bubble earlier. A snippet carrying the bubble's look (data-bubble) needs no
 * settings to draw, so there the request waits one task and the bubble's frame goes first.
 */
import type { WidgetConfig } from '../../shared/protocol.js';

/** The script tag widget.js runs from (only known while it first runs). */
export const script: HTMLScriptElement | null =
  (document.currentScript as HTMLScriptElement | null) ??
  document.querySelector<HTMLScriptElement>('script[data-chatbot-id][src*="widget.js"]');

/** The settings to draw with, or null when this script has nothing to draw (see below). */
export const settingsRequest: Promise<WidgetConfig> | null = request();

function request(): Promise<WidgetConfig> | null {
  const data = script?.dataset;
  // Our API object, not the page's element with id="parley" (which the browser also names window.parley).
  const loaded = (window as { parley?: { loaded?: unknown } }).parley?.loaded === true;
  // No chatbot, or a second copy of widget.js on the page (the first one installed the API).
  if (!data?.chatbotId || loaded) return null;
  if (data.preview !== undefined) {
    // The playground previews settings it has not saved: it hands the config to draw with.
    const unsaved = (window as { parleyPreview?: WidgetConfig }).parleyPreview;
    if (unsaved) return Promise.resolve(unsaved);
  }
  const base = data.server ?? new URL(script!.src, location.href).origin;
  const url = `${base}/api/widget/${encodeURIComponent(data.chatbotId)}/config`;
  // The playground redraws right after saving; pages use the cached settings (fresh 60 s, then
  // drawn from once more while revalidated).
  const cache: RequestCache = data.preview !== undefined ? 'no-cache' : 'default';
  // 'include' like the script tag's own request, so this one reuses its connection (browsers
  // keep credentialed and uncredentialed requests on separate connections); the server reads no
  // cookie here. Should a proxy in front of the server drop the CORS header credentials need,
  // the request is made once more without them.
  const get = () =>
    fetch(url, { credentials: 'include', cache }).catch(() => fetch(url, { credentials: 'omit', cache }));
  const started = data.bubble
    ? new Promise<Response>((resolve, reject) => setTimeout(() => get().then(resolve, reject)))
    : get();
  return started.then(async (res) => {
    if (res.ok) return ((await res.json()) as { data: WidgetConfig }).data;
    throw new Error(await refusal(res, data.chatbotId!, base));
  });
}

/** Why the settings were refused, in words for the site's developer (read in the console): name what to fix. */
async function refusal(res: Response, chatbotId: string, base: string): Promise<string> {
  if (res.status === 404)
    return `no chatbot with the id "${chatbotId}" on ${base} (data-chatbot-id of the widget.js script tag)`;
  const code = await res.json().then(
    (e: { error?: { code?: string } }) => e?.error?.code,
    () => undefined,
  );
  if (code === 'ORIGIN_NOT_ALLOWED')
    return `this site is not in the chatbot's allowed domains (add ${location.host} to allowedDomains in the chatbot's settings)`;
  return `settings ${res.status}`;
}
