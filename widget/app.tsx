/**
 * The chat chunk: loaded by widget.js on the visitor's first sign of intent (or at once in inline
 * and page modes, or when a previous visit left a session). Renders the window into the loader's
 * shadow root and wires the model to the connection.
 */
import { render } from 'preact';
import { ChatModel } from './state/chat.js';
import type { Controller, Host } from './state/host.js';
import { bindLauncher } from './state/launcher-binding.js';
import { Connection } from './transport/connection.js';
import { Session } from './transport/session.js';
import css from './ui/window.css?inline';
import { followVisualViewport } from './ui/viewport.js';
import { Window } from './ui/Window.js';

export function start(
  host: Host,
  pending: { identity?: { email: string; signature: string; name?: string }; context?: Record<string, string> },
): Controller {
  const { boot, config } = host;
  host.adopt(css);
  const session = new Session(boot.base, boot.chatbotId);
  session.identity = pending.identity;
  session.context = pending.context;
  // The connection calls back into the model, which is made with it: the callbacks run later.
  const connection = new Connection({
    base: boot.base,
    token: (fresh) => session.token(fresh),
    hello: () => model.hello(),
    onFrame: (frame) => model.apply(frame),
    onStatus: (status) => model.setStatus(status),
    onEnd: () => model.ended(),
  });
  const model: ChatModel = new ChatModel(config, connection, session, host.emit);
  const floating = boot.mode === 'bubble';

  const setLocale = (locale: string) => {
    session.locale = locale;
    void model.i18n.setLocale(locale);
  };
  setLocale(boot.locale ?? config.locale);

  const openLink = (url: string) => window.open(url, '_blank', 'noopener,noreferrer');
  // Closed, focus goes back to what opened the window: a button of the page that called `open`,
  // else the bubble.
  let opener: HTMLElement | null = null;
  const open = () => {
    if (!model.ui.open.value) opener = document.activeElement as HTMLElement | null;
    model.ui.setOpen(true);
  };
  const close = () => {
    model.ui.setOpen(false);
    const page = opener && opener !== host.root.host && opener !== document.body && opener.isConnected;
    (page ? opener : host.bubble)?.focus();
  };
  const unbind = bindLauncher(model, host);
  const unfollow = followVisualViewport(host.root.host as HTMLElement);

  const App = () =>
    floating && !model.ui.open.value ? null : (
      <Window
        model={model}
        floating={floating}
        takeFocus={floating && !boot.preview}
        onClose={close}
        openLink={openLink}
      />
    );
  render(<App />, host.mount);
  if (!floating) model.ui.setOpen(true);

  // Another tab verified, logged out, started over or opened the first conversation: follow it.
  const onStorage = (e: StorageEvent) => {
    if (e.key !== session.key) return;
    const next = session.read();
    if (!next) return model.ended();
    if (next.conversationId) model.follow(next.conversationId);
    if (e.oldValue && JSON.parse(e.oldValue).token !== next.token) connection.reconnect();
  };
  const onOnline = () => connection.reconnect();
  // One renewal for a burst of identify/setContext calls: a single-page app may make them on
  // every render, and each renewal is a session request (limited per IP, shared behind a NAT).
  let renewal: ReturnType<typeof setTimeout> | undefined;
  const renewSoon = () => {
    clearTimeout(renewal);
    renewal = setTimeout(() => session.read() && connection.reconnect(true), 200);
  };
  window.addEventListener('storage', onStorage);
  window.addEventListener('online', onOnline);
  model.resume();

  return {
    open,
    close,
    toggle: () => (model.ui.open.value ? close() : open()),
    setLocale,
    identify(identity) {
      if (same(identity, session.identity) || same(identity, session.refused)) return;
      // The signed identity binds at the next session: start one soon when connected.
      session.identity = identity;
      renewSoon();
    },
    setContext(context) {
      if (same(context, session.context)) return;
      // Page context travels with the session: a running session is renewed with it.
      session.context = context;
      renewSoon();
    },
    sendMessage(text) {
      open();
      model.send(text);
    },
    reset: () => model.reset(),
    destroy() {
      clearTimeout(renewal);
      connection.stop();
      unbind();
      unfollow();
      window.removeEventListener('storage', onStorage);
      window.removeEventListener('online', onOnline);
      render(null, host.mount);
    },
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
