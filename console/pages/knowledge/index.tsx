/**
 * The knowledge page: add knowledge of every kind, watch each ingest job while it runs, manage
 * the sources, and list, search, open and delete documents.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { get } from '../../api.js';
import { fill } from '../../i18n/index.js';
import type { PageProps } from '../../registry.js';
import { can } from '../../shell/state.js';
import { AddKnowledge } from './AddKnowledge.js';
import { Documents } from './Documents.js';
import { Jobs } from './Jobs.js';
import { Sources } from './Sources.js';
import { jobStatusText } from './states.js';
import { useKnowledgeStrings } from './strings.js';
import { isActive, type Job, type Source, type Started } from './types.js';
import './knowledge.css';

/** A running job is read again soon after it starts, then less often (to 2 s): short jobs end in view, long crawls cost little. */
const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 2000;
const JOBS_SHOWN = 5;

export default function KnowledgePage({ chatbotId }: PageProps) {
  const t = useKnowledgeStrings();
  const base = `/chatbots/${chatbotId}`;
  const [sources, setSources] = useState<Source[] | null>(null);
  const [jobs, setJobs] = useState<Job[] | null>(null);
  const [jobLimit, setJobLimit] = useState(JOBS_SHOWN);
  const [hasMoreJobs, setHasMoreJobs] = useState(false);
  /** Bumped when a job ends or documents change: the document list reloads. */
  const [version, setVersion] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const active = useRef(new Set<string>());
  /** Said to screen readers when a job ends (the badges change silently). */
  const [announcement, setAnnouncement] = useState('');
  const words = useRef(t);
  words.current = t;
  const sourcesById = useRef(new Map<string, Source>());

  const loadSources = useCallback(async () => {
    const data = await get<{ sources: Source[] }>(`${base}/knowledge/sources`);
    sourcesById.current = new Map(data.sources.map((s) => [s.id, s]));
    setSources(data.sources);
  }, [base]);

  const loadJobs = useCallback(async () => {
    const data = await get<{ jobs: Job[]; pagination: { hasNextPage: boolean } }>(`${base}/ingest-jobs`, {
      query: { limit: jobLimit },
    });
    const ended = data.jobs.filter((j) => active.current.has(j.id) && !isActive(j));
    active.current = new Set(data.jobs.filter(isActive).map((j) => j.id));
    setJobs(data.jobs);
    setHasMoreJobs(data.pagination.hasNextPage);
    if (ended.length) {
      const w = words.current;
      setAnnouncement(
        ended
          .map((j) =>
            fill(w.jobs.ended, {
              name: sourcesById.current.get(j.sourceId)?.name ?? w.jobs.trigger[j.trigger],
              status: jobStatusText(w, j.status, sourcesById.current.get(j.sourceId)?.type),
            }),
          )
          .join(' '),
      );
      setVersion((v) => v + 1);
      await loadSources();
    }
  }, [base, jobLimit, loadSources]);

  const fail = (err: unknown) => setError(err instanceof Error ? err.message : String(err));

  useEffect(() => {
    loadSources().catch(fail);
  }, [loadSources]);
  useEffect(() => {
    loadJobs().catch(fail);
  }, [loadJobs]);

  // Live: while a job is queued or running, read the jobs again; a job started here starts the pace over.
  const running = jobs?.some(isActive) ?? false;
  const [pace, setPace] = useState(0);
  useEffect(() => {
    if (!running) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const tick = (delay: number) => {
      timer = setTimeout(async () => {
        await loadJobs().catch(fail);
        if (!stopped) tick(Math.min(delay * 1.5, MAX_POLL_MS));
      }, delay);
    };
    tick(FIRST_POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [running, loadJobs, pace]);

  const onStarted = (started: Started) => {
    setJobs((list) => [started.job, ...(list ?? []).filter((j) => j.id !== started.job.id)]);
    active.current.add(started.job.id);
    setPace((n) => n + 1);
    loadSources().catch(fail);
  };
  const onChanged = () => {
    setVersion((v) => v + 1);
    loadSources().catch(fail);
    loadJobs().catch(fail);
  };

  return (
    <div class="knowledge">
      <h1>{t.title}</h1>
      <p class="muted lead">{t.lead}</p>
      <p role="status" class="visually-hidden">
        {announcement}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {can('knowledge:write') ? (
        <AddKnowledge chatbotId={chatbotId!} onStarted={onStarted} />
      ) : (
        <p class="muted">{t.add.noWrite}</p>
      )}
      <Jobs
        chatbotId={chatbotId!}
        jobs={jobs}
        sources={sources ?? []}
        hasMore={hasMoreJobs}
        onMore={() => setJobLimit((n) => n + 10)}
        onChanged={() => loadJobs().catch(fail)}
      />
      <Sources chatbotId={chatbotId!} sources={sources} onStarted={onStarted} onChanged={onChanged} />
      <Documents chatbotId={chatbotId!} sources={sources ?? []} version={version} onChanged={onChanged} />
    </div>
  );
}
