/** The input: grows to several lines, Enter sends, Shift+Enter breaks the line. */
import { useRef, useState } from 'preact/hooks';
import { LIMITS } from '../../shared/protocol.js';
import type { ChatModel } from '../state/chat.js';
import { SendIcon } from './icons.js';

const RTL_CHAR = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;

/** The direction of a text's first strong character (a letter), or 'auto' when it has none. */
export function textDirection(text: string): 'ltr' | 'rtl' | 'auto' {
  const first = /\p{L}/u.exec(text)?.[0];
  return first === undefined ? 'auto' : RTL_CHAR.test(first) ? 'rtl' : 'ltr';
}

export function Composer({ model }: { model: ChatModel }) {
  const s = model.i18n.strings.value;
  const [text, setText] = useState('');
  const area = useRef<HTMLTextAreaElement>(null);
  const typingSent = useRef(false);
  const resolved = model.conversation.condition.value?.status === 'RESOLVED';
  const grow = () => {
    const el = area.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 160)}px`;
  };
  const submit = () => {
    if (!text.trim()) return;
    model.send(text);
    setText('');
    if (typingSent.current) model.conversation.typingChanged((typingSent.current = false));
    requestAnimationFrame(grow);
  };
  const placeholder = model.config.appearance.placeholderText ?? s.ui.placeholder;
  const label = placeholder || s.ui.send;
  // An empty dir="auto" field takes the window's direction, so an English placeholder in an rtl
  // window put its "…" on the left: while empty the field follows the placeholder's own text.
  const dir = text ? 'auto' : textDirection(placeholder);
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <textarea
        ref={area}
        rows={1}
        name="message"
        value={text}
        maxLength={LIMITS.maxMessageChars}
        placeholder={placeholder}
        dir={dir}
        aria-label={label}
        onInput={(e) => {
          const value = (e.target as HTMLTextAreaElement).value;
          setText(value);
          grow();
          if (!typingSent.current && value) model.conversation.typingChanged((typingSent.current = true));
          else if (typingSent.current && !value) model.conversation.typingChanged((typingSent.current = false));
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            submit();
          }
        }}
        data-resolved={resolved ? '' : undefined}
      />
      <button type="submit" class="send" aria-label={s.ui.send} disabled={!text.trim()}>
        <SendIcon />
      </button>
    </form>
  );
}
