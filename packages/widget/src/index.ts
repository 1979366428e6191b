/**
 * @parley/widget: the Parley chat widget in a single-page app. `Parley.load()` adds the owner's
 * widget.js once (the same script a site pastes); every other call goes through the widget's own
 * host-page queue (`window.parley`), which holds calls made before the script runs. So calls are
 * safe before `load`, `load` is idempotent across route changes and re-renders, and nothing here
 * keeps widget state of its own. Outside a browser (server rendering) the calls do nothing.
 */
import type { Boot, Controller, Identity, WidgetEvent, WidgetEvents } from './generated/widget/state/host.js';

export type { Identity, WidgetEvent, WidgetEvents };
export type { TeamMember, VisitorInfo, WireMessage } from './generated/shared/protocol.js';

export interface LoadOptions {
  /** The Parley server's address, e.g. `https://chat.example.com`. */
  serverUrl: string;
  chatbotId: string;
  /** `bubble` (default) or `inline` (the chat fills `target`). */
  mode?: Exclude<Boot['mode'], 'page'>;
  /** CSS selector of the element the inline chat fills; it may be rendered later or anew. */
  target?: string;
  theme?: Boot['theme'];
  /** Overrides the chatbot's locale (`de`, `fr`, …). */
  locale?: string;
  /** The bubble's look from the playground's snippet (its `data-bubble`), drawn before the settings arrive. */
  bubble?: string;
  /** A CSP nonce for the script tag (and the widget's style fallback). */
  nonce?: string;
}

/** A handler gets the detail its event carries: `message` a WireMessage, `unread` a count, … */
export type Handler<E extends WidgetEvent> = (detail: WidgetEvents[E]) => void;

export interface ParleyWidget {
  /** Adds widget.js once; resolves when it has run, rejects when it cannot be loaded. */
  load(options: LoadOptions): Promise<void>;
  open: Controller['open'];
  close: Controller['close'];
  toggle: Controller['toggle'];
  showBubble(): void;
  hideBubble(): void;
  /** Opens the window and sends as the visitor. */
  sendMessage: Controller['sendMessage'];
  /** A signed e-mail; a claim the server refuses is dropped and the visitor goes on anonymously. */
  identify: Controller['identify'];
  setLocale: Controller['setLocale'];
  setTheme(theme: Boot['theme']): void;
  /** Page context sent with the visitor's next messages (the same values again change nothing). */
  setContext(context: Record<string, string | number | boolean>): void;
  /** Forgets the visitor on this device. */
  reset: Controller['reset'];
  /** Removes the widget and its script; `load` may add it again. */
  destroy(): void;
  /** Subscribes; returns the function that unsubscribes (an effect's cleanup). */
  on<E extends WidgetEvent>(event: E, handler: Handler<E>): () => void;
  off<E extends WidgetEvent>(event: E, handler: Handler<E>): void;
}

type Command = [string, ...unknown[]];
interface Queue {
  push(...commands: Command[]): unknown;
  loaded?: true;
}

const inBrowser = typeof window !== 'undefined' && typeof document !== 'undefined';

/** The widget's queue: its API once widget.js ran, else the array it will read (not an element with id="parley"). */
function queue(): Queue {
  const w = window as unknown as { parley?: unknown };
  const q = w.parley as Queue | undefined;
  if (Array.isArray(q) || q?.loaded === true) return q!;
  const fresh: Command[] = [];
  w.parley = fresh;
  return fresh;
}

const push = (...command: Command) => {
  if (inBrowser) queue().push(command);
};

let loading: { key: string; script: HTMLScriptElement | null; promise: Promise<void> } | null = null;

function load(options: LoadOptions): Promise<void> {
  if (!inBrowser) return Promise.reject(new Error('@parley/widget: load() needs a browser (call it in an effect)'));
  if (!options?.chatbotId || !options.serverUrl)
    return Promise.reject(new TypeError('@parley/widget: load() needs serverUrl and chatbotId'));
  let src: string;
  try {
    src = new URL(`${options.serverUrl.replace(/\/+$/, '')}/widget.js`, location.href).href;
  } catch {
    return Promise.reject(new TypeError(`@parley/widget: serverUrl "${options.serverUrl}" is not a URL`));
  }
  const key = `${src} ${options.chatbotId}`;
  if (loading) {
    if (loading.key === key) return loading.promise;
    return Promise.reject(new Error('@parley/widget: another chatbot is loaded; call destroy() first'));
  }
  // Already on the page: a script tag of the page's own, or this module evaluated anew (hot reload).
  if (queue().loaded === true) {
    loading = { key, script: null, promise: Promise.resolve() };
    return loading.promise;
  }
  const script = document.createElement('script');
  script.src = src;
  script.async = true;
  script.dataset.chatbotId = options.chatbotId;
  if (options.mode) script.dataset.mode = options.mode;
  if (options.target) script.dataset.target = options.target;
  if (options.theme) script.dataset.theme = options.theme;
  if (options.locale) script.dataset.locale = options.locale;
  if (options.bubble) script.dataset.bubble = options.bubble;
  if (options.nonce) script.nonce = options.nonce;
  const promise = new Promise<void>((resolve, reject) => {
    script.addEventListener('load', () => resolve(), { once: true });
    script.addEventListener(
      'error',
      () => {
        // A later load() tries again.
        if (loading?.script === script) loading = null;
        script.remove();
        reject(new Error(`@parley/widget: ${src} could not be loaded`));
      },
      { once: true },
    );
  });
  loading = { key, script, promise };
  document.head.append(script);
  return promise;
}

export const Parley: ParleyWidget = {
  load,
  open: () => push('open'),
  close: () => push('close'),
  toggle: () => push('toggle'),
  showBubble: () => push('showBubble'),
  hideBubble: () => push('hideBubble'),
  sendMessage: (text) => push('sendMessage', text),
  identify: (identity) => push('identify', identity),
  setLocale: (locale) => push('setLocale', locale),
  setTheme: (theme) => push('setTheme', theme),
  setContext: (context) => push('setContext', context),
  reset: () => push('reset'),
  destroy() {
    push('destroy');
    loading?.script?.remove();
    loading = null;
  },
  on(event, handler) {
    push('on', event, handler);
    return () => push('off', event, handler);
  },
  off: (event, handler) => push('off', event, handler),
};
