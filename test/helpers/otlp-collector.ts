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

/** One export request that reached the collector. */
export interface ReceivedExport {
  path: string;
  contentType: string;
  headers: Headers;
  spans: ReceivedSpan[];
  resource: Record<string, unknown>;
}

const ROOT = protobuf.loadSync(join(import.meta.dir, "../fixtures/otlp-trace.proto"));
const REQUEST = ROOT.lookupType("opentelemetry.proto.ExportTraceServiceRequest");

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
      received.push({ path, contentType, headers: request.headers, ...decodeExport(body, contentType) });
      return new Response(state.status === 200 ? "{}" : "no", { status: state.status });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    state,
    spans: () => received.flatMap((item) => item.spans),
    stop: () => server.stop(true),
  };
}
