import { createHash } from "node:crypto";
import { type Attributes, type HrTime, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { type Resource, resourceFromAttributes } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import type { ActiveDestination, OtlpEncoding } from "../../core/broadcast.ts";
import type { GenerationRow } from "../../core/generation.ts";
import type { GenerationContent } from "../../core/generation-content.ts";
import { contentAttributes } from "./content.ts";

const SDK = { "telemetry.sdk.name": "roundhouse", "telemetry.sdk.language": "nodejs" };
const RESOURCE = resourceFromAttributes({ "service.name": "roundhouse", ...SDK });

/** The resource of spans sent with the OTEL_* settings: service.name and OTEL_RESOURCE_ATTRIBUTES. */
export function resourceOf(attributes: Record<string, string>): Resource {
  return resourceFromAttributes({ ...SDK, ...attributes });
}

/** What a destination's spans carry beside the record: their resource, the upstream's address. */
export interface SpanOptions {
  resource?: Resource;
  server?: { address: string; port: number };
}
const SCOPE = { name: "roundhouse.broadcast" };

/** GenAI's operation name for each request style and operation (OpenTelemetry's semantic conventions). */
const OPERATION_NAMES: Record<string, string> = {
  chat: "chat",
  responses: "chat",
  messages: "chat",
  completions: "text_completion",
  embeddings: "embeddings",
  images: "generate_content",
  video: "generate_content",
  speech: "generate_content",
  transcription: "generate_content",
  rerank: "rerank",
};

/** GenAI's operation name of a record's style (its style when the conventions have none). */
export function operationName(style: string): string {
  return OPERATION_NAMES[style] ?? style;
}

function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

/** A stable id of `bytes` bytes (hex) derived from a value: exporting a record again yields the same spans. */
function idOf(value: string, bytes: number): string {
  return createHash("sha256").update(value).digest("hex").slice(0, bytes * 2);
}

type Value = string | number | boolean | string[] | null | undefined;

function put(attributes: Attributes, name: string, value: Value): void {
  if (value !== null && value !== undefined) attributes[name] = value;
}

/** Sets each attribute that has a value, in the order given (null and undefined are left out). */
function putAll(attributes: Attributes, values: Record<string, Value>): void {
  for (const [name, value] of Object.entries(values)) put(attributes, name, value);
}

/**
 * The GenAI and Roundhouse attributes of a generation's span, as much as the destination is given;
 * its input and output messages only when content was stored and the destination is not in privacy mode.
 */
export function generationAttributes(row: GenerationRow, destination: ActiveDestination, content?: GenerationContent): Attributes {
  const attributes: Attributes = {};
  putAll(attributes, {
    "gen_ai.operation.name": operationName(row.style),
    "gen_ai.provider.name": row.providerSlug,
    "gen_ai.system": row.providerSlug,
    "gen_ai.request.model": row.model,
    "gen_ai.response.model": row.upstreamModel ?? row.model,
    "gen_ai.response.id": row.id,
    "gen_ai.usage.input_tokens": row.tokensPrompt,
    "gen_ai.usage.output_tokens": row.tokensCompletion,
    "gen_ai.usage.cache_read.input_tokens": row.tokensCached,
    "gen_ai.usage.cache_creation.input_tokens": row.tokensCacheWrite,
    "gen_ai.usage.reasoning_tokens": row.tokensReasoning,
  });
  if (row.finishReason) attributes["gen_ai.response.finish_reasons"] = [row.finishReason];
  put(attributes, "gen_ai.request.service_tier", row.serviceTier);
  if (row.status >= 400 || row.errorCode) put(attributes, "error.type", row.errorCode ?? String(row.status));
  putAll(attributes, {
    "roundhouse.generation.id": row.id,
    "roundhouse.request.id": row.requestId,
    "roundhouse.workspace.id": row.workspaceId,
    "roundhouse.request.style": row.style,
    "roundhouse.provider": row.providerName ?? row.providerSlug,
    "roundhouse.preset.id": row.presetId,
    "roundhouse.http.status": row.status,
    "roundhouse.streamed": row.streamed,
    "roundhouse.cancelled": row.cancelled,
    "roundhouse.native_finish_reason": row.nativeFinishReason,
    "roundhouse.latency_ms": row.latencyMs,
    "roundhouse.generation_time_ms": row.generationTimeMs,
  });
  const attempts = row.attempts ?? [];
  put(attributes, "roundhouse.attempts", attempts.length);
  if (attempts.length > 0) attributes["roundhouse.attempts.providers"] = attempts.map((attempt) => attempt.provider);
  if (destination.includeCost) {
    put(attributes, "roundhouse.cost.total_usd", row.totalCost);
    for (const [meter, cost] of Object.entries(row.costs ?? {})) put(attributes, `roundhouse.cost.${meter}_usd`, cost);
  }
  if (destination.includeIdentity) {
    put(attributes, "roundhouse.api_key.hash", row.keyHash);
    put(attributes, "user.id", row.externalUser);
    put(attributes, "gen_ai.conversation.id", row.sessionId);
    put(attributes, "session.id", row.sessionId);
  }
  if (destination.includeRequestContext) {
    put(attributes, "user_agent.original", row.userAgent);
    put(attributes, "http.request.header.referer", row.httpReferer);
  }
  if (content && !destination.privacyMode) Object.assign(attributes, contentAttributes(content, row.finishReason));
  return attributes;
}

function span(fields: { name: string; traceId: string; spanId: string; parentId?: string; start: number; end: number; error: boolean; attributes: Attributes; resource?: Resource }): ReadableSpan {
  const end = Math.max(fields.end, fields.start);
  return {
    name: fields.name,
    kind: SpanKind.CLIENT,
    spanContext: () => ({ traceId: fields.traceId, spanId: fields.spanId, traceFlags: 1 }),
    ...(fields.parentId ? { parentSpanContext: { traceId: fields.traceId, spanId: fields.parentId, traceFlags: 1 } } : {}),
    startTime: hrTime(fields.start),
    endTime: hrTime(end),
    duration: hrTime(end - fields.start),
    status: { code: fields.error ? SpanStatusCode.ERROR : SpanStatusCode.OK },
    attributes: fields.attributes,
    links: [],
    events: [],
    ended: true,
    resource: fields.resource ?? RESOURCE,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/**
 * A generation as spans: one for the generation (named "{operation} {model}", GenAI's convention) and
 * one child per upstream attempt, laid one after another from the start. Generations of one API
 * request share a trace.
 */
export function generationSpans(row: GenerationRow, destination: ActiveDestination, content?: GenerationContent, options: SpanOptions = {}): ReadableSpan[] {
  const attributes = generationAttributes(row, destination, content);
  if (options.server) Object.assign(attributes, { "server.address": options.server.address, "server.port": options.server.port });
  const resource = options.resource;
  const end = Date.parse(row.createdAt);
  const start = end - (row.generationTimeMs ?? row.latencyMs ?? 0);
  const traceId = idOf(`trace:${row.requestId ?? row.id}`, 16);
  const spanId = idOf(`span:${row.id}`, 8);
  const spans = [span({ name: `${attributes["gen_ai.operation.name"]} ${row.model}`, traceId, spanId, start, end, error: row.status >= 400, attributes, resource })];
  let at = start;
  (row.attempts ?? []).forEach((attempt, index) => {
    const attemptAttributes: Attributes = { "gen_ai.operation.name": attributes["gen_ai.operation.name"] as string, "gen_ai.provider.name": attempt.provider, "roundhouse.attempt.index": index, "roundhouse.attempt.endpoint": attempt.endpoint, "roundhouse.http.status": attempt.status };
    put(attemptAttributes, "error.type", attempt.code);
    const name = `attempt ${attempt.provider}`;
    spans.push(span({ name, traceId, spanId: idOf(`attempt:${row.id}:${index}`, 8), parentId: spanId, start: at, end: at + attempt.latency_ms, error: attempt.status >= 400 || attempt.status === 0, attributes: attemptAttributes, resource }));
    at += attempt.latency_ms;
  });
  return spans;
}

/** Spans as an OTLP/HTTP ExportTraceServiceRequest body, with its content type. */
export function encodeSpans(spans: ReadableSpan[], encoding: OtlpEncoding): { body: Uint8Array; contentType: string } {
  const body = (encoding === "protobuf" ? ProtobufTraceSerializer : JsonTraceSerializer).serializeRequest(spans);
  if (!body) throw new Error("spans could not be encoded");
  return { body, contentType: encoding === "protobuf" ? "application/x-protobuf" : "application/json" };
}
