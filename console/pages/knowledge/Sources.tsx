/** The sources: what each is, how many documents it gave, when it was read; read again, delete. */
import { useState } from 'preact/hooks';
import { del, post } from '../../api.js';
import { fill, formatDate } from '../../i18n/index.js';
import { can } from '../../shell/state.js';
import { errorText } from './AddKnowledge.js';
import { Confirm } from './Confirm.js';
import { ErrorText } from './Jobs.js';
import { sourceState } from './states.js';
import { counted, useKnowledgeStrings, type Strings } from './strings.js';
import type { Source, Started } from './types.js';

interface SourcesProps {
  chatbotId: string;
  sources: Source[] | null;
  onStarted(started: Started): void;
  onChanged(): void;
}

/** How often a source is read again, in the words the add form used. */
const every = (t: Strings, minutes: number) =>
  minutes === 1440
    ? t.add.daily.toLowerCase()
    : minutes === 10080
      ? t.add.weekly.toLowerCase()
      : fill(t.sources.everyMinutes, { n: minutes });

export function Sources(props: SourcesProps) {
  const t = useKnowledgeStrings();
  const [error, setError] = useState<string | null>(null);
  const base = `/chatbots/${props.chatbotId}/knowledge/sources`;
  const act = async (fn: () => Promise<void>) => {
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <section class="card" aria-labelledby="kn-sources-title">
      <h2 id="kn-sources-title">{t.sources.title}</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {props.sources && !props.sources.length && <p class="muted">{t.sources.none}</p>}
      <ul class="kn-sources">
        {props.sources?.map((s) => (
          <li key={s.id} data-source={s.id}>
            <div class="kn-source-main">
              <strong class="kn-source-name">{s.name}</strong>
              <span class="muted small">
                {t.sources.type[s.type] ?? s.type} ·{' '}
                {counted(t.sources.documents, t.sources.documentsOne, s.documentCount)}
                {s.syncIntervalMinutes && ` · ${fill(t.sources.auto, { when: every(t, s.syncIntervalMinutes) })}`}
                {s.lastSyncAt &&
                  ` · ${fill(t.sources.lastSync, { date: formatDate(s.lastSyncAt, { dateStyle: 'medium', timeStyle: 'short' }) })}`}
              </span>
              {s.lastError && <ErrorText t={t} error={s.lastError} class="small" />}
            </div>
            <span class={`kn-badge ${sourceState(s)}`}>{t.sources.status[sourceState(s)] ?? s.status}</span>
            <div class="actions">
              {can('knowledge:write') && s.type !== 'text' && s.type !== 'files' && (
                <button
                  type="button"
                  disabled={s.status === 'syncing'}
                  onClick={() => act(async () => props.onStarted(await post<Started>(`${base}/${s.id}/sync`)))}
                >
                  {t.sources.resync}
                </button>
              )}
              {can('knowledge:delete') && (
                <Confirm
                  label={t.sources.delete}
                  question={fill(t.sources.confirmDelete, { name: s.name, count: s.documentCount })}
                  confirmLabel={t.sources.delete}
                  keepLabel={t.common.keep}
                  onConfirm={() =>
                    act(async () => {
                      await del(`${base}/${s.id}`, { query: { confirm: true } });
                      props.onChanged();
                    })
                  }
                />
              )}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
