/** What the loader (widget.js) hands the chat chunk: the page-side pieces it owns. */
import type { VisitorInfo, WidgetConfig, WireMessage } from '../../shared/protocol.js';

/** The host-page API's events and what each hands its handlers (`@parley/widget` types its `on` from this map). */
export interface WidgetEvents {
  /** The bubble or inline chat is drawn, and again each time the chat connects. */
  ready: void;
  open: void;
  close: void;
  /** Every message shown, the visitor's own included. */
  message: WireMessage;
  escalated: { conversationId: string };
  /** The visitor left their details in the lead form. */
  lead: { visitor: VisitorInfo };
  /** Messages the visitor has not seen (0 when the window opens). */
  unread: number;
}
export type WidgetEvent = keyof WidgetEvents;
/** Raises an event with the detail its type calls for (none for the void ones). */
export type Emit = <E extends WidgetEvent>(
  event: E,
  ...detail: WidgetEvents[E] extends void ? [] : [WidgetEvents[E]]
) => void;

/** A signed e-mail for `identify` (HMAC-SHA256 hex of the e-mail with the chatbot's identity secret). */
export interface Identity {
  email: string;
  signature: string;
  name?: string;
}

export interface Boot {
  chatbotId: string;
  /** The server's origin (where widget.js came from). */
  base: string;
  /** bubble (default), inline (into `target`), page (the hosted full-screen page). */
  mode: 'bubble' | 'inline' | 'page';
  target: string | null;
  theme: 'auto' | 'light' | 'dark';
  nonce: string;
  locale: string | null;
  /** data-preview: a settings preview inside another page (the console's), which never takes its focus. */
  preview: boolean;
}

export interface Host {
  boot: Boot;
  config: WidgetConfig;
  /** The shadow root the window renders into. */
  root: ShadowRoot;
  /** Where in the shadow root the window goes. */
  mount: HTMLElement;
  adopt(css: string): void;
  emit: Emit;
  setUnread(count: number): void;
  setOpen(open: boolean): void;
  /** The bubble, to return focus to on close (null in inline and page modes). */
  bubble: HTMLElement | null;
}

/** The chat chunk's side of the host-page API. */
export interface Controller {
  open(): void;
  close(): void;
  toggle(): void;
  setLocale(locale: string): void;
  identify(identity: Identity): void;
  setContext(context: Record<string, string>): void;
  sendMessage(text: string): void;
  reset(): void;
  destroy(): void;
}
