/**
 * The HTTP side of observability: one Prometheus count and latency per request (by the route's
 * pattern, never the raw URL: `/api/v2/chatbots/:chatbotId`, `unmatched` for a 404), one server
 * span per request when tracing is on (continuing the caller's W3C `traceparent`), and
 * `GET /metrics` behind METRICS_TOKEN. Off (no METRICS_TOKEN, no tracing), no hook is added.
 */
import { SpanKind, SpanStatusCode, context, propagation, trace, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import type { Metrics } from '../observability/metrics.js';
import { tracer, tracingOn } from '../observability/tracing.js';

const spans = new WeakMap<FastifyRequest, Span>();

/** The route pattern a request matched; one label for everything unmatched, so a scan adds no series. */
const routeOf = (request: FastifyRequest) => request.routeOptions.url ?? 'unmatched';

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function installObservability(app: FastifyInstance, metrics: Metrics | null, metricsToken: string | null) {
  const tracing = tracingOn();
  if (!metrics && !tracing) return;
  metrics?.collectDefaults();

  if (tracing) {
    app.addHook('onRequest', (request, _reply, done) => {
      const parent = propagation.extract(context.active(), request.headers);
      const route = routeOf(request);
      const span = tracer.startSpan(
        `${request.method} ${route}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            'http.request.method': request.method,
            'http.route': route,
            'url.path': request.url.split('?')[0],
          },
        },
        parent,
      );
      spans.set(request, span);
      // The rest of the request (hooks, handler, the work it starts) runs with this span active.
      context.with(trace.setSpan(parent, span), done);
    });
  }

  app.addHook('onResponse', (request, reply, done) => {
    const route = routeOf(request);
    if (metrics) {
      const status = String(reply.statusCode);
      metrics.httpRequests.inc({ method: request.method, route, status });
      metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    }
    const span = spans.get(request);
    if (span) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });

  if (!metrics || !metricsToken) return;
  app.get(
    '/metrics',
    { schema: { hide: true }, config: { access: { public: true }, raw: true } },
    async (request, reply) => {
      const header = request.headers.authorization ?? '';
      const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
      if (!token || !sameSecret(token, metricsToken)) {
        throw new AppError(
          header ? 'TOKEN_NOT_VALID' : 'AUTHORIZATION_HEADER_REQUIRED',
          header ? 'The metrics token is not valid' : 'Send Authorization: Bearer <METRICS_TOKEN>',
          {
            hint: "The token is the server's METRICS_TOKEN",
            headers: { 'www-authenticate': 'Bearer realm="metrics"' },
          },
        );
      }
      const body = await metrics.registry.metrics();
      return reply.header('cache-control', 'no-store').type(metrics.registry.contentType).send(body);
    },
  );
}
