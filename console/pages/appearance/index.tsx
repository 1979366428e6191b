/**
 * Appearance & behaviour: every chatbot setting, grouped as a site owner looks for it, beside the
 * real widget drawing the unsaved changes. Settings are a draft until Save sends the changed
 * fields in one PATCH (all sections together or none); lists, pictures and the identity secret
 * are saved at once through their own routes.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { WidgetConfig, WidgetPrompt } from '../../../shared/protocol.js';
import { widgetConfig } from '../../../shared/widget-config.js';
import { ApiError, get, patch } from '../../api.js';
import { fill } from '../../i18n/index.js';
import type { PageProps } from '../../registry.js';
import { can, reloadChatbots } from '../../shell/state.js';
import { Domains, Icons, Identity, Languages, LeadFields, ShownOnce } from './Editors.js';
import { Field, problem } from './Field.js';
import { GROUP_IDS, GROUPS, SECTION_OF, type GroupId } from './fields.js';
import { type Item, LISTS, ListEditor } from './ListEditor.js';
import { Preview } from './Preview.js';
import { useAppearanceStrings } from './strings.js';
import './appearance.css';

type Settings = Record<string, unknown>;

const message = (err: unknown) =>
  err instanceof ApiError ? [err.message, err.hint].filter(Boolean).join(' — ') : String(err);

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The draft as it is saved: emptied texts are null (the widget then writes its own); name and description are never null. */
const cleaned = (key: string, value: unknown) =>
  value === '' && key !== 'title' && key !== 'description' ? null : value;

const asPrompt = (p: Item): WidgetPrompt => ({
  id: p.id,
  title: String(p.title ?? ''),
  description: String(p.description ?? ''),
  link: (p.link as string | null) ?? null,
  isEscalationPrompt: p.isEscalationPrompt === true,
});

