/**
 * Where the domain's work is counted and traced, at its ports, so domain/ stays free of
 * instrumentation: the answer engine (a span per answer), `onAnswered` (answers by answerer and
 * outcome, their latency), commit listeners (messages in and out), item handlers (a span and a
 * count per ingest item) and the webhook sender (a span and a count per attempt).
 */
import { SpanKind } from '@opentelemetry/api';
import type { AnsweredInfo } from '../domain/conversations/answering.js';
import type { CommitListener } from '../domain/conversations/changes.js';
import type { AnswerEngine } from '../domain/conversations/ports.js';
import type { ItemHandler } from '../domain/knowledge/ingest-runner.js';
import type { Store } from '../domain/ports.js';
import type { WebhookSender } from '../domain/webhooks/ports.js';
import type { AnswerOutcome, Metrics } from '../observability/metrics.js';
import { inSpan } from '../observability/tracing.js';

const outcomeOf = (a: { unanswered: boolean; unsure?: boolean }): AnswerOutcome =>
  a.unanswered ? 'refused' : a.unsure ? 'not_sure' : 'answered';

/** One span per answer, named by who answered and how. */
export function tracedAnswers<E extends AnswerEngine>(engine: E): AnswerEngine {
  return {
    answer: (request) =>
      inSpan('answer', { 'parley.chatbot_id': request.chatbotId }, async (span) => {
        const a = await engine.answer(request);
        span.setAttributes({
          'parley.answerer': a.provider,
          'parley.outcome': outcomeOf(a),
          'parley.sources': a.sources.length,
        });
        return a;
      }),
  };
}

export function observeAnswers(metrics: Metrics, a: AnsweredInfo) {
  metrics.answers.inc({ answerer: a.provider, outcome: outcomeOf(a) });
  metrics.answerDuration.observe({ answerer: a.provider }, a.ms / 1000);
}

/** Messages in (a visitor's) and out (the AI's, the team's, the system's), once each, after their commit. */
export function observeMessages(metrics: Metrics): CommitListener {
  return (_conversation, _events, added) => {
    for (const m of added) metrics.messages.inc({ direction: m.author === 'visitor' ? 'in' : 'out', author: m.author });
  };
}

/** Background job attempts by name and outcome, and how long each ran (the queue's onJobEnd). */
export function observeJobs(metrics: Metrics) {
  return (name: string, outcome: string, ms: number) => {
    metrics.queueJobs.inc({ name, outcome });
    metrics.queueJobDuration.observe({ name }, ms / 1000);
  };
}

export function observeIngestItem(type: string, handler: ItemHandler, metrics?: Metrics): ItemHandler {
  return (ctx, item) =>
    inSpan('ingest.item', { 'parley.item_type': type, 'parley.ingest_job_id': item.jobId }, async (span) => {
      let outcome = 'failed';
      try {
        const result = await handler(ctx, item);
        outcome = result.status;
        span.setAttribute('parley.outcome', outcome);
        return result;
      } finally {
        // A shutdown cut is not a failure: the item runs again on the next start.
        if (!ctx.signal.aborted) metrics?.ingestItems.inc({ type, outcome });
      }
    });
}

/** The HTTP sender with a client span and a count per attempt (delivered: 2xx, rejected: another status, unreachable: none). */
export function observedSender(sender: WebhookSender, metrics?: Metrics): WebhookSender {
  return {
    refuse: (url) => sender.refuse(url),
    send: (request, signal) =>
      inSpan(
        'webhook.attempt',
        { 'http.request.method': 'POST', 'server.address': hostOf(request.url) },
        async (span) => {
          const began = performance.now();
          const result = await sender.send(request, signal);
          if (signal?.aborted) return result;
          const outcome =
            result.status === null
              ? 'unreachable'
              : result.status >= 200 && result.status < 300
                ? 'delivered'
                : 'rejected';
          if (result.status !== null) span.setAttribute('http.response.status_code', result.status);
          span.setAttribute('parley.outcome', outcome);
          metrics?.webhookAttempts.inc({ outcome });
          metrics?.webhookDuration.observe((performance.now() - began) / 1000);
          return result;
        },
        SpanKind.CLIENT,
      ),
  };
}

/** The dispatcher's store, counting each delivery's outcome as it records it. */
export function countedDeliveries(store: Store, metrics?: Metrics): Store {
  if (!metrics) return store;
  const deliveries = store.webhooks.deliveries;
  return {
    ...store,
    webhooks: {
      ...store.webhooks,
      deliveries: {
        ...deliveries,
        finish: async (id, outcome, at, attempted) => {
          await deliveries.finish(id, outcome, at, attempted);
          metrics.webhookDeliveries.inc({ outcome: outcome.status === 'pending' ? 'retry' : outcome.status });
        },
      },
    },
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}
