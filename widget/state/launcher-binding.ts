/** The chat model drives the loader's launcher: open state (tooltip, aria-expanded) and unread badge. */
import { effect } from '@preact/signals';
import type { ChatModel } from './chat.js';
import type { Host } from './host.js';

export function bindLauncher(model: ChatModel, host: Pick<Host, 'setOpen' | 'setUnread'>): () => void {
  const stops = [effect(() => host.setOpen(model.ui.open.value)), effect(() => host.setUnread(model.ui.unread.value))];
  return () => stops.forEach((stop) => stop());
}
