/**
 * Knowledge gaps: the questions nobody could answer, answered in place. The API saves the answer
 * as a custom response to the question and sends it to the visitor who asked.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, del, get, post } from '../../api.js';
import { fill, formatDate } from '../../i18n/index.js';
import type { PageProps } from '../../registry.js';
import { can } from '../../shell/state.js';
import { useGapStrings } from './strings.js';
import './gaps.css';

interface Gap {
  id: string;
  question: string;
  answered: boolean;
  answeredAt: string | null;
  customResponseId: string | null;
  createdAt: string;
}

interface GapPage {
  knowledgeGaps: Gap[];
  pagination: { nextCursor: string | null };
}

const message = (err: unknown) =>
  err instanceof ApiError ? [err.message, err.hint].filter(Boolean).join(' — ') : String(err);

export default function GapsPage({ chatbotId }: PageProps) {
  const t = useGapStrings();
  const base = `/chatbots/${chatbotId}/knowledge-gaps`;
  const [answered, setAnswered] = useState(false);
  const [gaps, setGaps] = useState<Gap[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = async (after: string | null) => {
    try {
      const page = await get<GapPage>(base, { query: { answered, limit: 25, ...(after && { cursor: after }) } });
      setGaps((list) => [...(after ? (list ?? []) : []), ...page.knowledgeGaps]);
      setCursor(page.pagination.nextCursor);
    } catch (err) {
      setError(message(err));
    }
  };
  useEffect(() => {
    setGaps(null);
    void load(null);
  }, [base, answered]);

  return (
    <div class="gaps">
      <h1>{t.title}</h1>
      <p class="muted lead">{t.lead}</p>
      <fieldset class="gap-filter">
        <legend class="visually-hidden">{t.show}</legend>
        <label>
          <input type="radio" name="gap-filter" checked={!answered} onChange={() => setAnswered(false)} />
          <span>{t.open}</span>
        </label>
        <label>
          <input type="radio" name="gap-filter" checked={answered} onChange={() => setAnswered(true)} />
          <span>{t.answered}</span>
        </label>
      </fieldset>
      {!can('instructions:write') && <p class="muted">{t.noWrite}</p>}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {gaps && !gaps.length && <p class="muted gaps-empty">{answered ? t.noneAnswered : t.none}</p>}
      <ul class="gap-list">
        {gaps?.map((g) => (
          <GapItem
            key={g.id}
            gap={g}
            chatbotId={chatbotId!}
            onDeleted={() => setGaps((list) => list?.filter((x) => x.id !== g.id) ?? null)}
          />
        ))}
      </ul>
      {cursor && (
        <button type="button" onClick={() => load(cursor)}>
          {t.more}
        </button>
      )}
    </div>
  );
}

function GapItem(props: { gap: Gap; chatbotId: string; onDeleted(): void }) {
  const t = useGapStrings();
  const [gap, setGap] = useState(props.gap);
  const [current, setCurrent] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const base = `/chatbots/${props.chatbotId}`;
  const writable = can('instructions:write');

  // An answered gap shows the answer its custom response gives now.
  useEffect(() => {
    if (!gap.customResponseId || !can('instructions:read')) return;
    get<{ customResponse: { answer: string } }>(`${base}/custom-responses/${gap.customResponseId}`).then(
      (d) => setCurrent(d.customResponse.answer),
      () => setCurrent(null),
    );
  }, [gap.customResponseId]);

  const send = async (e: Event) => {
    e.preventDefault();
    if (!draft.trim()) return;
    setBusy(true);
    setNote(null);
    try {
      const done = await post<{ knowledgeGap: Gap; customResponse: { answer: string } }>(
        `${base}/knowledge-gaps/${gap.id}/answer`,
        { answer: draft.trim() },
      );
      setGap(done.knowledgeGap);
      setCurrent(done.customResponse.answer);
      setDraft('');
      setNote({ ok: true, text: t.saved });
    } catch (err) {
      setNote({ ok: false, text: message(err) });
    } finally {
      setBusy(false);
    }
  };
  const dismiss = async () => {
    try {
      await del(`${base}/knowledge-gaps/${gap.id}`, { query: { confirm: true } });
      props.onDeleted();
    } catch (err) {
      setNote({ ok: false, text: message(err) });
      setConfirming(false);
    }
  };

  const field = `gap-answer-${gap.id}`;
  return (
    <li class={`gap card${gap.answered ? ' answered' : ''}`} data-gap={gap.id}>
      <blockquote class="gap-question" id={`gap-q-${gap.id}`}>
        {gap.question}
      </blockquote>
      <p class="muted small">
        {fill(t.asked, { date: formatDate(gap.createdAt, { dateStyle: 'medium', timeStyle: 'short' }) })}
        {gap.answeredAt &&
          ` · ${fill(t.answeredOn, { date: formatDate(gap.answeredAt, { dateStyle: 'medium', timeStyle: 'short' }) })}`}
      </p>
      {current !== null && (
        <div class="gap-current">
          <p class="small muted">{t.current}</p>
          <p class="gap-answer-text">{current}</p>
        </div>
      )}
      {writable && (
        <form onSubmit={send} class="gap-form">
          <label class="field">
            <span>{t.answer}</span>
            <textarea
              id={field}
              rows={3}
              maxLength={8000}
              aria-describedby={`gap-q-${gap.id}`}
              value={draft}
              onInput={(e) => setDraft((e.currentTarget as HTMLTextAreaElement).value)}
            />
          </label>
          <div class="actions">
            <button type="submit" class="primary" disabled={busy || !draft.trim()}>
              {busy ? t.saving : gap.answered ? t.update : t.save}
            </button>
            {can('conversations:delete') &&
              (confirming ? (
                <span class="gap-confirm" role="group" aria-label={t.confirmDelete}>
                  <span>{t.confirmDelete}</span>
                  <button type="button" class="danger" onClick={dismiss}>
                    {t.delete}
                  </button>
                  <button type="button" onClick={() => setConfirming(false)}>
                    {t.keep}
                  </button>
                </span>
              ) : (
                <button type="button" class="gap-quiet" onClick={() => setConfirming(true)}>
                  {t.delete}
                </button>
              ))}
          </div>
        </form>
      )}
      <div role="status">{note && <p class={note.ok ? 'notice' : 'error'}>{note.text}</p>}</div>
    </li>
  );
}
