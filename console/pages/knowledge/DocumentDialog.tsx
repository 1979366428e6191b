/** One document opened: its passages (chunks) in reading order, as the chatbot answers from them. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get } from '../../api.js';
import { fill, formatNumber } from '../../i18n/index.js';
import { errorText } from './AddKnowledge.js';
import { ErrorText } from './Jobs.js';
import { counted, useKnowledgeStrings } from './strings.js';
import type { Chunk, Doc } from './types.js';

interface ChunkPage {
  document: Doc;
  chunks: Chunk[];
  pagination: { nextCursor: string | null };
}

const clock = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;

export function DocumentDialog(props: { chatbotId: string; doc: Doc; onClose(): void }) {
  const t = useKnowledgeStrings();
  const dialog = useRef<HTMLDialogElement>(null);
  const [doc, setDoc] = useState(props.doc);
  const [chunks, setChunks] = useState<Chunk[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const path = `/chatbots/${props.chatbotId}/documents/${props.doc.id}/chunks`;

  const load = async (after: string | null) => {
    try {
      const page = await get<ChunkPage>(path, { query: { limit: 50, ...(after && { cursor: after }) } });
      setDoc(page.document);
      setChunks((list) => [...(after ? (list ?? []) : []), ...page.chunks]);
      setCursor(page.pagination.nextCursor);
    } catch (err) {
      setError(errorText(err));
    }
  };

  useEffect(() => {
    dialog.current?.showModal();
    void load(null);
  }, []);

  const titleId = `kn-doc-${props.doc.id}`;
  return (
    <dialog ref={dialog} class="kn-dialog" aria-labelledby={titleId} onClose={props.onClose}>
      <header>
        <h2 id={titleId}>{doc.title}</h2>
        <button type="button" class="kn-close" onClick={() => dialog.current?.close()} aria-label={t.common.close}>
          ×
        </button>
      </header>
      {doc.url && (
        <p>
          <a href={doc.url} target="_blank" rel="noopener noreferrer" class="kn-url">
            {t.doc.source}: {doc.url}
          </a>
        </p>
      )}
      {doc.error && <ErrorText t={t} error={doc.error} />}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {chunks && (
        <p class="muted">
          {counted(t.doc.passages, t.doc.passagesOne, doc.chunkCount, { count: formatNumber(doc.chunkCount) })}
        </p>
      )}
      <ol class="kn-chunks">
        {chunks?.map((c) => (
          <li key={c.index} data-chunk={c.index}>
            <p class="kn-chunk-head small">
              <strong>{fill(t.doc.passage, { n: c.index + 1 })}</strong>
              {c.headingPath.length > 0 && <span> · {c.headingPath.join(' › ')}</span>}
              {c.location.page !== undefined && <span> · {fill(t.doc.page, { page: c.location.page })}</span>}
              {c.location.startSeconds !== undefined && (
                <span> · {fill(t.doc.at, { time: clock(c.location.startSeconds) })}</span>
              )}
            </p>
            <p class="kn-chunk-text">{c.text}</p>
          </li>
        ))}
      </ol>
      {cursor && (
        <button type="button" onClick={() => load(cursor)}>
          {t.doc.more}
        </button>
      )}
    </dialog>
  );
}
