/** The lead form: e-mail, name and phone as the chatbot collects them, plus the owner's fields. */
import { useState } from 'preact/hooks';
import type { ChatModel } from '../state/chat.js';

export function LeadForm({ model }: { model: ChatModel }) {
  const s = model.i18n.strings.value;
  const { collectUserData, leadFields } = model.config.userData;
  const [values, setValues] = useState<Record<string, string>>({});
  const set = (key: string) => (e: Event) => setValues({ ...values, [key]: (e.target as HTMLInputElement).value });
  const busy = model.lead.state.value === 'busy';
  const submit = (e: Event) => {
    e.preventDefault();
    const customFields: Record<string, string | number> = {};
    for (const f of leadFields) {
      const v = values[`x_${f.key}`];
      if (v) customFields[f.key] = f.type === 'number' ? Number(v) : v;
    }
    model.submitLead({
      email: values.email || undefined,
      name: values.name || undefined,
      phone: values.phone || undefined,
      ...(Object.keys(customFields).length ? { customFields } : {}),
    });
  };
  return (
    <form class="card lead-form" onSubmit={submit} aria-label={s.ui.leadHeading}>
      <p class="card-title">{s.ui.leadHeading}</p>
      <label>
        {s.chatAccount.emailLabel}
        <input
          type="email"
          name="email"
          required
          autoComplete="email"
          value={values.email ?? ''}
          onInput={set('email')}
        />
      </label>
      {collectUserData.name && (
        <label>
          {s.chatAccount.nameLabel}
          <input type="text" name="name" autoComplete="name" value={values.name ?? ''} onInput={set('name')} />
        </label>
      )}
      {collectUserData.phone && (
        <label>
          {s.chatAccount.phoneLabel}
          <input type="tel" name="phone" autoComplete="tel" value={values.phone ?? ''} onInput={set('phone')} />
        </label>
      )}
      {leadFields.map((f) => (
        <label>
          {f.label}
          {f.type === 'select' ? (
            <select name={f.key} required={f.required} value={values[`x_${f.key}`] ?? ''} onChange={set(`x_${f.key}`)}>
              <option value="" />
              {(f.options ?? []).map((o) => (
                <option value={o}>{o}</option>
              ))}
            </select>
          ) : (
            <input
              name={f.key}
              required={f.required}
              type={f.type === 'phone' ? 'tel' : f.type}
              value={values[`x_${f.key}`] ?? ''}
              onInput={set(`x_${f.key}`)}
            />
          )}
        </label>
      ))}
      <button type="submit" class="primary" disabled={busy}>
        {busy ? s.chatAccount.updating : s.chatAccount.submit}
      </button>
    </form>
  );
}
