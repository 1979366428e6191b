/** One setting's control: its label, one line of help, the right input, and what is wrong with the value. */
import { fill } from '../../i18n/index.js';
import { contrast, fullHex } from './contrast.js';
import type { FieldDef } from './fields.js';
import type { Strings } from './strings/en.js';

type Settings = Record<string, unknown>;

const HEX = /^#(?:[0-9a-fA-F]{3}){1,2}$/;

/** What is wrong with the value the person typed, in words; null when it can be saved. */
export function problem(f: FieldDef, value: unknown, t: Strings): string | null {
  const c = f.control;
  if (c.kind === 'color' && typeof value === 'string' && !HEX.test(value)) return t.colorInvalid;
  if (
    c.kind === 'url' &&
    typeof value === 'string' &&
    value !== '' &&
    !new RegExp(`^${c.scheme}s?://\\S+$`).test(value)
  )
    return fill(t.urlInvalid, { scheme: c.scheme === 'https' ? 'https://' : 'https:// (or http://)' });
  if (c.kind === 'json' && typeof value === 'string') return t.jsonInvalid;
  return null;
}

interface FieldProps {
  def: FieldDef;
  settings: Settings;
  /** The value as saved: a credential shows its mask from here. */
  saved: Settings;
  set(key: string, value: unknown): void;
  disabled: boolean;
  t: Strings;
}

export function Field({ def, settings, saved, set, disabled, t }: FieldProps) {
  const { key, control: c } = def;
  const words = t.fields[key as keyof Strings['fields']] ?? { label: key, help: '' };
  const id = `set-${key}`;
  const helpId = `${id}-help`;
  const value = settings[key];
  const error = problem(def, value, t);
  const errorId = `${id}-error`;
  const described = [helpId, error ? errorId : ''].filter(Boolean).join(' ');
  const input = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  const help = (
    <span class="ap-help" id={helpId}>
      {words.help}
    </span>
  );
  const err = error && (
    <span class="ap-field-error" id={errorId}>
      {error}
    </span>
  );

  if (c.kind === 'toggle') {
    const on = c.invert ? value !== true : value === true;
    return (
      <div class="ap-field ap-toggle">
        <label for={id}>
          <input
            id={id}
            type="checkbox"
            role="switch"
            checked={on}
            disabled={disabled}
            aria-describedby={helpId}
            onChange={(e) => {
              const checked = (e.currentTarget as HTMLInputElement).checked;
              set(key, c.invert ? !checked : checked);
            }}
          />
          <span>{words.label}</span>
        </label>
        {help}
      </div>
    );
  }

  let control;
  switch (c.kind) {
    case 'color': {
      const text = typeof value === 'string' ? value : '';
      control = (
        <div class="ap-color">
          <input
            type="color"
            aria-label={fill(t.pick, { label: words.label })}
            value={HEX.test(text) ? fullHex(text) : '#000000'}
            disabled={disabled}
            onInput={(e) => set(key, input(e))}
          />
          <input
            id={id}
            value={text}
            maxLength={7}
            spellcheck={false}
            disabled={disabled}
            aria-describedby={described}
            aria-invalid={!!error}
            onInput={(e) => set(key, input(e).trim())}
          />
        </div>
      );
      break;
    }
    case 'select':
      control = (
        <select
          id={id}
          value={(value as string | null) ?? ''}
          disabled={disabled}
          aria-describedby={described}
          onChange={(e) => set(key, (e.currentTarget as HTMLSelectElement).value)}
        >
          {c.options.map((o) => (
            <option value={o}>{(t.options as Record<string, Record<string, string>>)[c.labels]?.[o] ?? o}</option>
          ))}
        </select>
      );
      break;
    case 'range': {
      const scale = c.scale ?? 1;
      const shown = typeof value === 'number' ? value / scale : c.min;
      const unit = c.unit ? ` ${t.units[c.unit]}` : '';
      control = (
        <div class="ap-range">
          <input
            id={id}
            type="range"
            min={c.min}
            max={c.max}
            step={c.step}
            value={shown}
            disabled={disabled}
            aria-describedby={described}
            aria-valuetext={`${shown}${unit}`}
            onInput={(e) => set(key, Math.round(Number(input(e)) * scale * 100) / 100)}
          />
          <output for={id} aria-hidden="true">
            {shown}
            {unit}
          </output>
        </div>
      );
      break;
    }
    case 'number':
      control = (
        <div class="ap-number">
          <input
            id={id}
            type="number"
            min={c.min}
            max={c.max}
            placeholder={t.automatic}
            value={typeof value === 'number' ? value : ''}
            disabled={disabled}
            aria-describedby={described}
            onInput={(e) => {
              const v = input(e);
              set(key, v === '' ? null : Number(v));
            }}
          />
          <span aria-hidden="true">{t.units[c.unit]}</span>
        </div>
      );
      break;
    case 'json':
      control = (
        <textarea
          id={id}
          rows={3}
          spellcheck={false}
          value={typeof value === 'string' ? value : value ? JSON.stringify(value, null, 2) : ''}
          disabled={disabled}
          aria-describedby={described}
          aria-invalid={!!error}
          onInput={(e) => {
            const v = input(e).trim();
            if (!v) return set(key, null);
            try {
              const parsed: unknown = JSON.parse(v);
              set(key, parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : v);
            } catch {
              set(key, v);
            }
          }}
        />
      );
      break;
    case 'secret': {
      const mask = typeof saved[key] === 'string' ? (saved[key] as string) : null;
      const typed = value !== saved[key] && typeof value === 'string' ? value : '';
      control = (
        <div class="ap-secret">
          <input
            id={id}
            type="password"
            autocomplete="off"
            maxLength={500}
            placeholder={mask ? fill(t.secretSaved, { mask }) : t.secretNone}
            value={typed}
            disabled={disabled}
            aria-describedby={described}
            onInput={(e) => set(key, input(e) || saved[key])}
          />
          {mask && value !== null && (
            <button type="button" disabled={disabled} onClick={() => set(key, null)}>
              {t.secretRemove}
            </button>
          )}
        </div>
      );
      break;
    }
    default: {
      const multiline = c.kind === 'text' && c.multiline;
      const props = {
        id,
        value: typeof value === 'string' ? value : '',
        maxLength: c.kind === 'text' ? c.max : 2048,
        disabled,
        'aria-describedby': described,
        'aria-invalid': !!error,
        onInput: (e: Event) => set(key, input(e)),
      };
      control = multiline ? (
        <textarea rows={key === 'systemPrompt' || key === 'userPrompt' ? 5 : 3} {...props} />
      ) : (
        <input type={c.kind === 'url' ? 'url' : 'text'} {...props} />
      );
    }
  }
  return (
    <div class="ap-field">
      <label for={id}>{words.label}</label>
      {help}
      {control}
      {err}
      {key === 'brandTextColor' && <ContrastNote settings={settings} t={t} />}
    </div>
  );
}

/** The brand colour pair's contrast, warned below WCAG's 4.5:1 for normal text. */
function ContrastNote({ settings, t }: { settings: Settings; t: Strings }) {
  const ratio = contrast(String(settings.brandColor ?? ''), String(settings.brandTextColor ?? ''));
  if (!ratio) return null;
  const shown = ratio.toFixed(1);
  return ratio < 4.5 ? (
    <p class="error ap-contrast" role="alert">
      {fill(t.contrastLow, { ratio: shown })}
    </p>
  ) : (
    <p class="muted small ap-contrast">{fill(t.contrastOk, { ratio: shown })}</p>
  );
}
