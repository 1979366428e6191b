/** The documents: searched by title or address, filtered by status, opened to their passages, deleted. */
import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../../api.js';
import { fill, formatNumber } from '../../i18n/index.js';
import { can } from '../../shell/state.js';
import { errorText, Status } from './AddKnowledge.js';
import { Confirm } from './Confirm.js';
import { DocumentDialog } from './DocumentDialog.js';
import { counted, useKnowledgeStrings } from './strings.js';
import type { Doc, Source } from './types.js';

const PAGE = 25;
const STATES = ['indexed', 'pending', 'failed', 'skipped'] as const;

interface DocumentsProps {
  chatbotId: string;
  sources: Source[];
  /** Changes when documents may have changed (a job ended, a source went). */
  version: number;
  onChanged(): void;
}

interface DocPage {
  documents: Doc[];
  pagination: { nextCursor: string | null };
}

export function Documents(props: DocumentsProps) {
  const t = useKnowledgeStrings();
  const base = `/chatbots/${props.chatbotId}`;
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  const [status, setStatus] = useState('');
  const [sourceId, setSourceId] = useState('');
  const [docs, setDocs] = useState<Doc[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [selected, setSelected] = useState<string[]>([]);
  const [open, setOpen] = useState<Doc | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  // Typing settles for a moment before the list is asked again.
  useEffect(() => {
    const timer = setTimeout(() => setQ(search.trim()), 250);
    return () => clearTimeout(timer);
  }, [search]);

  const query = (after?: string | null) => ({
    limit: PAGE,
    ...(q && { q }),
    ...(status && { status }),
    ...(sourceId && { sourceId }),
    ...(after && { cursor: after }),
  });

  useEffect(() => {
    let live = true;
    get<DocPage>(`${base}/documents`, { query: query() }).then(
      (page) => {
        if (!live) return;
        setDocs(page.documents);
        setCursor(page.pagination.nextCursor);
        setSelected((list) => list.filter((id) => page.documents.some((d) => d.id === id)));
      },
      (err) => live && setMessage({ ok: false, text: errorText(err) }),
    );
    return () => {
      live = false;
    };
  }, [base, q, status, sourceId, props.version]);

  const more = async () => {
    try {
      const page = await get<DocPage>(`${base}/documents`, { query: query(cursor) });
      setDocs((list) => [...(list ?? []), ...page.documents]);
      setCursor(page.pagination.nextCursor);
    } catch (err) {
      setMessage({ ok: false, text: errorText(err) });
    }
  };

  const remove = async () => {
    setMessage(null);
    try {
      const done = await post<{ deletedDocuments: Doc[] }>(`${base}/documents/delete`, {
        documentIds: selected,
        confirm: true,
      });
      setSelected([]);
      setMessage({
        ok: true,
        text: counted(t.documents.deleted, t.documents.deletedOne, done.deletedDocuments.length),
      });
      props.onChanged();
    } catch (err) {
      setMessage({ ok: false, text: errorText(err) });
    }
  };

  const sourceName = (id: string) => props.sources.find((s) => s.id === id)?.name ?? '';
  const deletable = can('knowledge:delete');
  const allShown = !!docs?.length && docs.every((d) => selected.includes(d.id));

  return (
    <section class="card" aria-labelledby="kn-docs-title">
      <h2 id="kn-docs-title">{t.documents.title}</h2>
      <div class="kn-filters" role="search">
        <label class="field grow">
          <span>{t.documents.search}</span>
          <input type="search" value={search} onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)} />
        </label>
        {props.sources.length > 1 && (
          <label class="field">
            <span>{t.documents.source}</span>
            <select value={sourceId} onChange={(e) => setSourceId((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">{t.documents.all}</option>
              {props.sources.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <label class="field">
          <span>{t.documents.status}</span>
          <select value={status} onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">{t.documents.all}</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {t.documents.state[s]}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Status message={message} />
      {docs && !docs.length && <p class="muted">{q || status || sourceId ? t.documents.noMatch : t.documents.none}</p>}
      {deletable && !!docs?.length && (
        <div class="kn-bulk">
          <label class="kn-check">
            <input
              type="checkbox"
              checked={allShown}
              onChange={() => setSelected(allShown ? [] : docs.map((d) => d.id))}
            />
            {t.documents.selectAll}
          </label>
          {selected.length > 0 && (
            <Confirm
              label={counted(t.documents.deleteSelected, t.documents.deleteSelectedOne, selected.length)}
              question={counted(t.documents.confirmDelete, t.documents.confirmDeleteOne, selected.length)}
              confirmLabel={t.common.delete}
              keepLabel={t.common.keep}
              onConfirm={remove}
            />
          )}
        </div>
      )}
      <ul class="kn-docs">
        {docs?.map((d) => (
          <li key={d.id} data-document={d.id}>
            {deletable && (
              <input
                type="checkbox"
                aria-label={fill(t.documents.select, { title: d.title })}
                checked={selected.includes(d.id)}
                onChange={(e) =>
                  setSelected((list) =>
                    (e.currentTarget as HTMLInputElement).checked ? [...list, d.id] : list.filter((id) => id !== d.id),
                  )
                }
              />
            )}
            <div class="kn-doc-main">
              <button
                type="button"
                class="kn-link kn-doc-title"
                aria-label={fill(t.documents.open, { title: d.title })}
                onClick={() => setOpen(d)}
              >
                {d.title}
              </button>
              <span class="muted small kn-doc-meta">
                {[
                  d.url ?? sourceName(d.sourceId),
                  counted(t.documents.chunks, t.documents.chunksOne, d.chunkCount, {
                    count: formatNumber(d.chunkCount),
                  }),
                ]
                  .filter(Boolean)
                  .join(' · ')}
              </span>
            </div>
            <span class={`kn-badge ${d.status}`}>{t.documents.state[d.status] ?? d.status}</span>
          </li>
        ))}
      </ul>
      {cursor && (
        <button type="button" onClick={more}>
          {t.documents.more}
        </button>
      )}
      {open && <DocumentDialog chatbotId={props.chatbotId} doc={open} onClose={() => setOpen(null)} />}
    </section>
  );
}
