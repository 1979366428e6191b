/** The member's display name (PATCH /me): what visitors see on their replies, never their e-mail. */
import { useState } from 'preact/hooks';
import { patch } from '../../api.js';
import { fill } from '../../i18n/index.js';
import { can, me, type Me } from '../../shell/state.js';
import { errorText } from './bits.js';
import { useInboxStrings } from './strings.js';

export function MyName() {
  const t = useInboxStrings();
  const current = me.value?.user.name ?? '';
  const [name, setName] = useState(current);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  if (!can('conversations:write')) return null;
  const save = async () => {
    try {
      const d = await patch<Me>('/me', { name: name.trim() || null });
      me.value = { ...me.value!, user: d.user };
      setName(d.user.name ?? '');
      setStatus({ ok: true, text: fill(t.saved, { name: d.user.name ?? t.supportTeam }) });
    } catch (err) {
      setStatus({ ok: false, text: errorText(err) });
    }
  };
  return (
    <form
      class="inbox-myname card"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <label class="field">
        <span>{t.myName}</span>
        <input
          value={name}
          maxLength={80}
          aria-describedby="inbox-myname-hint"
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
      </label>
      <p id="inbox-myname-hint" class="muted small">
        {t.myNameHint}
      </p>
      <button type="submit" disabled={name.trim() === current}>
        {t.save}
      </button>
      {status && (
        <p class={status.ok ? 'notice' : 'error'} role={status.ok ? 'status' : 'alert'}>
          {status.text}
        </p>
      )}
    </form>
  );
}
