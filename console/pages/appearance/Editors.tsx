/**
 * The settings that are not one value: allowed domains, the lead form's fields, the widget's
 * language and wording (part of the unsaved draft, saved with the rest), and the pictures and the
 * identity secret (saved at once through their own routes).
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, del, get, post } from '../../api.js';
import { fill, formatDate, LANGUAGE_NAMES } from '../../i18n/index.js';
import { en as widgetEn } from '../../../widget/i18n/en.js';
import { ICON_TYPES, LEAD_FIELD_TYPES, LOCALES } from './fields.js';
import { AskFirst } from './ListEditor.js';
import type { Strings } from './strings/en.js';

type Settings = Record<string, unknown>;
type WidgetStrings = typeof widgetEn;
interface DraftProps {
  settings: Settings;
  set(key: string, value: unknown): void;
  disabled: boolean;
  t: Strings;
}

const message = (err: unknown) =>
  err instanceof ApiError ? [err.message, err.hint].filter(Boolean).join(' — ') : String(err);

const DOMAIN = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?$/;

/** allowedDomains: a list of host names, added one by one and checked as the API checks them. */
export function Domains({ settings, set, disabled, t }: DraftProps) {
  const list = (settings.allowedDomains as string[] | undefined) ?? [];
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  const add = (e: Event) => {
    e.preventDefault();
    // People paste addresses: keep the host (and port) only.
    const host = draft
      .trim()
      .toLowerCase()
      .replace(/^[a-z]+:\/\//, '')
      .replace(/\/.*$/, '');
    if (!DOMAIN.test(host)) return setError(t.domains.invalid);
    if (list.includes(host)) return setError(fill(t.domains.duplicate, { domain: host }));
    set('allowedDomains', [...list, host]);
    setDraft('');
    setError(null);
  };
  return (
    <div class="ap-field">
      <p class="ap-help" id="ap-domains-help">
        {t.fields.allowedDomains.help}
      </p>
      {list.length ? (
        <ul class="ap-chips" aria-label={t.fields.allowedDomains.label}>
          {list.map((d) => (
            <li>
              <span dir="ltr">{d}</span>
              {!disabled && (
                <button
                  type="button"
                  class="ap-icon-button"
                  aria-label={fill(t.domains.remove, { domain: d })}
                  onClick={() =>
                    set(
                      'allowedDomains',
                      list.filter((x) => x !== d),
                    )
                  }
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{t.domains.any}</p>
      )}
      {!disabled && (
        <form class="row" onSubmit={add}>
          <label class="field grow" for="ap-domain-new">
            <span>{t.domains.newDomain}</span>
            <input
              id="ap-domain-new"
              dir="ltr"
              value={draft}
              placeholder="example.com"
              aria-describedby={`ap-domains-help${error ? ' ap-domain-error' : ''}`}
              onInput={(e) => setDraft((e.currentTarget as HTMLInputElement).value)}
            />
          </label>
          <button type="submit" disabled={!draft.trim()}>
            {t.domains.add}
          </button>
        </form>
      )}
      {error && (
        <p class="ap-field-error" id="ap-domain-error">
          {error}
        </p>
      )}
    </div>
  );
}

interface LeadField {
  key: string;
  label: string;
  type: (typeof LEAD_FIELD_TYPES)[number];
  required: boolean;
  options?: string[];
}

/** collectUserData (name, phone) and leadFields: the lead form's questions. */
export function LeadFields({ settings, set, disabled, t }: DraftProps) {
  const data = (settings.collectUserData as { name: boolean; phone: boolean } | null) ?? { name: true, phone: false };
  const fields = (settings.leadFields as LeadField[] | undefined) ?? [];
  const change = (i: number, patch: Partial<LeadField>) =>
    set(
      'leadFields',
      fields.map((f, j) => (j === i ? { ...f, ...patch } : f)),
    );
  const w = t.leadFields;
  return (
    <>
      {(['name', 'phone'] as const).map((k) => {
        const words = k === 'name' ? t.fields.collectName : t.fields.collectPhone;
        return (
          <div class="ap-field ap-toggle">
            <label for={`ap-collect-${k}`}>
              <input
                id={`ap-collect-${k}`}
                type="checkbox"
                role="switch"
                checked={data[k]}
                disabled={disabled}
                aria-describedby={`ap-collect-${k}-help`}
                onChange={(e) =>
                  set('collectUserData', { ...data, [k]: (e.currentTarget as HTMLInputElement).checked })
                }
              />
              <span>{words.label}</span>
            </label>
            <span class="ap-help" id={`ap-collect-${k}-help`}>
              {words.help}
            </span>
          </div>
        );
      })}
      <h3>{w.heading}</h3>
      <p class="ap-help">{w.help}</p>
      <ul class="ap-lead-fields">
        {fields.map((f, i) => (
          <li class="card">
            <div class="row">
              <label class="field grow" for={`ap-lf-${i}-label`}>
                <span>{w.label}</span>
                <input
                  id={`ap-lf-${i}-label`}
                  value={f.label}
                  maxLength={100}
                  disabled={disabled}
                  onInput={(e) => change(i, { label: (e.currentTarget as HTMLInputElement).value })}
                />
              </label>
              <label class="field grow" for={`ap-lf-${i}-key`}>
                <span>{w.key}</span>
                <input
                  id={`ap-lf-${i}-key`}
                  dir="ltr"
                  value={f.key}
                  maxLength={40}
                  pattern="[a-z0-9_]{1,40}"
                  title={w.keyHelp}
                  disabled={disabled}
                  onInput={(e) => change(i, { key: (e.currentTarget as HTMLInputElement).value })}
                />
              </label>
              <label class="field grow" for={`ap-lf-${i}-type`}>
                <span>{w.type}</span>
                <select
                  id={`ap-lf-${i}-type`}
                  value={f.type}
                  disabled={disabled}
                  onChange={(e) => {
                    const type = (e.currentTarget as HTMLSelectElement).value as LeadField['type'];
                    change(i, type === 'select' ? { type, options: f.options ?? [] } : { type, options: undefined });
                  }}
                >
                  {LEAD_FIELD_TYPES.map((ty) => (
                    <option value={ty}>{w.types[ty]}</option>
                  ))}
                </select>
              </label>
            </div>
            {f.type === 'select' && (
              <label class="field" for={`ap-lf-${i}-options`}>
                <span>{w.options}</span>
                <textarea
                  id={`ap-lf-${i}-options`}
                  rows={3}
                  disabled={disabled}
                  value={(f.options ?? []).join('\n')}
                  onInput={(e) =>
                    change(i, {
                      options: (e.currentTarget as HTMLTextAreaElement).value.split('\n').filter((o) => o.trim()),
                    })
                  }
                />
              </label>
            )}
            <div class="row">
              <label class="ap-check" for={`ap-lf-${i}-required`}>
                <input
                  id={`ap-lf-${i}-required`}
                  type="checkbox"
                  checked={f.required}
                  disabled={disabled}
                  onChange={(e) => change(i, { required: (e.currentTarget as HTMLInputElement).checked })}
                />
                <span>{w.required}</span>
              </label>
              {!disabled && (
                <button
                  type="button"
                  class="danger"
                  onClick={() =>
                    set(
                      'leadFields',
                      fields.filter((_, j) => j !== i),
                    )
                  }
                >
                  {w.remove}
                </button>
              )}
            </div>
          </li>
        ))}
      </ul>
      {!disabled && fields.length < 20 && (
        <button
          type="button"
          onClick={() =>
            set('leadFields', [
              ...fields,
              { key: `field_${fields.length + 1}`, label: '', type: 'text', required: false },
            ])
          }
        >
          {w.add}
        </button>
      )}
    </>
  );
}

const widgetLocales = import.meta.glob<{ default: WidgetStrings }>([
  '../../../widget/i18n/*.ts',
  '!../../../widget/i18n/en.ts',
  '!../../../widget/i18n/launcher.ts',
  '!../../../widget/i18n/locales.ts',
]);
const TEXT_GROUPS = ['chatHome', 'chatMessages', 'chatMessage', 'chatAccount'] as const;

/** localization: the widget's language, and the owner's wording over any of its texts. */
export function Languages({ settings, set, disabled, t }: DraftProps) {
  const loc = (settings.localization as Record<string, unknown> | null) ?? {};
  const locale = (loc.locale as string | null | undefined) ?? '';
  const [defaults, setDefaults] = useState<WidgetStrings>(widgetEn);
  useEffect(() => {
    const load = Object.entries(widgetLocales).find(([p]) => p.endsWith(`/${locale}.ts`))?.[1];
    if (!load) return setDefaults(widgetEn);
    let live = true;
    load().then(
      (m) => live && setDefaults(m.default),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [locale]);
  /** Writes one value; an emptied text leaves its key out (the widget's own text shows). */
  const write = (group: string | null, key: string, value: string) => {
    const next: Record<string, unknown> = { ...loc };
    if (group) {
      const inner = { ...((loc[group] as Record<string, string> | null) ?? {}) };
      if (value) inner[key] = value;
      else delete inner[key];
      if (Object.keys(inner).length) next[group] = inner;
      else delete next[group];
    } else if (value) next[key] = value;
    else delete next[key];
    set('localization', Object.keys(next).length ? next : null);
  };
  const text = (group: string | null, key: string) =>
    String((group ? (loc[group] as Record<string, string> | undefined)?.[key] : loc[key]) ?? '');
  return (
    <>
      <div class="ap-field">
        <label for="set-locale">{t.fields.locale.label}</label>
        <span class="ap-help" id="set-locale-help">
          {t.fields.locale.help}
        </span>
        <select
          id="set-locale"
          value={locale}
          disabled={disabled}
          aria-describedby="set-locale-help"
          onChange={(e) => write(null, 'locale', (e.currentTarget as HTMLSelectElement).value)}
        >
          <option value="">{t.options.locale.default}</option>
          {LOCALES.filter((l) => l !== 'en').map((l) => (
            <option value={l}>{LANGUAGE_NAMES[l]}</option>
          ))}
        </select>
      </div>
      <div class="ap-field">
        <label for="set-learnMore">{t.fields.learnMore.label}</label>
        <span class="ap-help" id="set-learnMore-help">
          {t.fields.learnMore.help}
        </span>
        <input
          id="set-learnMore"
          value={text(null, 'learnMore')}
          placeholder={defaults.learnMore}
          maxLength={200}
          disabled={disabled}
          aria-describedby="set-learnMore-help"
          onInput={(e) => write(null, 'learnMore', (e.currentTarget as HTMLInputElement).value)}
        />
      </div>
      <h3>{t.texts.heading}</h3>
      <p class="ap-help">{t.texts.help}</p>
      {TEXT_GROUPS.map((group) => (
        <details class="ap-texts">
          <summary>{t.texts.groups[group]}</summary>
          {Object.entries(widgetEn[group]).map(([key, english]) => {
            const id = `set-${group}-${key}`;
            const shown = (defaults[group] as Record<string, string>)[key] || english;
            return (
              <label class="field" for={id}>
                <span>{key === 'botName' ? t.texts.botName : `“${shown}”`}</span>
                <input
                  id={id}
                  value={text(group, key)}
                  placeholder={shown}
                  maxLength={500}
                  disabled={disabled}
                  onInput={(e) => write(group, key, (e.currentTarget as HTMLInputElement).value)}
                />
              </label>
            );
          })}
        </details>
      ))}
    </>
  );
}

/** The five pictures (POST /icons, multipart): each replaces its setting at once. */
export function Icons({
  chatbotId,
  settings,
  disabled,
  t,
  onSaved,
}: Omit<DraftProps, 'set'> & {
  chatbotId: string;
  onSaved(setting: string, url: string | null): void;
}) {
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const upload = async (type: string, file: File | undefined) => {
    if (!file) return;
    const form = new FormData();
    form.append('type', type);
    form.append('file', file);
    setNote(null);
    try {
      const { icon } = await api<{ icon: { url: string; setting: string } }>(
        'POST',
        `/chatbots/${chatbotId}/icons`,
        form,
      );
      onSaved(icon.setting, icon.url);
      setNote({ ok: true, text: t.icons.uploaded });
    } catch (err) {
      setNote({ ok: false, text: message(err) });
    }
  };
  const remove = async (type: keyof typeof ICON_TYPES) => {
    try {
      await del(`/chatbots/${chatbotId}/icons/${type}`, { query: { confirm: true } });
      onSaved(ICON_TYPES[type], null);
      setNote({ ok: true, text: t.icons.removed });
    } catch (err) {
      setNote({ ok: false, text: message(err) });
    }
  };
  return (
    <section class="ap-icons" aria-labelledby="ap-icons-title">
      <h3 id="ap-icons-title">{t.icons.heading}</h3>
      <p class="ap-help">{t.icons.help}</p>
      <ul>
        {(Object.keys(ICON_TYPES) as Array<keyof typeof ICON_TYPES>).map((type) => {
          const url = settings[ICON_TYPES[type]] as string | null;
          return (
            <li class="ap-icon-row">
              {url ? <img src={url} alt="" width={40} height={40} /> : <span class="ap-icon-none" aria-hidden="true" />}
              <span class="grow">
                {t.icons[type]}
                {!url && <span class="muted small"> · {t.icons.none}</span>}
              </span>
              {!disabled && (
                <>
                  <label class="ap-upload">
                    <span>{t.icons.upload}</span>
                    <input
                      type="file"
                      accept="image/png,image/jpeg,image/gif,image/webp,image/x-icon,image/vnd.microsoft.icon"
                      aria-label={`${t.icons.upload}: ${t.icons[type]}`}
                      onChange={(e) => upload(type, (e.currentTarget as HTMLInputElement).files?.[0])}
                    />
                  </label>
                  {url && (
                    <button
                      type="button"
                      class="danger"
                      aria-label={`${t.icons.remove}: ${t.icons[type]}`}
                      onClick={() => remove(type)}
                    >
                      {t.icons.remove}
                    </button>
                  )}
                </>
              )}
            </li>
          );
        })}
      </ul>
      <div role="status">{note && <p class={note.ok ? 'notice' : 'error'}>{note.text}</p>}</div>
    </section>
  );
}

interface SecretStatus {
  configured: boolean;
  createdAt: string | null;
}

/** The identity secret: its status, made or rotated (shown once), deleted. */
export function Identity({ chatbotId, writable, t }: { chatbotId: string; writable: boolean; t: Strings }) {
  const path = `/chatbots/${chatbotId}/identity-secret`;
  const [status, setStatus] = useState<SecretStatus | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const w = t.identity;
  useEffect(() => {
    get<{ identitySecret: SecretStatus }>(path).then(
      (d) => setStatus(d.identitySecret),
      (err) => setNote({ ok: false, text: message(err) }),
    );
  }, [path]);
  const make = async () => {
    try {
      const d = await post<{ identitySecret: SecretStatus & { secret: string } }>(path);
      setStatus(d.identitySecret);
      setSecret(d.identitySecret.secret);
      setNote(null);
    } catch (err) {
      setNote({ ok: false, text: message(err) });
    }
  };
  const remove = async () => {
    try {
      await del(path, { query: { confirm: true } });
      setStatus({ configured: false, createdAt: null });
      setSecret(null);
    } catch (err) {
      setNote({ ok: false, text: message(err) });
    }
  };
  return (
    <div class="ap-identity">
      <p class="ap-help">{w.explain}</p>
      {status && (
        <p>
          {status.configured && status.createdAt
            ? fill(w.configured, { date: formatDate(status.createdAt, { dateStyle: 'medium', timeStyle: 'short' }) })
            : w.none}
        </p>
      )}
      {secret && <ShownOnce label={w.secret} value={secret} note={w.shownOnce} t={t} />}
      {writable && status && (
        <div class="actions">
          {status.configured ? (
            <AskFirst label={w.rotate} question={w.rotateWarn} yes={w.confirm} keep={w.keep} onYes={make} />
          ) : (
            <button type="button" class="primary" onClick={make}>
              {w.make}
            </button>
          )}
          {status.configured && (
            <AskFirst label={w.remove} question={w.removeWarn} yes={w.confirm} keep={w.keep} onYes={remove} />
          )}
        </div>
      )}
      <div role="status">{note && <p class={note.ok ? 'notice' : 'error'}>{note.text}</p>}</div>
    </div>
  );
}

/** A secret shown once, with a copy button. */
export function ShownOnce({ label, value, note, t }: { label: string; value: string; note: string; t: Strings }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="notice ap-once">
      <p>{note}</p>
      <div class="row">
        <label class="field grow" for="ap-once">
          <span>{label}</span>
          <input
            id="ap-once"
            dir="ltr"
            readOnly
            value={value}
            onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
          />
        </label>
        <button
          type="button"
          onClick={() =>
            navigator.clipboard?.writeText(value).then(
              () => setCopied(true),
              () => undefined,
            )
          }
        >
          {t.identity.copy}
        </button>
      </div>
      <span role="status">{copied && t.identity.copied}</span>
    </div>
  );
}
