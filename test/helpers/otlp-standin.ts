/**
 * A local stand-in for an OpenTelemetry collector (a third party, so a stand-in is fair): it
 * receives real OTLP/HTTP JSON (`POST /v1/traces`, ExportTraceServiceRequest) as the SDK's
 * exporter sends it, and keeps every span with its resource.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readJson, replyJson } from './json-body.js';

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  status?: { code?: number };
  resource: Record<string, string | number | boolean>;
}

const flat = (kvs: KeyValue[] = []) =>
  Object.fromEntries(
    kvs.map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? '')),
    ]),
  );

export async function startOtlpStandin() {
  const spans: ReceivedSpan[] = [];
  const types: string[] = [];
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') return replyJson(res, 404, {});
    types.push(String(req.headers['content-type']));
    const body = await readJson(req);
    for (const rs of body.resourceSpans ?? []) {
      const resource = flat(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? [])
        for (const s of ss.spans ?? [])
          spans.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId || undefined,
            name: s.name,
            kind: s.kind,
            attributes: flat(s.attributes),
            status: s.status,
            resource,
          });
    }
    replyJson(res, 200, {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes: types,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