export default function AppearancePage({ chatbotId }: PageProps) {
  const t = useAppearanceStrings();
  const [saved, setSaved] = useState<Settings | null>(null);
  const [draft, setDraft] = useState<Settings | null>(null);
  const [group, setGroup] = useState<GroupId>('look');
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [starters, setStarters] = useState<Item[]>([]);
  const [followups, setFollowups] = useState<Item[]>([]);
  const writable = can('settings:write');
  const base = `/chatbots/${chatbotId}`;

  useEffect(() => {
    get<{ settings: Settings }>(`${base}/settings`).then(
      (d) => {
        setSaved(d.settings);
        setDraft(d.settings);
      },
      (err) => setNote({ ok: false, text: message(err) }),
    );
    // The preview shows starters and follow-ups too; their editors keep these current.
    if (can('starters:read'))
      get<{ starters: Item[] }>(`${base}/starters`).then(
        (d) => setStarters(d.starters),
        () => undefined,
      );
    if (can('followups:read'))
      get<{ followups: Item[] }>(`${base}/followups`).then(
        (d) => setFollowups(d.followups),
        () => undefined,
      );
  }, [base]);

  const changed = useMemo(
    () =>
      saved && draft ? Object.keys(SECTION_OF).filter((k) => !same(cleaned(k, draft[k]), cleaned(k, saved[k]))) : [],
    [saved, draft],
  );
  const config: WidgetConfig | null = useMemo(
    () =>
      draft &&
      widgetConfig(
        {
          id: chatbotId!,
          title: String(draft.title || saved?.title || ''),
          settings: Object.fromEntries(Object.entries(draft).map(([k, v]) => [k, cleaned(k, v)])),
        },
        starters.map(asPrompt),
        followups.map(asPrompt),
      ),
    [draft, starters, followups],
  );

  if (!draft || !saved || !config)
    return (
      <div class="ap">
        <h1>{t.title}</h1>
        {note ? (
          <p class="error" role="alert">
            {note.text}
          </p>
        ) : (
          <p class="loading">{t.loading}</p>
        )}
      </div>
    );

  const set = (key: string, value: unknown) => {
    setDraft({ ...draft, [key]: value });
    setNote(null);
  };
  const invalid = Object.values(GROUPS)
    .flat()
    .filter((f) => changed.includes(f.key) && problem(f, draft[f.key], t));

  const save = async () => {
    if (invalid.length) {
      const names = invalid.map((f) => t.fields[f.key as keyof typeof t.fields]?.label ?? f.key);
      return setNote({ ok: false, text: fill(t.fixFirst, { fields: names.join(', ') }) });
    }
    const body: Record<string, Settings> = {};
    for (const key of changed) (body[SECTION_OF[key]] ??= {})[key] = cleaned(key, draft[key]);
    setBusy(true);
    setNote(null);
    try {
      const done = await patch<{
        chatbot: { title: string; description: string; settings: Settings };
        signingSecret?: string;
      }>(`${base}/settings`, body);
      const next = { ...done.chatbot.settings, title: done.chatbot.title, description: done.chatbot.description };
      setSaved(next);
      setDraft(next);
      if (done.signingSecret) setSecret(done.signingSecret);
      setNote({ ok: true, text: t.saved });
      if ('title' in (body.general ?? {})) void reloadChatbots();
    } catch (err) {
      setNote({ ok: false, text: message(err) });
    } finally {
      setBusy(false);
    }
  };
  const discard = () => {
    setDraft(saved);
    setNote({ ok: true, text: t.discarded });
  };
  /** A picture saved through its own route: both the saved settings and the draft hold it. */
  const pictureSaved = (setting: string, url: string | null) => {
    setSaved({ ...saved, [setting]: url });
    setDraft({ ...draft, [setting]: url });
  };

  const fields = (id: GroupId) =>
    GROUPS[id]
      .filter((f) => !f.when || f.when(draft))
      .map((f) => <Field def={f} settings={draft} saved={saved} set={set} disabled={!writable} t={t} />);
  const props = { settings: draft, set, disabled: !writable, t };
  const panels: Record<GroupId, () => preact.ComponentChildren> = {
    look: () => (
      <>
        {fields('look')}
        <Icons chatbotId={chatbotId!} {...props} onSaved={pictureSaved} />
      </>
    ),
    messages: () => (
      <>
        {fields('messages')}
        <ListEditor kind={LISTS.starters} chatbotId={chatbotId!} t={t} onChange={setStarters} />
        <ListEditor kind={LISTS.followups} chatbotId={chatbotId!} t={t} onChange={setFollowups} />
      </>
    ),
    behaviour: () => (
      <>
        {fields('behaviour')}
        {can('instructions:read') && <ListEditor kind={LISTS.instructions} chatbotId={chatbotId!} t={t} />}
        {can('personas:read') && <ListEditor kind={LISTS.personas} chatbotId={chatbotId!} t={t} />}
        {can('instructions:read') && <ListEditor kind={LISTS.customResponses} chatbotId={chatbotId!} t={t} />}
      </>
    ),
    leads: () => (
      <>
        {fields('leads')}
        <LeadFields {...props} />
      </>
    ),
    languages: () => <Languages {...props} />,
    security: () => <Domains {...props} />,
    identity: () => <Identity chatbotId={chatbotId!} writable={writable} t={t} />,
    webhooks: () => (
      <>
        {secret && <ShownOnce label={t.webhooks.secretLabel} value={secret} note={t.webhooks.signingSecret} t={t} />}
        {fields('webhooks')}
        <p class="muted small">{t.webhooks.deliveries}</p>
      </>
    ),
  };
  const count = changed.length;

  return (
    <div class="ap">
      <h1>{t.title}</h1>
      <p class="muted ap-lead">{t.lead}</p>
      {!writable && <p class="muted">{t.readOnly}</p>}
      <div class="ap-layout">
        <div class="ap-settings">
          <nav class="ap-groups" aria-label={t.groupsLabel}>
            {GROUP_IDS.map((id) => (
              <button type="button" aria-pressed={group === id} aria-controls="ap-panel" onClick={() => setGroup(id)}>
                {t.groups[id]}
              </button>
            ))}
          </nav>
          <section id="ap-panel" class="card ap-panel" aria-labelledby="ap-group-title">
            <h2 id="ap-group-title">{t.groups[group]}</h2>
            <p class="ap-help">{t.groupHelp[group]}</p>
            {panels[group]()}
          </section>
          {writable && (
            <div class={`ap-savebar${count ? ' dirty' : ''}`}>
              <span class="grow" role="status">
                {count ? (count === 1 ? t.unsavedOne : fill(t.unsaved, { count })) : t.noChanges}
              </span>
              <button type="button" disabled={!count || busy} onClick={discard}>
                {t.discard}
              </button>
              <button type="button" class="primary" disabled={!count || busy} onClick={save}>
                {busy ? t.saving : t.save}
              </button>
            </div>
          )}
          {note && (
            <p class={note.ok ? 'notice' : 'error'} role={note.ok ? 'status' : 'alert'}>
              {note.text}
            </p>
          )}
        </div>
        <Preview config={config} dirty={count > 0} t={t} />
      </div>
    </div>
  );
}
