/**
 * The floating launcher widget.js draws before the chat chunk exists: the bubble with its unread
 * badge and the tooltip. Built node by node (no innerHTML: pages with Trusted Types allow it);
 * the text comes from the launcher strings of the widget's language (../i18n/launcher.ts).
 */
import type { WidgetConfig } from '../../shared/protocol.js';
import { launcherText } from '../i18n/launcher.js';

/** Where the window covers the page, the bubble hides while it is open. */
export const PHONE = '(max-width: 640px)';
/** Auto-open uses the mobile setting on a phone-sized or touch-first screen. */
export const MOBILE = '(max-width: 640px), (pointer: coarse)';

export interface Launcher {
  /** The element holding the tooltip and the bubble. */
  element: HTMLElement;
  bubble: HTMLButtonElement;
  setUnread(count: number): void;
  setOpen(open: boolean): void;
  setHidden(hidden: boolean): void;
  /** The bubble's label and the tooltip in another language. */
  relabel(locale: string): void;
  /** The settings arrived: the tooltip, the chatbot's name in the label, the icon they name. */
  configure(cfg: WidgetConfig): void;
}

export interface LauncherEvents {
  /** Hover, focus or touch: the visitor may open soon (load the chat chunk). */
  intent(): void;
  /** The bubble or the tooltip was clicked. */
  toggle(): void;
  open(): void;
}

/** The default bubble icon (a speech balloon) and, while the window is open, a chevron that closes it. */
function lineIcon(d: string): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  const attrs: Record<string, string> = {
    viewBox: '0 0 24 24',
    fill: 'none',
    stroke: 'currentColor',
    'stroke-width': '2',
    'stroke-linecap': 'round',
    'stroke-linejoin': 'round',
    'aria-hidden': 'true',
  };
  for (const [k, v] of Object.entries(attrs)) svg.setAttribute(k, v);
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', d);
  svg.append(path);
  return svg;
}

/**
 * The launcher for `cfg`; or, with `cfg` null, the bubble alone drawn from the snippet's look
 * (`icon`: its custom icon URL) until `configure` brings the settings: the tooltip and the label's
 * name come only from the server, and the icon is swapped if the settings name another one.
 */
export function createLauncher(
  cfg: WidgetConfig | null,
  locale: string,
  on: LauncherEvents,
  icon: string | null = cfg?.icons.bubble ?? null,
): Launcher {
  const element = document.createElement('div');
  element.className = 'launcher';
  let a: WidgetConfig['appearance'] | null = null;
  let name = '';
  let tip: HTMLElement | null = null;
  let tipText: Text | null = null;
  let dismiss: HTMLButtonElement | null = null;
  let hidden = false;
  let open = false;
  const bubble = document.createElement('button');
  bubble.type = 'button';
  bubble.className = 'bubble';
  bubble.setAttribute('aria-haspopup', 'dialog');
  bubble.setAttribute('aria-expanded', 'false');
  let drawnIcon: string | null | undefined;
  const setIcon = (url: string | null) => {
    const next = url && /^https?:/i.test(url) ? url : null;
    if (next === drawnIcon) return;
    drawnIcon = next;
    if (bubble.firstChild !== badge) bubble.firstChild?.remove();
    let img: HTMLImageElement | SVGSVGElement = lineIcon('M21 12a8 8 0 01-11.6 7.1L4 20l1-4.6A8 8 0 1121 12z');
    if (next) {
      img = document.createElement('img');
      img.src = next;
      img.alt = '';
    }
    bubble.prepend(img);
  };
  const badge = document.createElement('span');
  badge.className = 'badge';
  badge.hidden = true;
  // Shown instead of the icon while the window is open (bubble.css), as messengers do: the bubble now closes it.
  const chevron = lineIcon('M6 9l6 6 6-6');
  chevron.classList.add('close-icon');
  bubble.append(badge, chevron);
  setIcon(icon);
  const intent = () => on.intent();
  bubble.addEventListener('pointerenter', intent, { once: true });
  bubble.addEventListener('focus', intent, { once: true });
  bubble.addEventListener('touchstart', intent, { once: true, passive: true });
  bubble.onclick = () => on.toggle();
  element.append(bubble);

  const place = () => (element.hidden = hidden || (open && window.matchMedia(PHONE).matches));
  let lang = locale;
  let unread = 0;
  // The badge is inside the labelled button, so a screen reader hears the count only from the label.
  const label = () => {
    const t = launcherText(lang);
    bubble.setAttribute(
      'aria-label',
      `${open ? t.closeChat : t.openChat}${name ? `: ${name}` : ''}${unread > 0 ? `, ${t.unread.replace('{n}', String(unread))}` : ''}`,
    );
  };
  const relabel = (next: string) => {
    lang = next;
    const t = launcherText(lang);
    label();
    dismiss?.setAttribute('aria-label', t.dismissTooltip);
    if (tipText && a) tipText.data = a.tooltip || a.welcomeMessage || t.welcome;
  };
  const configure = (c: WidgetConfig) => {
    a = c.appearance;
    name = c.name;
    setIcon(c.icons.bubble);
    // The owner's tooltip, else the welcome message ('' when the owner cleared it: no tooltip).
    if (!tip && !a.hideTooltip && (a.tooltip || a.welcomeMessage !== '')) {
      tip = document.createElement('div');
      tip.className = 'tip';
      tip.dir = 'auto';
      tip.setAttribute('role', 'status');
      tip.hidden = open;
      tipText = document.createTextNode('');
      dismiss = document.createElement('button');
      dismiss.type = 'button';
      dismiss.className = 'tip-close';
      dismiss.textContent = '×';
      dismiss.onclick = (e) => {
        e.stopPropagation();
        tip!.hidden = true;
      };
      tip.append(tipText, dismiss);
      tip.onclick = () => on.open();
      element.prepend(tip);
    }
    relabel(lang);
  };
  if (cfg) configure(cfg);
  else relabel(locale);
  return {
    element,
    bubble,
    configure,
    setUnread(n) {
      unread = n;
      badge.hidden = n <= 0;
      badge.textContent = n > 9 ? '9+' : String(n);
      label();
    },
    setOpen(value) {
      open = value;
      if (tip && value) tip.hidden = true;
      bubble.setAttribute('aria-expanded', String(value));
      label();
      place();
    },
    setHidden(value) {
      hidden = value;
      place();
    },
    relabel,
  };
}

/**
 * Opens the window after the delay the settings give for this kind of screen, unless it was
 * opened meanwhile. Returns a cancel function.
 */
export function scheduleAutoOpen(a: WidgetConfig['appearance'], open: () => void): () => void {
  const mobile = window.matchMedia(MOBILE).matches;
  const mode = mobile ? a.autoOpenChatWindowInMobile : a.autoOpenChatWindowInDesktop;
  if (mode !== 'ALWAYS_OPEN_WITH_DELAY') return () => {};
  const timer = setTimeout(
    open,
    Math.max(0, mobile ? a.autoOpenChatWindowDelayInMobile : a.autoOpenChatWindowDelayInDesktop),
  );
  return () => clearTimeout(timer);
}
