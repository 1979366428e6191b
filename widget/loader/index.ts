/**
 * widget.js: the classic script a site owner pastes. It reads the chatbot's public settings,
 * draws the bubble in a shadow root and installs the host-page API (`window.parley`, a queue
 * usable before this script loads). The chat window is a separate chunk imported on intent:
 * hover, focus, click, auto-open, an API call, or a session left by a previous visit.
 */
// First: the settings request starts before anything else of this script is evaluated.
import { script, settingsRequest } from './settings-request.js';
import type { WidgetConfig } from '../../shared/protocol.js';
import type { Boot, Controller, Emit, Host } from '../state/host.js';
import css from './bubble.css?inline';
import { adoptStyles } from './styles.js';
import { listenToNative, postToNative } from './bridge.js';
import { createLauncher, type Launcher, scheduleAutoOpen } from './launcher.js';
import { type BubbleLook, lookOf, parseBubble } from './snippet-look.js';

type Command = [string, ...unknown[]];
type Listener = (detail?: unknown) => void;
interface Api {
  push(...commands: Command[]): void;
  loaded: true;
}

const SIZES = { SMALL: 48, MEDIUM: 60, LARGE: 72 } as const;

function boot(): void {
  const w = window as unknown as { parley?: Command[] | Api };
  if (!script || !settingsRequest) return;
  const data = script.dataset;
  const src = new URL(script.src, location.href);
  const settings: Boot = {
    chatbotId: data.chatbotId!,
    base: data.server ?? src.origin,
    mode: data.mode === 'inline' || data.mode === 'page' ? data.mode : 'bubble',
    target: data.target ?? null,
    theme: data.theme === 'dark' || data.theme === 'light' ? data.theme : 'auto',
    nonce: script.nonce || script.getAttribute('nonce') || '',
    locale: data.locale ?? null,
    preview: data.preview !== undefined,
  };
  const early = Array.isArray(w.parley) ? w.parley : [];
  const listeners: Record<string, Listener[]> = {};
  const pending: Parameters<typeof import('../app.js').start>[1] = {};
  let controller: Controller | null = null;
  let loading: Promise<Controller | null> | null = null;
  let config: WidgetConfig | null = null;
  let hostEl: HTMLElement | null = null;
  let shadow: ShadowRoot | null = null;
  let launcher: Launcher | null = null;
  let mount: HTMLElement | null = null;
  let isOpen = false;
  let follow: MutationObserver | null = null;
  let bubbleHidden = false;
  let destroyed = false;
  const queued: Command[] = [];

  // A page's handler that throws must not stop the widget or the other handlers.
  const call = (fn: Listener, detail?: unknown) => {
    try {
      fn(detail);
    } catch (err) {
      console.error(err);
    }
  };
  let ready = false;
  let unread = 0;
  const emit: Emit = (event, detail?: unknown) => {
    if (event === 'ready') ready = true;
    if (event === 'unread') unread = Number(detail) || 0;
    for (const fn of listeners[event] ?? []) call(fn, detail);
    postToNative(event, detail);
  };

  const load = (): Promise<Controller | null> => {
    if (loading) return loading;
    if (!config || !shadow || !mount) return Promise.resolve(null);
    const cfg = config;
    const root = shadow;
    const into = mount;
    loading = import(/* @vite-ignore */ new URL(__PARLEY_APP__, src).href).then(
      (app: typeof import('../app.js')) => {
        if (destroyed) return null;
        const host: Host = {
          boot: settings,
          config: cfg,
          root,
          mount: into,
          adopt: (text) => adoptStyles(root, text, settings.nonce),
          emit,
          setUnread: (n) => launcher?.setUnread(n),
          setOpen: (open) => {
            isOpen = open;
            launcher?.setOpen(open);
          },
          bubble: launcher?.bubble ?? null,
        };
        controller = app.start(host, pending);
        for (const command of queued.splice(0)) run(command);
        return controller;
      },
      (err) => {
        loading = null;
        console.error('parley: the chat window failed to load', err);
        return null;
      },
    );
    return loading;
  };

  const withApp = (fn: (c: Controller) => void) => {
    if (controller) fn(controller);
    else void load().then((c) => c && fn(c));
  };

  function run(command: Command) {
    if (!Array.isArray(command)) return;
    const [name, arg, fn] = command;
    if (name === 'on' || name === 'off') {
      const handler = (typeof arg === 'function' ? arg : fn) as Listener;
      const event = String(arg);
      if (typeof handler !== 'function') return;
      const list = (listeners[event] ??= []);
      if (name === 'off') listeners[event] = list.filter((l) => l !== handler);
      else {
        list.push(handler);
        // Subscribed after the widget was ready (a script that runs late): told at once.
        if (event === 'ready' && ready) call(handler);
        // Unread is a state: a handler added while answers wait unread (a component mounted anew
        // after a route change) is told the count at once, as the bubble shows it.
        if (event === 'unread' && unread > 0) call(handler, unread);
      }
      return;
    }
    // These need no settings (the bubble may be drawn from the snippet before they arrive).
    if (name === 'showBubble' || name === 'hideBubble') {
      bubbleHidden = name === 'hideBubble';
      return launcher?.setHidden(bubbleHidden);
    }
    if (name === 'destroy') {
      destroyed = true;
      follow?.disconnect();
      controller?.destroy();
      hostEl?.remove();
      w.parley = [];
      return;
    }
    if (!config) return void queued.push(command);
    switch (name) {
      case 'open':
        return withApp((c) => c.open());
      case 'close':
        // While the chat loads, after the open that started it.
        return controller ? controller.close() : void loading?.then((c) => c?.close());
      case 'toggle':
        return withApp((c) => c.toggle());
      case 'setTheme':
        settings.theme = arg === 'dark' || arg === 'light' ? arg : 'auto';
        hostEl?.setAttribute('data-theme', settings.theme);
        return;
      case 'setLocale':
        if (typeof arg !== 'string') return;
        settings.locale = arg;
        launcher?.relabel(arg);
        return controller?.setLocale(arg);
      case 'identify':
        if (!arg || typeof arg !== 'object') return;
        pending.identity = arg as NonNullable<typeof pending.identity>;
        return controller?.identify(pending.identity);
      case 'setContext':
        if (!arg || typeof arg !== 'object') return;
        pending.context = Object.fromEntries(
          Object.entries(arg as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
        );
        return controller?.setContext(pending.context);
      case 'sendMessage':
        if (typeof arg === 'string') withApp((c) => c.sendMessage(arg));
        return;
      case 'reset':
        if (controller) return controller.reset();
        try {
          localStorage.removeItem(`parley:${settings.chatbotId}`);
        } catch {
          /* blocked storage */
        }
        return;
    }
  }

  // Like the array it replaces: one push may carry several commands.
  const api: Api = { push: (...commands) => commands.forEach((c) => run(c)), loaded: true };
  w.parley = api;
  // Event subscriptions take effect at once; everything else waits for the settings.
  for (const command of early) run(command);
  // The hosted page (/chat/{id}) in an app's webview: the app drives it with posted commands.
  if (settings.mode === 'page') listenToNative(run);

  // The snippet may carry the bubble's look (data-bubble): the bubble is drawn now, and the
  // settings only confirm it (or restyle it in place when the snippet is stale).
  const look = settings.mode === 'bubble' ? parseBubble(data.bubble) : null;
  let intended = false;
  // Pasted in <head>, the script may run (and the settings arrive) before there is a <body> to draw in.
  const withBody = (fn: () => void) =>
    document.body ? fn() : document.addEventListener('DOMContentLoaded', fn, { once: true });
  if (look) withBody(() => void (!hostEl && !destroyed && drawBubble(look, null)));

  settingsRequest
    .then((cfg) =>
      withBody(() => {
        if (destroyed) return;
        config = cfg;
        draw(cfg);
        for (const command of queued.splice(0)) run(command);
        if (intended) void load();
      }),
    )
    .catch((err) => {
      // The bubble drawn from the snippet goes when there is no chatbot to talk to.
      if (!config) hostEl?.remove();
      console.error('parley: widget not shown:', err instanceof Error ? err.message : err);
    });

  /** The host element with the variables of the bubble's look (CSSOM writes, not a style attribute: allowed under a CSP without 'unsafe-inline'). */
  function style(el: HTMLElement, l: BubbleLook, cfg: WidgetConfig | null) {
    el.setAttribute('data-position', l.iconPosition === 'BOTTOM_LEFT' ? 'left' : 'right');
    const vars: Record<string, string> = {
      '--pw-brand': l.brandColor,
      '--pw-brand-text': l.brandTextColor,
      '--pw-size': `${SIZES[l.iconSize] ?? 60}px`,
      '--pw-bottom': `${l.distanceFromBottom}px`,
      '--pw-side': `${l.horizontalDistance}px`,
    };
    if (cfg) {
      vars['--pw-font-size'] = `${cfg.appearance.fontSize}px`;
      vars['--pw-max-width'] = `${cfg.appearance.maxWidth}px`;
      if (cfg.appearance.height) vars['--pw-height'] = `${cfg.appearance.height}px`;
    }
    for (const [k, v] of Object.entries(vars)) el.style.setProperty(k, v);
  }

  /** The host element, its shadow root and (in bubble mode) the launcher; `cfg` null: from the snippet's look, before the settings. */
  function drawBubble(l: BubbleLook, cfg: WidgetConfig | null) {
    hostEl = document.createElement('div');
    hostEl.setAttribute('data-parley', '');
    hostEl.setAttribute('data-theme', settings.theme);
    hostEl.setAttribute('data-mode', settings.mode);
    style(hostEl, l, cfg);
    if (settings.mode === 'page') hostEl.style.setProperty('display', 'block');
    shadow = hostEl.attachShadow({ mode: 'open' });
    adoptStyles(shadow, css, settings.nonce);
    mount = document.createElement('div');
    mount.className = 'mount';
    if (settings.mode === 'bubble') {
      launcher = createLauncher(
        cfg,
        settings.locale ?? cfg?.locale ?? 'en',
        {
          intent: () => {
            intended = true;
            void load();
          },
          toggle: () => run(['toggle']),
          open: () => run(['open']),
        },
        l.icon,
      );
      launcher.setHidden(bubbleHidden);
      shadow.append(launcher.element, mount);
      document.body.append(hostEl);
    } else {
      shadow.append(mount);
      if (settings.mode === 'page') document.body.append(hostEl);
    }
  }

  /**
   * Inline: the chat goes into the target element, also when the page renders it only later or
   * renders it anew (a single-page app's navigation); the chat chunk loads once there is one.
   */
  function place(host: HTMLElement, selector: string) {
    let target: Element | null = null;
    try {
      target = document.querySelector(selector);
    } catch {
      /* not a selector: reported below */
    }
    if (target) {
      if (host.parentNode !== target) target.append(host);
      void load();
    }
    return !!target;
  }

  function draw(cfg: WidgetConfig) {
    const a = cfg.appearance;
    if (hostEl && launcher) {
      // Drawn from the snippet: the same bubble takes the settings' look (a stale snippet restyles it here).
      style(hostEl, lookOf(cfg), cfg);
      if (!settings.locale) launcher.relabel(cfg.locale);
      launcher.configure(cfg);
    } else drawBubble(lookOf(cfg), cfg);
    if (settings.mode === 'bubble') {
      scheduleAutoOpen(a, () => !isOpen && !destroyed && withApp((c) => c.open()));
      // A returning visitor: connect now so agent replies raise the unread badge. In a task of
      // its own: the first storage read of a page is a round trip to the browser process, and
      // the bubble's frame need not wait for it.
      setTimeout(() => !destroyed && hasSession(settings.chatbotId) && void load());
    } else if (settings.mode === 'inline') {
      const host = hostEl!;
      const selector = settings.target ?? '';
      if (!place(host, selector)) console.warn(`parley: inline target ${selector} not found (yet)`);
      follow = new MutationObserver(() => host.isConnected || place(host, selector));
      follow.observe(document.body, { childList: true, subtree: true });
    } else void load();
    emit('ready');
  }
}

function hasSession(chatbotId: string): boolean {
  try {
    return !!localStorage.getItem(`parley:${chatbotId}`);
  } catch {
    return false;
  }
}

boot();
