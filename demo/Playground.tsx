/** A control for every appearance and localization setting; Apply saves them and redraws the real widget. */
import { useEffect, useState } from 'preact/hooks';
import { en } from '../widget/i18n/en.js';
import { contrast, type Api } from './api.js';

type Field = { key: string; kind: 'text' | 'color' | 'number' | 'bool' | 'select'; options?: string[] };
const APPEARANCE: Field[] = [
  { key: 'brandColor', kind: 'color' },
  { key: 'brandTextColor', kind: 'color' },
  { key: 'iconSize', kind: 'select', options: ['SMALL', 'MEDIUM', 'LARGE'] },
  { key: 'iconPosition', kind: 'select', options: ['BOTTOM_RIGHT', 'BOTTOM_LEFT'] },
  { key: 'distanceFromBottom', kind: 'number' },
  { key: 'horizontalDistance', kind: 'number' },
  { key: 'fontSize', kind: 'number' },
  { key: 'height', kind: 'number' },
  { key: 'maxWidth', kind: 'number' },
  { key: 'tooltip', kind: 'text' },
  { key: 'hideTooltip', kind: 'bool' },
  { key: 'welcomeMessage', kind: 'text' },
  { key: 'placeholderText', kind: 'text' },
  { key: 'rtl', kind: 'bool' },
  { key: 'hideWatermark', kind: 'bool' },
  { key: 'watermarkText', kind: 'text' },
  { key: 'watermarkLink', kind: 'text' },
  { key: 'ctaText', kind: 'text' },
  { key: 'ctaLink', kind: 'text' },
  { key: 'autoOpenChatWindowInDesktop', kind: 'select', options: ['DONT_OPEN', 'ALWAYS_OPEN_WITH_DELAY'] },
  { key: 'autoOpenChatWindowDelayInDesktop', kind: 'number' },
  { key: 'autoOpenChatWindowInMobile', kind: 'select', options: ['DONT_OPEN', 'ALWAYS_OPEN_WITH_DELAY'] },
  { key: 'autoOpenChatWindowDelayInMobile', kind: 'number' },
];
const LOCALES = ['', 'en', 'da', 'de', 'es', 'fr', 'it', 'ja', 'nl', 'pl', 'pt', 'sv'];
const GROUPS = ['chatHome', 'chatMessages', 'chatMessage', 'chatAccount'] as const;

export function Playground({ client, chatbotId, onApplied }: { client: Api; chatbotId: string; onApplied(): void }) {
  const [settings, setSettings] = useState<Record<string, any> | null>(null);
  const [status, setStatus] = useState('');
  useEffect(() => {
    client.call('GET', `/chatbots/${chatbotId}/settings`).then((d) => setSettings(d.settings ?? d), (e) => setStatus(String(e.message)));
  }, [chatbotId]);
  if (!settings) return <p>{status || 'Loading settings…'}</p>;
  const set = (key: string, value: unknown) => setSettings({ ...settings, [key]: value });
  const loc: Record<string, any> = settings.localization ?? {};
  const setLoc = (group: string, key: string | null, value: string) => {
    const next = { ...loc };
    if (key === null) next[group] = value || null;
    else next[group] = { ...(loc[group] ?? {}), [key]: value };
    set('localization', next);
  };
  const ratio = contrast(settings.brandColor ?? '#000000', settings.brandTextColor ?? '#ffffff');
  const apply = async () => {
    setStatus('Saving…');
    const appearance = Object.fromEntries(APPEARANCE.map((f) => [f.key, settings[f.key] === '' ? null : settings[f.key]]));
    const clean = Object.fromEntries(Object.entries(loc).filter(([, v]) => v !== null && v !== ''));
    try {
      await client.call('PATCH', `/chatbots/${chatbotId}/settings`, { appearance, localization: { localization: Object.keys(clean).length ? clean : null } });
      setStatus('Saved');
      onApplied();
    } catch (e) {
      setStatus((e as Error).message);
    }
  };
  return (
    <section>
      <h2>Appearance</h2>
      <div class="grid">
        {APPEARANCE.map((f) => (
          <label>
            {f.key}
            {f.kind === 'bool' ? (
              <input type="checkbox" checked={!!settings[f.key]} onChange={(e) => set(f.key, (e.target as HTMLInputElement).checked)} />
            ) : f.kind === 'select' ? (
              <select value={settings[f.key] ?? ''} onChange={(e) => set(f.key, (e.target as HTMLSelectElement).value)}>
                {f.options!.map((o) => <option value={o}>{o}</option>)}
              </select>
            ) : (
              <input
                type={f.kind}
                value={settings[f.key] ?? ''}
                onInput={(e) => {
                  const v = (e.target as HTMLInputElement).value;
                  set(f.key, f.kind === 'number' ? (v === '' ? null : Number(v)) : v);
                }}
              />
            )}
          </label>
        ))}
      </div>
      {ratio < 4.5 && (
        <p class="warn" role="alert">
          Brand colour and text colour contrast is {ratio.toFixed(2)}:1, below 4.5:1: the header and your visitors' messages will be hard to read.
        </p>
      )}
      <h2>Localization</h2>
      <label>
        locale
        <select value={loc.locale ?? ''} onChange={(e) => setLoc('locale', null, (e.target as HTMLSelectElement).value)}>
          {LOCALES.map((l) => <option value={l}>{l || '(English)'}</option>)}
        </select>
      </label>
      <label>
        learnMore
        <input value={loc.learnMore ?? ''} placeholder={en.learnMore} onInput={(e) => setLoc('learnMore', null, (e.target as HTMLInputElement).value)} />
      </label>
      {GROUPS.map((group) => (
        <details>
          <summary>{group}</summary>
          <div class="grid">
            {Object.entries(en[group]).map(([key, text]) => (
              <label>
                {key}
                <input value={loc[group]?.[key] ?? ''} placeholder={text} onInput={(e) => setLoc(group, key, (e.target as HTMLInputElement).value)} />
              </label>
            ))}
          </div>
        </details>
      ))}
      <p>
        <button type="button" onClick={apply}>
          Apply to the preview
        </button>{' '}
        <span role="status">{status}</span>
      </p>
    </section>
  );
}
