/**
 * Files: dropped or chosen, several at once, checked against the server's upload limits (GET
 * .../knowledge/files/limits, shown before anything is sent) and uploaded in one request.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../../api.js';
import { fill } from '../../i18n/index.js';
import type { AddProps } from './AddKnowledge.js';
import { useSubmit } from './AddKnowledge.js';
import { formatBytes } from './bytes.js';
import { counted, useKnowledgeStrings } from './strings.js';
import type { Started, UploadLimits } from './types.js';

const ACCEPT =
  '.pdf,.docx,.txt,.md,.markdown,.html,.htm,.csv,application/pdf,text/plain,text/markdown,text/html,text/csv';

export function FileDrop(props: AddProps) {
  const t = useKnowledgeStrings();
  const [limits, setLimits] = useState<UploadLimits | null>(null);
  const [files, setFiles] = useState<File[]>([]);
  const [over, setOver] = useState(false);
  const { busy, run, status } = useSubmit(props);

  useEffect(() => {
    get<{ limits: UploadLimits }>(`/chatbots/${props.chatbotId}/knowledge/files/limits`).then(
      (d) => setLimits(d.limits),
      () => setLimits(null),
    );
  }, [props.chatbotId]);

  const add = (list: FileList | null | undefined) => {
    if (!list?.length) return;
    // The same file chosen twice is kept once.
    setFiles((old) => [...old, ...[...list].filter((f) => !old.some((o) => o.name === f.name && o.size === f.size))]);
  };

  const problems: string[] = [];
  if (limits) {
    const each = formatBytes(limits.maxFileBytes);
    const total = files.reduce((n, f) => n + f.size, 0);
    if (files.length > limits.maxFiles) problems.push(fill(t.files.tooMany, { files: limits.maxFiles }));
    for (const f of files) {
      if (f.size > limits.maxFileBytes) problems.push(fill(t.files.tooBig, { name: f.name, each }));
      else if (!f.size) problems.push(fill(t.files.empty, { name: f.name }));
    }
    if (total > limits.maxTotalBytes)
      problems.push(fill(t.files.tooBigTotal, { size: formatBytes(total), total: formatBytes(limits.maxTotalBytes) }));
  }

  const upload = (e: Event) => {
    e.preventDefault();
    if (!files.length || problems.length) return;
    const form = new FormData();
    for (const f of files) form.append('files', f, f.name);
    void run(
      () => post<Started>(`/chatbots/${props.chatbotId}/knowledge/files`, form),
      () => setFiles([]),
    );
  };

  return (
    <form class="kn-form" onSubmit={upload}>
      <div
        class={`kn-drop${over ? ' over' : ''}`}
        data-testid="file-drop"
        onDragEnter={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragOver={(e) => {
          e.preventDefault();
          if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
        }}
        onDragLeave={(e) => {
          if (!(e.currentTarget as Node).contains(e.relatedTarget as Node | null)) setOver(false);
        }}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          add(e.dataTransfer?.files);
        }}
      >
        <svg aria-hidden="true" viewBox="0 0 24 24" width="32" height="32">
          <path
            fill="none"
            stroke="currentColor"
            stroke-width="1.6"
            stroke-linecap="round"
            stroke-linejoin="round"
            d="M12 16V4m0 0L7 9m5-5 5 5M4 16v3a1 1 0 0 0 1 1h14a1 1 0 0 0 1-1v-3"
          />
        </svg>
        <p>{t.files.drop}</p>
        <label class="kn-button kn-choose">
          {t.files.choose}
          <input
            type="file"
            multiple
            accept={ACCEPT}
            class="visually-hidden"
            onChange={(e) => {
              add((e.currentTarget as HTMLInputElement).files);
              (e.currentTarget as HTMLInputElement).value = '';
            }}
          />
        </label>
        {limits && (
          <p class="muted small" id="kn-limits">
            {fill(t.files.limits, {
              files: limits.maxFiles,
              each: formatBytes(limits.maxFileBytes),
              total: formatBytes(limits.maxTotalBytes),
            })}
          </p>
        )}
      </div>
      {files.length > 0 && (
        <ul class="kn-files" aria-label={t.files.chosen}>
          {files.map((f) => (
            <li key={`${f.name}/${f.size}`}>
              <span class="name">{f.name}</span>
              <span class="muted small">{formatBytes(f.size)}</span>
              <button
                type="button"
                class="kn-link"
                aria-label={fill(t.files.remove, { name: f.name })}
                onClick={() => setFiles((list) => list.filter((x) => x !== f))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {problems.length > 0 && (
        <ul role="alert" class="error kn-problems">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <button type="submit" class="primary" disabled={busy || !files.length || problems.length > 0}>
        {busy ? t.files.uploading : counted(t.files.upload, t.files.uploadOne, files.length)}
      </button>
      {status}
    </form>
  );
}
