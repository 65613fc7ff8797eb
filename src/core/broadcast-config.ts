import { DESTINATION_TYPES, type DestinationType } from "./broadcast.ts";
import { GatewayError } from "./errors.ts";

/** What a response shows in place of a secret value; sent back in a PATCH, it keeps the stored value. */
export const MASK = "********";

/** A destination's secret settings, sealed at rest and never returned. */
export interface DestinationSecrets {
  headers: Record<string, string>;
  secretKey?: string;
}

/** A destination's settings split into what may be shown (`config`) and what is sealed (`secrets`). */
export interface SplitConfig {
  config: Record<string, string>;
  secrets: DestinationSecrets;
}

/** The keys each type's `config` takes, besides `headers` (every type takes it); required ones first. */
const KEYS: Record<DestinationType, { required: string[]; optional: string[] }> = {
  "otel-collector": { required: ["endpoint"], optional: ["encoding"] },
  langfuse: { required: ["publicKey", "secretKey", "baseUrl"], optional: ["encoding"] },
  webhook: { required: ["url"], optional: ["method"] },
};

/** The type named, or a 400 naming the types served (the reference's SaaS types are refused on-prem). */
export function checkType(type: string): DestinationType {
  if (!(DESTINATION_TYPES as readonly string[]).includes(type)) {
    throw new GatewayError("bad_request", `type: '${type.slice(0, 64)}' is not available on this deployment (allowed: ${DESTINATION_TYPES.join(", ")})`);
  }
  return type as DestinationType;
}

function checkUrl(field: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new GatewayError("bad_request", `config.${field}: must be an absolute http or https URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new GatewayError("bad_request", `config.${field}: must be an http or https URL`);
  return value;
}

function checkHeaders(value: unknown, previous: Record<string, string>): Record<string, string> {
  if (value === undefined) return previous;
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new GatewayError("bad_request", "config.headers: must be an object of header names to string values");
  const headers: Record<string, string> = {};
  for (const [name, item] of Object.entries(value)) {
    if (typeof item !== "string" || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/.test(name) || /[\r\n\0]/.test(item)) {
      throw new GatewayError("bad_request", `config.headers.${name.slice(0, 64)}: must be a valid header name with a string value`);
    }
    headers[name] = item === MASK ? (previous[name] ?? "") : item;
  }
  if (Object.keys(headers).length > 32) throw new GatewayError("bad_request", "config.headers: at most 32 headers");
  return headers;
}

/**
 * Checks a destination's `config` for its type and splits off the secrets. On an update `previous`
 * is what is stored: a masked value keeps the stored secret, and omitted headers keep the stored ones.
 */
export function splitConfig(type: DestinationType, raw: Record<string, unknown>, previous?: SplitConfig): SplitConfig {
  const { required, optional } = KEYS[type];
  for (const key of Object.keys(raw)) {
    if (key !== "headers" && !required.includes(key) && !optional.includes(key)) {
      throw new GatewayError("bad_request", `config.${key.slice(0, 64)}: not a setting of ${type} (allowed: ${[...required, ...optional, "headers"].join(", ")})`);
    }
  }
  const config: Record<string, string> = {};
  const secrets: DestinationSecrets = { headers: checkHeaders(raw.headers, previous?.secrets.headers ?? {}) };
  for (const key of [...required, ...optional]) {
    const value = raw[key];
    if (value === undefined || value === null || value === "") {
      if (required.includes(key)) throw new GatewayError("bad_request", `config.${key}: required for ${type}`);
      continue;
    }
    if (typeof value !== "string" || value.length > 2048) throw new GatewayError("bad_request", `config.${key}: must be a string of at most 2048 characters`);
    if (key === "secretKey") secrets.secretKey = value === MASK ? previous?.secrets.secretKey : value;
    else config[key] = value;
  }
  if (type === "langfuse" && !secrets.secretKey) throw new GatewayError("bad_request", "config.secretKey: required for langfuse");
  for (const key of ["endpoint", "url", "baseUrl"]) if (config[key]) checkUrl(key, config[key]);
  if (config.encoding && config.encoding !== "json" && config.encoding !== "protobuf") {
    throw new GatewayError("bad_request", "config.encoding: must be 'json' or 'protobuf'");
  }
  if (config.method && config.method !== "POST" && config.method !== "PUT") throw new GatewayError("bad_request", "config.method: must be 'POST' or 'PUT'");
  if (type === "webhook") config.method ??= "POST";
  if (type === "otel-collector") config.encoding ??= "json";
  if (type === "langfuse") config.encoding ??= "protobuf";
  return { config, secrets };
}

/** The config a response shows: the public settings, every secret as MASK. */
export function maskedConfig(split: SplitConfig): Record<string, unknown> {
  const shown: Record<string, unknown> = { ...split.config };
  if (split.secrets.secretKey !== undefined) shown.secretKey = MASK;
  if (Object.keys(split.secrets.headers).length > 0) {
    shown.headers = Object.fromEntries(Object.keys(split.secrets.headers).map((name) => [name, MASK]));
  }
  return shown;
}

/** Where a destination's spans go: an OTLP collector's endpoint gets `/v1/traces` unless it names it already. */
export function exportUrl(type: DestinationType, config: Record<string, string>): string {
  if (type === "webhook") return config.url!;
  const base = type === "langfuse" ? `${config.baseUrl!.replace(/\/+$/, "")}/api/public/otel` : config.endpoint!.replace(/\/+$/, "");
  return base.endsWith("/v1/traces") ? base : `${base}/v1/traces`;
}
