/**
 * The Prometheus instruments of one app (prom-client), on a registry of its own so two apps in one
 * process (tests, the bench) never count into each other. Names follow Prometheus' conventions:
 * `_total` counters, `_seconds` histograms, base units. Labels are small closed sets (a route's
 * pattern, never its URL; no ids), so a scrape stays small whatever the traffic.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Seconds: 5 ms to 10 s, enough resolution for p50/p95/p99 of requests and jobs. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Answers take longer (a language model streams for seconds). */
const ANSWER_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60];

export type ConnectionKind = 'visitor_socket' | 'visitor_sse' | 'team_socket';
export type AnswerOutcome = 'answered' | 'not_sure' | 'refused';

export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'parley_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'parley_http_request_duration_seconds',
    help: 'Time from request to response, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  readonly connections = new Gauge({
    name: 'parley_realtime_connections',
    help: 'Open realtime connections on this instance: visitor sockets, visitor SSE streams, team sockets',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly messages = new Counter({
    name: 'parley_messages_total',
    help: 'Conversation messages stored: in (from visitors), out (from the AI or the team)',
    labelNames: ['direction', 'author'] as const,
    registers: [this.registry],
  });
  readonly answers = new Counter({
    name: 'parley_answers_total',
    help: 'Answers stored, by answerer (built-in, openai, custom-response, unavailable, busy) and outcome (answered, not_sure, refused)',
    labelNames: ['answerer', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly answerDuration = new Histogram({
    name: 'parley_answer_duration_seconds',
    help: 'Time to write an answer, from the visitor message to the stored answer, by answerer',
    labelNames: ['answerer'] as const,
    buckets: ANSWER_BUCKETS,
    registers: [this.registry],
  });
  readonly ingestJobs = new Counter({
    name: 'parley_ingest_jobs_total',
    help: 'Ingest jobs ended, by outcome (succeeded, partially_succeeded, failed, cancelled)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly ingestItems = new Counter({
    name: 'parley_ingest_items_total',
    help: 'Ingest items (pages, files, videos) processed, by item type and outcome (done, failed, skipped)',
    labelNames: ['type', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly queueJobs = new Counter({
    name: 'parley_queue_jobs_total',
    help: 'Background job attempts ended on this instance, by job name and outcome (done, retry, failed, interrupted)',
    labelNames: ['name', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly queueJobDuration = new Histogram({
    name: 'parley_queue_job_duration_seconds',
    help: 'Time one background job attempt ran, by job name',
    labelNames: ['name'] as const,
    buckets: [0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
    registers: [this.registry],
  });
  readonly webhookAttempts = new Counter({
    name: 'parley_webhook_attempts_total',
    help: 'Webhook HTTP attempts, by outcome (delivered: 2xx; rejected: another status; unreachable: no answer)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Counter({
    name: 'parley_webhook_deliveries_total',
    help: 'Webhook delivery rounds decided, by outcome (delivered; retry: failed, another attempt scheduled; failed: the schedule ran out; skipped: the target disabled or no longer wanted)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly webhookDuration = new Histogram({
    name: 'parley_webhook_attempt_duration_seconds',
    help: 'Time one webhook attempt took',
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });

  private defaults = false;

  constructor() {
    // Every kind shows from the first scrape, at 0, so a dashboard's query never starts empty.
    for (const kind of ['visitor_socket', 'visitor_sse', 'team_socket'] as const) this.connections.set({ kind }, 0);
  }

  /** Node's own metrics (event-loop lag, heap, GC, handles, CPU), prefixed `parley_`; once per registry. */
  collectDefaults() {
    if (this.defaults) return;
    this.defaults = true;
    collectDefaultMetrics({ register: this.registry, prefix: 'parley_' });
  }

  /** A gauge read at scrape time (queue depth, pool state): `read` sets its values. */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: (g: Gauge<L>) => Promise<void> | void,
  ): Gauge<L> {
    return new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        // A failed read (the database away) keeps the last values: readiness (/readyz) says why.
        await Promise.resolve()
          .then(() => read(this))
          .catch(() => undefined);
      },
    });
  }

  /** Counts one open connection until the returned function is called (once). */
  connectionOpened(kind: ConnectionKind): () => void {
    this.connections.inc({ kind });
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.connections.dec({ kind });
    };
  }
}
