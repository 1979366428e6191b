/** "Talk to a person?": the confirmation before a conversation goes to the team. */
import { useLayoutEffect, useRef } from 'preact/hooks';
import type { ChatModel } from '../state/chat.js';

export function EscalationDialog({ model }: { model: ChatModel }) {
  const s = model.i18n.strings.value.chatMessage;
  const confirm = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  // Before the browser paints: a key pressed as the dialog appears already lands in it.
  useLayoutEffect(() => {
    opener.current = (confirm.current?.getRootNode() as ShadowRoot | undefined)?.activeElement as HTMLElement | null;
    confirm.current?.focus();
  }, []);
  // Cancelled: focus goes back to what opened the dialog.
  const cancel = () => {
    model.ui.closeEscalation();
    opener.current?.focus();
  };
  return (
    <div class="dialog-backdrop" onKeyDown={(e) => e.key === 'Escape' && (e.stopPropagation(), cancel())}>
      <div class="dialog" role="alertdialog" aria-modal="true" aria-labelledby="esc-h" aria-describedby="esc-d">
        <h2 id="esc-h">{s.escalationHeading}</h2>
        <p id="esc-d">{s.escalationSubHeading}</p>
        <div class="dialog-actions">
          <button type="button" class="secondary" onClick={cancel}>
            {s.cancel}
          </button>
          <button type="button" class="primary" ref={confirm} onClick={() => model.confirmEscalation()}>
            {s.yesContinue}
          </button>
        </div>
      </div>
    </div>
  );
}
