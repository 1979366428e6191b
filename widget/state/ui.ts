/** What the window shows: open or closed, expanded, which view, the escalation dialog, the unread count, the error banner. */
import { batch, signal } from '@preact/signals';
import type { WireMessage } from '../../shared/protocol.js';
import type { Emit } from './host.js';

export type View = 'chat' | 'home' | 'account';

export class UiModel {
  readonly open = signal(false);
  readonly expanded = signal(false);
  readonly view = signal<View>('chat');
  readonly escalationOpen = signal(false);
  readonly unread = signal(0);
  readonly error = signal<string | null>(null);

  constructor(private readonly emit: Emit) {}

  setOpen(open: boolean) {
    if (this.open.value === open) return;
    batch(() => {
      this.open.value = open;
      if (open) this.unread.value = 0;
    });
    this.emit(open ? 'open' : 'close');
    if (open) this.emit('unread', 0);
  }

  toggleExpanded() {
    this.expanded.value = !this.expanded.value;
  }

  show(view: View) {
    this.view.value = view;
  }

  askEscalation() {
    this.escalationOpen.value = true;
  }

  closeEscalation() {
    this.escalationOpen.value = false;
  }

  /** A fresh reply (at most two minutes old) counts as unread while the window is closed. */
  arrived(message: WireMessage) {
    if (message.author === 'visitor' || this.open.value || Date.now() - Date.parse(message.createdAt) >= 120_000)
      return;
    this.unread.value++;
    this.emit('unread', this.unread.value);
  }

  fail(message: string) {
    this.error.value = message;
  }

  clearError() {
    this.error.value = null;
  }
}
