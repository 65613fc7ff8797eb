import { join } from "node:path";
import protobuf from "protobufjs";

/** A span as a collector received it: attributes flattened to plain values. */
export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  kind: string | number;
  status: number;
  attributes: Record<string, unknown>;
}

/** A histogram data point as a collector received it. */
export interface ReceivedPoint {
  attributes: Record<string, unknown>;
  count: number;
  sum: number;
}

/** A metric as a collector received it (histograms only). */
export interface ReceivedMetric {
  name: string;
  unit: string;
  points: ReceivedPoint[];
}

/** One export request that reached the collector: spans, or (at a `/v1/metrics` path) metrics. */
export interface ReceivedExport {
  path: string;
  contentType: string;
  headers: Headers;
  spans: ReceivedSpan[];
  metrics: ReceivedMetric[];
  resource: Record<string, unknown>;
}

const ROOT = protobuf.loadSync(join(import.meta.dir, "../fixtures/otlp-trace.proto"));
const REQUEST = ROOT.lookupType("opentelemetry.proto.ExportTraceServiceRequest");
const METRICS_REQUEST = protobuf.loadSync(join(import.meta.dir, "../fixtures/otlp-metrics.proto")).lookupType("opentelemetry.proto.ExportMetricsServiceRequest");

type AnyValue = Record<string, unknown>;

/** A value of OTLP's AnyValue, in either encoding's object form (protobuf's camelCase, JSON's). */
function plain(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if ("stringValue" in value) return value.stringValue;
  if ("boolValue" in value) return value.boolValue;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return Number(value.doubleValue);
  if ("arrayValue" in value) return ((value.arrayValue as { values?: AnyValue[] }).values ?? []).map(plain);
  return undefined;
}

function attributes(list: Array<{ key: string; value?: AnyValue }> | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((item) => [item.key, plain(item.value)]));
}

const hex = (value: unknown) => (typeof value === "string" ? value : Buffer.from((value as Uint8Array | undefined) ?? []).toString("hex"));

/** An OTLP ExportTraceServiceRequest decoded: protobuf with protobufjs, JSON with JSON.parse. */
export function decodeExport(body: Uint8Array, contentType: string): { spans: ReceivedSpan[]; resource: Record<string, unknown> } {
  const message = contentType.includes("protobuf")
    ? (REQUEST.toObject(REQUEST.decode(body), { longs: String, enums: Number, bytes: Buffer, defaults: false }) as Record<string, any>)
    : (JSON.parse(new TextDecoder().decode(body)) as Record<string, any>);
  const spans: ReceivedSpan[] = [];
  let resource: Record<string, unknown> = {};
  for (const resourceSpans of message.resourceSpans ?? []) {
    resource = attributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          name: span.name,
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId ?? ""),
          kind: span.kind,
          status: span.status?.code ?? 0,
          attributes: attributes(span.attributes),
        });
      }
    }
  }
  return { spans, resource };
}

/** An OTLP ExportMetricsServiceRequest decoded (histograms): protobuf with protobufjs, JSON with JSON.parse. */
export function decodeMetrics(body: Uint8Array, contentType: string): { metrics: ReceivedMetric[]; resource: Record<string, unknown> } {
  const message = contentType.includes("protobuf")
    ? (METRICS_REQUEST.toObject(METRICS_REQUEST.decode(body), { longs: String, enums: Number, bytes: Buffer, defaults: false }) as Record<string, any>)
    : (JSON.parse(new TextDecoder().decode(body)) as Record<string, any>);
  const metrics: ReceivedMetric[] = [];
  let resource: Record<string, unknown> = {};
  for (const resourceMetrics of message.resourceMetrics ?? []) {
    resource = attributes(resourceMetrics.resource?.attributes);
    for (const scopeMetrics of resourceMetrics.scopeMetrics ?? []) {
      for (const metric of scopeMetrics.metrics ?? []) {
        const points = ((metric.histogram?.dataPoints ?? []) as Array<Record<string, any>>).map((point) => ({
          attributes: attributes(point.attributes),
          count: Number(point.count ?? 0),
          sum: Number(point.sum ?? 0),
        }));
        metrics.push({ name: metric.name, unit: metric.unit ?? "", points });
      }
    }
  }
  return { metrics, resource };
}

/**
 * A local OTLP/HTTP collector and webhook receiver: every POST or PUT is decoded and kept. `status`
 * sets what it answers; `hang` makes it never answer (a destination that is down but accepts connections).
 */
export function startCollector() {
  const received: ReceivedExport[] = [];
  const state = { status: 200, hang: false };
  const server = Bun.serve({
    port: 0,
    async fetch(request) {
      if (state.hang) return new Promise<Response>(() => {});
      const contentType = request.headers.get("content-type") ?? "";
      const body = new Uint8Array(await request.arrayBuffer());
      const path = new URL(request.url).pathname;
      const decoded = path.endsWith("/v1/metrics") ? { spans: [], ...decodeMetrics(body, contentType) } : { metrics: [], ...decodeExport(body, contentType) };
      received.push({ path, contentType, headers: request.headers, ...decoded });
      return new Response(state.status === 200 ? "{}" : "no", { status: state.status });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    state,
    spans: () => received.flatMap((item) => item.spans),
    metrics: () => received.flatMap((item) => item.metrics),
    stop: () => server.stop(true),
  };
}
