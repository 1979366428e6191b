/**
 * Renders the chat window on a ChatModel whose frames the test plays as the server would send
 * them; the frames the widget sends are recorded. The connection itself is tested against a
 * WebSocket server in connection.test.ts and end to end in test/browser/.
 */
import { act, render } from '@testing-library/preact';
import type { ClientFrame, ServerFrame, WidgetConfig, WireMessage } from '../../shared/protocol.js';
import { ChatModel } from '../../widget/state/chat.js';
import type { Transport } from '../../widget/state/connection.js';
import type { SessionStore } from '../../widget/state/session-store.js';
import type { WidgetEvent } from '../../widget/state/host.js';
import { Window } from '../../widget/ui/Window.js';
import { widgetConfig } from '../helpers/widget-config.js';

export function setup(
  config: WidgetConfig = widgetConfig(),
  options: { floating?: boolean; stored?: { token: string; conversationId: string | null } } = {},
) {
  const sent: ClientFrame[] = [];
  const events: Array<{ event: WidgetEvent; detail?: unknown }> = [];
  const links: string[] = [];
  let stored = options.stored ?? null;
  const transport: Transport & { started: number; reconnects: number } = {
    started: 0,
    reconnects: 0,
    start() {
      this.started++;
    },
    send: (frame) => void sent.push(frame),
    reconnect() {
      this.reconnects++;
    },
    stop() {},
  };
  const session: SessionStore = {
    read: () => stored,
    write: (patch) =>
      void (stored = { token: stored?.token ?? 'tok', conversationId: stored?.conversationId ?? null, ...patch }),
    clear: () => void (stored = null),
  };
  const model = new ChatModel(
    config,
    transport,
    session,
    (event, ...detail: unknown[]) => void events.push({ event, detail: detail[0] }),
  );
  model.ui.setOpen(true);
  let closed = 0;
  const view = render(
    <Window
      model={model}
      floating={options.floating ?? true}
      takeFocus={options.floating ?? true}
      onClose={() => void closed++}
      openLink={(url) => void links.push(url)}
    />,
  );
  return {
    model,
    sent,
    events,
    links,
    transport,
    view,
    get closed() {
      return closed;
    },
    get stored() {
      return stored;
    },
    play: (...frames: ServerFrame[]) => act(() => frames.forEach((f) => model.apply(f))),
    act,
  };
}

let seq = 0;
export function message(over: Partial<WireMessage> = {}): WireMessage {
  seq++;
  return {
    id: `m${seq}`,
    conversationId: 'conv1',
    author: 'ai',
    name: 'Docs assistant',
    text: 'Hello',
    sources: [],
    followUps: [],
    agent: null,
    feedback: null,
    clientId: null,
    createdAt: new Date().toISOString(),
    seq,
    ...over,
  };
}
