/** Small pieces the inbox's screens share. */
import { ApiError } from '../../api.js';
import { language } from '../../i18n/index.js';

export const errorText = (err: unknown) =>
  err instanceof ApiError ? [err.message, err.hint].filter(Boolean).join(' — ') : String(err);

/** A time today, else a date: short enough for a list. */
export function When({ iso }: { iso: string }) {
  const at = new Date(iso);
  const today = at.toDateString() === new Date().toDateString();
  const text = today
    ? at.toLocaleTimeString(language.value, { hour: '2-digit', minute: '2-digit' })
    : at.toLocaleDateString(language.value, { month: 'short', day: 'numeric' });
  return <time dateTime={iso}>{text}</time>;
}

const NOT_TEXT = new Set(['radio', 'checkbox', 'button', 'submit', 'reset']);

/** Focus is in a field the person types in: single-key shortcuts must leave their keys alone. */
export function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el?.closest) return false;
  if (el.closest('textarea, select, [contenteditable="true"]')) return true;
  return el instanceof HTMLInputElement && !NOT_TEXT.has(el.type);
}
