/** What the loader (widget.js) hands the chat chunk: the page-side pieces it owns. */
import type { WidgetConfig } from '../../shared/protocol.js';

export type WidgetEvent = 'ready' | 'open' | 'close' | 'message' | 'escalated' | 'lead' | 'unread';

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
}

export interface Host {
  boot: Boot;
  config: WidgetConfig;
  /** The shadow root the window renders into. */
  root: ShadowRoot;
  /** Where in the shadow root the window goes. */
  mount: HTMLElement;
  adopt(css: string): void;
  emit(event: WidgetEvent, detail?: unknown): void;
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
  identify(identity: { email: string; signature: string; name?: string }): void;
  setContext(context: Record<string, string>): void;
  sendMessage(text: string): void;
  reset(): void;
  destroy(): void;
}
