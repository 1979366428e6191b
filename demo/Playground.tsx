/**
 * The console's settings form for every appearance and localization setting (the same labels,
 * help and controls as the console's Appearance page). A change redraws the real widget at once
 * with the settings not saved yet (the config computed by the server's own widgetConfig, handed
 * to widget.js as window.parleyPreview); Apply saves them to the chatbot and redraws from the
 * server; Reset drops the changes.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { WidgetConfig, WidgetPrompt } from '../shared/protocol.js';
import { widgetConfig } from '../shared/widget-config.js';
import { Languages } from '../console/pages/appearance/Editors.js';
import { Field } from '../console/pages/appearance/Field.js';
import { GROUPS, type GroupId } from '../console/pages/appearance/fields.js';
import { en as t } from '../console/pages/appearance/strings/en.js';
import '../console/pages/appearance/appearance.css';
import type { Api } from './api.js';

/** The appearance section's fields, in the console's groups (the rest needs an account's console). */
const SHOWN: GroupId[] = ['look', 'messages', 'behaviour'];
const APPEARANCE = SHOWN.flatMap((g) => GROUPS[g].filter((f) => f.section === 'appearance'));

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
  const apply = async () => {
    clearTimeout(timer.current);
    setStatus('Saving…');
    const appearance = Object.fromEntries(
      APPEARANCE.map((f) => [f.key, settings[f.key] === '' ? null : settings[f.key]]),
    );
    try {
      const saved = await client.call('PATCH', `/chatbots/${chatbotId}/settings`, {
        appearance,
        localization: { localization: settings.localization ?? null },
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
      {SHOWN.map((g) => (
        <>
          <h2>{t.groups[g]}</h2>
          {APPEARANCE.filter((f) => GROUPS[g].includes(f) && (!f.when || f.when(settings))).map((f) => (
            <Field def={f} settings={settings} saved={chatbot.settings} set={set} disabled={false} t={t} />
          ))}
        </>
      ))}
      <h2>{t.groups.languages}</h2>
      <Languages settings={settings} set={set} disabled={false} t={t} />
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
