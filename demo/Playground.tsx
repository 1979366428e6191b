/**
 * A control for every appearance and localization setting. A change redraws the real widget at
 * once with the settings not saved yet (the config computed by the server's own widgetConfig,
 * handed to widget.js as window.parleyPreview); Apply saves them to the chatbot and redraws from
 * the server; Reset drops the changes.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { WidgetConfig, WidgetPrompt } from '../shared/protocol.js';
import { widgetConfig } from '../shared/widget-config.js';
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

/** Redraws the widget: with `config` (unsaved settings), or as the server serves it (null). */
export type Preview = (config: WidgetConfig | null) => void;

/** Settings as the widget config reads them: an emptied field is null, as Apply saves it. */
const asSaved = (settings: Record<string, any>) =>
  Object.fromEntries(
    Object.entries(settings).map(([k, v]) => [k, v === '' && APPEARANCE.some((f) => f.key === k) ? null : v]),
  );

export function Playground({ client, chatbotId, preview }: { client: Api; chatbotId: string; preview: Preview }) {
  const [chatbot, setChatbot] = useState<{ title: string; settings: Record<string, any> } | null>(null);
  const [settings, setSettings] = useState<Record<string, any> | null>(null);
  const [prompts, setPrompts] = useState<{ starters: WidgetPrompt[]; followUps: WidgetPrompt[] }>({
    starters: [],
    followUps: [],
  });
  const [status, setStatus] = useState('');
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => {
    client.call('GET', `/chatbots/${chatbotId}`).then(
      (d) => {
        setChatbot(d.chatbot);
        setSettings(d.chatbot.settings);
      },
      (e) => setStatus(String(e.message)),
    );
    // Starters and follow-ups as visitors get them (the preview changes only settings).
    fetch(`/api/widget/${chatbotId}/config`)
      .then((r) => r.json())
      .then(
        (e) => e.ok && setPrompts({ starters: e.data.starters, followUps: e.data.followUps }),
        () => {},
      );
    return () => clearTimeout(timer.current);
  }, [chatbotId]);
  if (!settings || !chatbot) return <p>{status || 'Loading settings…'}</p>;
  const changed = JSON.stringify(settings) !== JSON.stringify(chatbot.settings);
  const show = (next: Record<string, any>) => {
    clearTimeout(timer.current);
    // Typing redraws once it pauses, not at every key.
    timer.current = setTimeout(
      () =>
        preview(
          widgetConfig(
            { id: chatbotId, title: chatbot.title, settings: asSaved(next) },
            prompts.starters,
            prompts.followUps,
          ),
        ),
      250,
    );
  };
  const set = (key: string, value: unknown) => {
    const next = { ...settings, [key]: value };
    setSettings(next);
    setStatus('');
    show(next);
  };
  const loc: Record<string, any> = settings.localization ?? {};
  const setLoc = (group: string, key: string | null, value: string) => {
    const next = { ...loc };
    if (key === null) next[group] = value || null;
    else next[group] = { ...(loc[group] ?? {}), [key]: value };
    set('localization', next);
  };
  const ratio = contrast(settings.brandColor ?? '#000000', settings.brandTextColor ?? '#ffffff');
  const apply = async () => {
    clearTimeout(timer.current);
    setStatus('Saving…');
    const appearance = Object.fromEntries(
      APPEARANCE.map((f) => [f.key, settings[f.key] === '' ? null : settings[f.key]]),
    );
    const clean = Object.fromEntries(Object.entries(loc).filter(([, v]) => v !== null && v !== ''));
    try {
      const saved = await client.call('PATCH', `/chatbots/${chatbotId}/settings`, {
        appearance,
        localization: { localization: Object.keys(clean).length ? clean : null },
      });
      setChatbot(saved.chatbot);
      setSettings(saved.chatbot.settings);
      setStatus('Saved');
      preview(null);
    } catch (e) {
      setStatus((e as Error).message);
    }
  };
  const reset = () => {
    clearTimeout(timer.current);
    setSettings(chatbot.settings);
    setStatus('Changes discarded');
    preview(null);
  };
  return (
    <section>
      <h2>Appearance</h2>
      <div class="grid">
        {APPEARANCE.map((f) => (
          <label>
            {f.key}
            {f.kind === 'bool' ? (
              <input
                type="checkbox"
                checked={!!settings[f.key]}
                onChange={(e) => set(f.key, (e.target as HTMLInputElement).checked)}
              />
            ) : f.kind === 'select' ? (
              <select value={settings[f.key] ?? ''} onChange={(e) => set(f.key, (e.target as HTMLSelectElement).value)}>
                {f.options!.map((o) => (
                  <option value={o}>{o}</option>
                ))}
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
          Brand colour and text colour contrast is {ratio.toFixed(2)}:1, below 4.5:1: the header and your visitors'
          messages will be hard to read.
        </p>
      )}
      <h2>Localization</h2>
      <label>
        locale
        <select
          value={loc.locale ?? ''}
          onChange={(e) => setLoc('locale', null, (e.target as HTMLSelectElement).value)}
        >
          {LOCALES.map((l) => (
            <option value={l}>{l || '(English)'}</option>
          ))}
        </select>
      </label>
      <label>
        learnMore
        <input
          value={loc.learnMore ?? ''}
          placeholder={en.learnMore}
          onInput={(e) => setLoc('learnMore', null, (e.target as HTMLInputElement).value)}
        />
      </label>
      {GROUPS.map((group) => (
        <details>
          <summary>{group}</summary>
          <div class="grid">
            {Object.entries(en[group]).map(([key, text]) => (
              <label>
                {key}
                <input
                  value={loc[group]?.[key] ?? ''}
                  placeholder={text}
                  onInput={(e) => setLoc(group, key, (e.target as HTMLInputElement).value)}
                />
              </label>
            ))}
          </div>
        </details>
      ))}
      <p class="actions">
        <button type="button" onClick={apply} disabled={!changed}>
          Apply
        </button>
        <button type="button" onClick={reset} disabled={!changed}>
          Reset
        </button>
        <span role="status">
          {status ||
            (changed
              ? 'Unsaved changes: the preview shows them; Apply saves them to the chatbot'
              : 'The preview shows the saved settings')}
        </span>
      </p>
    </section>
  );
}
