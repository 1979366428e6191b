/**
 * OpenTelemetry traces. The code speaks only @opentelemetry/api, whose tracer does nothing until
 * an SDK is registered: `startTracing` registers one when the standard OTEL_* variables ask for it
 * (config.ts `tracing`), so traces cost nothing by default. The OTLP/HTTP exporter reads its own
 * OTEL_EXPORTER_OTLP_* variables; the resource reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
 */
import { type Attributes, type Span, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Config } from '../config.js';

export const tracer = trace.getTracer('parley');

/** Runs `fn` inside a new active span (a child of the active one); an exception marks it as an error. */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes, kind }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
      throw err;
    } finally {
      span.end();
    }
  });
}

let registered = false;

/** Whether startTracing registered the SDK (the request hook does nothing otherwise). */
export function tracingOn(): boolean {
  return registered;
}

export interface Tracing {
  /** Sends what is buffered (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Registers the SDK (the global tracer provider, W3C trace context) when `config.tracing` is set;
 * null otherwise. The SDK is loaded only then, so a process without traces never imports it.
 */
export async function startTracing(config: Pick<Config, 'tracing'>): Promise<Tracing | null> {
  if (!config.tracing) return null;
  const [{ NodeTracerProvider, BatchSpanProcessor, ConsoleSpanExporter }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
  ]);
  const exporter =
    config.tracing.exporter === 'console'
      ? new ConsoleSpanExporter()
      : new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  const detected = resources.detectResources({ detectors: [resources.envDetector] });
  // OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES win; otherwise the service is "parley".
  const resource = resources.resourceFromAttributes({ 'service.name': 'parley' }).merge(detected);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  provider.register();
  registered = true;
  return {
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      registered = false;
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}
