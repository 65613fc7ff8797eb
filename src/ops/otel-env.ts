import type { OtlpEncoding } from "../core/broadcast.ts";

/**
 * OpenTelemetry's standard environment variables (the SDK's "environment variable specification" and
 * the OTLP exporter's), as far as Roundhouse exports: traces of generations and GenAI metrics over
 * OTLP/HTTP. Nothing is exported unless an OTLP endpoint is set.
 */

/** Where one signal goes: the full URL (signal path included), headers and encoding. */
export interface OtlpTarget {
  url: string;
  headers: Record<string, string>;
  encoding: OtlpEncoding;
}

export interface OtelSettings {
  traces?: OtlpTarget;
  metrics?: OtlpTarget & { intervalMs: number };
  /** Resource attributes: OTEL_RESOURCE_ATTRIBUTES, with service.name from OTEL_SERVICE_NAME (default "roundhouse"). */
  resource: Record<string, string>;
  /** Whether spans carry the prompts and completions (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true). */
  captureContent: boolean;
  /** What the operator should be told at start (unsupported or malformed settings). */
  warnings: string[];
}

type Env = Record<string, string | undefined>;

const DEFAULT_METRIC_INTERVAL_MS = 60_000;

function value(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

/** `key=value,key2=value2` with percent-encoded parts (W3C Baggage-like, as the specification says). */
function pairs(text: string | undefined, name: string, warnings: string[]): Record<string, string> {
  const result: Record<string, string> = {};
  if (!text) return result;
  for (const item of text.split(",")) {
    if (item.trim() === "") continue;
    const at = item.indexOf("=");
    if (at <= 0) {
      warnings.push(`${name}: "${item.trim()}" is not key=value; ignored`);
      continue;
    }
    try {
      result[decodeURIComponent(item.slice(0, at).trim())] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      warnings.push(`${name}: "${item.trim()}" has a broken percent-encoding; ignored`);
    }
  }
  return result;
}

/** The URL of a signal: its own endpoint as given, else the base endpoint plus `v1/<signal>`. */
function endpoint(env: Env, signal: "TRACES" | "METRICS", warnings: string[]): string | undefined {
  const own = value(env, `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`);
  const base = value(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  const url = own ?? (base ? `${base.replace(/\/+$/, "")}/v1/${signal.toLowerCase()}` : undefined);
  if (url === undefined) return undefined;
  const parsed = URL.parse(url);
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    warnings.push(`${own ? `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT` : "OTEL_EXPORTER_OTLP_ENDPOINT"}: "${url}" is not an http(s) URL; ${signal.toLowerCase()} are not exported`);
    return undefined;
  }
  return url;
}

/** The encoding of a signal, or undefined (with a warning) for gRPC, which Roundhouse does not speak. */
function encoding(env: Env, signal: "TRACES" | "METRICS", warnings: string[]): OtlpEncoding | undefined {
  const name = value(env, `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`) ? `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL` : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = value(env, name) ?? "http/protobuf";
  if (protocol === "http/protobuf") return "protobuf";
  if (protocol === "http/json") return "json";
  if (protocol === "grpc") {
    warnings.push(
      `${name}=grpc is not supported: Roundhouse exports OTLP over HTTP only; ${signal.toLowerCase()} are not exported. Set it to http/protobuf (or http/json) and point the endpoint at the collector's OTLP/HTTP port (usually 4318)`,
    );
    return undefined;
  }
  warnings.push(`${name}: "${protocol}" is not one of http/protobuf, http/json, grpc; ${signal.toLowerCase()} are not exported`);
  return undefined;
}

/** False when OTEL_<signal>_EXPORTER turns the signal off (`none`); other exporters than otlp are warned about. */
function exporterOn(env: Env, signal: "TRACES" | "METRICS", warnings: string[]): boolean {
  const chosen = value(env, `OTEL_${signal}_EXPORTER`);
  if (chosen === undefined) return true;
  const names = chosen.split(",").map((name) => name.trim());
  if (names.includes("none")) return false;
  if (!names.includes("otlp")) {
    warnings.push(`OTEL_${signal}_EXPORTER=${chosen}: only otlp (or none) is supported; ${signal.toLowerCase()} are not exported`);
    return false;
  }
  return true;
}

function target(env: Env, signal: "TRACES" | "METRICS", warnings: string[]): OtlpTarget | undefined {
  const url = endpoint(env, signal, warnings);
  if (url === undefined || !exporterOn(env, signal, warnings)) return undefined;
  const chosen = encoding(env, signal, warnings);
  if (chosen === undefined) return undefined;
  const headers = { ...pairs(value(env, "OTEL_EXPORTER_OTLP_HEADERS"), "OTEL_EXPORTER_OTLP_HEADERS", warnings), ...pairs(value(env, `OTEL_EXPORTER_OTLP_${signal}_HEADERS`), `OTEL_EXPORTER_OTLP_${signal}_HEADERS`, warnings) };
  return { url, headers, encoding: chosen };
}

/** The telemetry settings of an environment; `undefined` when OTEL_SDK_DISABLED is true or no OTLP endpoint is set. */
export function otelFromEnv(env: Env): OtelSettings | undefined {
  if (value(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  const warnings: string[] = [];
  const traces = target(env, "TRACES", warnings);
  const metricsTarget = target(env, "METRICS", warnings);
  if (!traces && !metricsTarget && warnings.length === 0) return undefined;
  const intervalText = value(env, "OTEL_METRIC_EXPORT_INTERVAL");
  let intervalMs = DEFAULT_METRIC_INTERVAL_MS;
  if (intervalText !== undefined) {
    const parsed = Number(intervalText);
    if (Number.isInteger(parsed) && parsed > 0) intervalMs = parsed;
    else warnings.push(`OTEL_METRIC_EXPORT_INTERVAL: "${intervalText}" is not a positive number of milliseconds; using ${DEFAULT_METRIC_INTERVAL_MS}`);
  }
  const resource = { "service.name": "roundhouse", ...pairs(value(env, "OTEL_RESOURCE_ATTRIBUTES"), "OTEL_RESOURCE_ATTRIBUTES", warnings) };
  const serviceName = value(env, "OTEL_SERVICE_NAME");
  if (serviceName) resource["service.name"] = serviceName;
  return {
    ...(traces ? { traces } : {}),
    ...(metricsTarget ? { metrics: { ...metricsTarget, intervalMs } } : {}),
    resource,
    captureContent: value(env, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")?.toLowerCase() === "true",
    warnings,
  };
}
