/** The ingest jobs, newest first, live while they run: counts, a progress bar, failures in words, cancel. */
import { useState } from 'preact/hooks';
import { post } from '../../api.js';
import { fill, formatDate, formatNumber } from '../../i18n/index.js';
import { can } from '../../shell/state.js';
import { errorText } from './AddKnowledge.js';
import { reasonOf } from './reasons.js';
import { failuresSummary, jobStatusText } from './states.js';
import { useKnowledgeStrings, type Strings } from './strings.js';
import { isActive, type Job, type Source } from './types.js';

interface JobsProps {
  chatbotId: string;
  jobs: Job[] | null;
  sources: Source[];
  hasMore: boolean;
  onMore(): void;
  onChanged(): void;
}

export function Jobs(props: JobsProps) {
  const t = useKnowledgeStrings();
  return (
    <section class="card" aria-labelledby="kn-jobs-title">
      <h2 id="kn-jobs-title">{t.jobs.title}</h2>
      {props.jobs && !props.jobs.length && <p class="muted">{t.jobs.none}</p>}
      <ul class="kn-jobs">
        {props.jobs?.map((job) => (
          <JobItem
            key={job.id}
            job={job}
            chatbotId={props.chatbotId}
            source={props.sources.find((s) => s.id === job.sourceId)}
            onChanged={props.onChanged}
          />
        ))}
      </ul>
      {props.hasMore && (
        <button type="button" onClick={props.onMore}>
          {t.jobs.more}
        </button>
      )}
    </section>
  );
}

export const reasonText = (t: Strings, error: string): string => {
  const { key, status, cause } = reasonOf(error);
  return fill(t.reasons[key], { status: status ?? '', reason: cause ? reasonText(t, cause) : '' });
};

/** A job's or source's error: the sentence, and the server's own words when the sentence is a generic one. */
export function ErrorText(props: { t: Strings; error: string; class?: string }) {
  const { key } = reasonOf(props.error);
  return (
    <p class={`error ${props.class ?? ''}`}>
      {reasonText(props.t, props.error)}
      {(key === 'other' || key === 'stopped') && <code class="kn-raw">{props.error}</code>}
    </p>
  );
}

function JobItem(props: { job: Job; chatbotId: string; source: Source | undefined; onChanged(): void }) {
  const t = useKnowledgeStrings();
  const { job } = props;
  const [error, setError] = useState<string | null>(null);
  const { found, done, failed, skipped } = job.counts;
  const processed = done + failed + skipped;
  const active = isActive(job);
  const cancel = async () => {
    setError(null);
    try {
      await post(`/chatbots/${props.chatbotId}/ingest-jobs/${job.id}/cancel`);
      props.onChanged();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const label = props.source?.name || t.jobs.trigger[job.trigger];
  return (
    <li class={`kn-job status-${job.status}`} data-job={job.id}>
      <div class="kn-job-head">
        <strong class="kn-job-name">{label}</strong>
        <span class={`kn-badge ${job.status}`}>{jobStatusText(t, job.status, props.source?.type)}</span>
        <span class="muted small">
          {t.jobs.trigger[job.trigger]} ·{' '}
          {fill(t.jobs.started, { date: formatDate(job.createdAt, { dateStyle: 'medium', timeStyle: 'short' }) })}
        </span>
      </div>
      <progress
        max={found || 1}
        {...(active && !found ? {} : { value: found ? processed : 1 })}
        aria-label={fill(t.jobs.progress, { name: label })}
      />
      <dl class="kn-counts">
        <div>
          <dt>{t.jobs.found}</dt>
          <dd data-count="found">{formatNumber(found)}</dd>
        </div>
        <div>
          <dt>{t.jobs.done}</dt>
          <dd data-count="done">{formatNumber(done)}</dd>
        </div>
        <div class={failed ? 'bad' : ''}>
          <dt>{t.jobs.failed}</dt>
          <dd data-count="failed">{formatNumber(failed)}</dd>
        </div>
        <div>
          <dt>{t.jobs.skipped}</dt>
          <dd data-count="skipped">{formatNumber(skipped)}</dd>
        </div>
      </dl>
      {/* The list below already says why each page failed; the job's own error only when there is none. */}
      {job.error && !job.errors.length && <ErrorText t={t} error={job.error} />}
      {job.errors.length > 0 && (
        <details class="kn-failures">
          <summary>{failuresSummary(t, props.source?.type, job.errors.length)}</summary>
          <ul>
            {job.errors.map((e) => (
              <li key={e.url}>
                <a href={e.url} target="_blank" rel="noopener noreferrer" class="kn-url">
                  {e.url}
                </a>
                <span>{reasonText(t, e.error)}</span>
                <code class="muted small">{e.error}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
      {active && can('knowledge:write') && (
        <div class="actions">
          {job.cancelRequested ? (
            <span class="muted small" role="status">
              {t.jobs.cancelling}
            </span>
          ) : (
            <button type="button" onClick={cancel}>
              {t.jobs.cancel}
            </button>
          )}
        </div>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </li>
  );
}
