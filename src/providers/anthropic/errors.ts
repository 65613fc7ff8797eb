import type { HeaderReader } from "../http.ts";
import { type ErrorCode, GatewayError } from "../../core/errors.ts";
import type { Endpoint } from "../../routing/catalog.ts";
import { isRecord } from "./wire.ts";

const MAX_MESSAGE_LENGTH = 500;
const CREDENTIALS_MESSAGE = "Upstream rejected the gateway's credentials";

/** Anthropic's error `type` → gateway code, for errors that carry no HTTP status (mid-stream). */
const CODE_BY_TYPE: Record<string, ErrorCode> = {
  invalid_request_error: "bad_request",
  authentication_error: "bad_gateway",
  permission_error: "bad_gateway",
  billing_error: "bad_gateway",
  not_found_error: "not_found",
  request_too_large: "payload_too_large",
  rate_limit_error: "rate_limited",
  api_error: "bad_gateway",
  overloaded_error: "unavailable",
  timeout_error: "gateway_timeout",
};

/** Types whose cause is the gateway's own upstream account, not the client's request. */
const CREDENTIAL_TYPES = new Set(["authentication_error", "permission_error"]);

function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return "bad_request";
    case 404:
      return "not_found";
    case 408:
      return "timeout";
    case 413:
      return "payload_too_large";
    case 429:
      return "rate_limited";
    case 502:
    case 503:
    case 529:
      return "unavailable";
    case 504:
      return "gateway_timeout";
    default:
      // 401/403 (credentials), 402 (the upstream account's billing), 500 and anything else.
      return status >= 400 && status < 500 && status !== 401 && status !== 402 && status !== 403 ? "bad_request" : "bad_gateway";
  }
}

/** `{type: "error", error: {type, message}}` → its type and message, when the body has that shape. */
export function readErrorBody(value: unknown): { type?: string; message?: string } | undefined {
  if (!isRecord(value) || !isRecord(value.error)) return undefined;
  const { type, message } = value.error;
  return {
    ...(typeof type === "string" && type !== "" ? { type } : {}),
    ...(typeof message === "string" && message !== "" ? { message } : {}),
  };
}

function compose(endpoint: Endpoint, message: string): string {
  const text = `${endpoint.provider.name}: ${message}`;
  return text.length <= MAX_MESSAGE_LENGTH ? text : `${text.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
}

function errorTypeFor(code: ErrorCode, message: string | undefined): string | undefined {
  if (code === "bad_request" && message !== undefined && /prompt is too long|context (window|length)/i.test(message)) {
    return "context_length_exceeded";
  }
  return undefined;
}

/** An upstream HTTP error → GatewayError. The raw body never reaches the message or the metadata. */
export function parseAnthropicError(status: number, bodyText: string, headers: HeaderReader, endpoint: Endpoint): GatewayError {
  let parsed: { type?: string; message?: string } | undefined;
  try {
    parsed = readErrorBody(JSON.parse(bodyText));
  } catch {
    parsed = undefined;
  }
  const code = codeForStatus(status);
  let message: string;
  if (status === 401 || status === 403) message = CREDENTIALS_MESSAGE;
  else if (status === 404) {
    message = `model "${endpoint.upstreamModel}" was not found upstream${parsed?.message !== undefined ? ` (${parsed.message})` : ""}`;
  } else message = parsed?.message ?? `upstream returned HTTP ${status}`;
  const retryAfter = code === "rate_limited" || code === "unavailable" ? readRetryAfter(headers) : undefined;
  const errorType = errorTypeFor(code, parsed?.message);
  // upstream_status tells availability an upstream 5xx (transient) from a 401 or 402 (not).
  return new GatewayError(code, compose(endpoint, message), {
    metadata: { provider_code: parsed?.type ?? String(status), provider: endpoint.provider.slug, upstream_status: status },
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    ...(errorType !== undefined ? { errorType } : {}),
  });
}

/** An `error` event in a stream (or an error object where a message was expected) → GatewayError. */
export function anthropicTypedError(type: string | undefined, upstreamMessage: string | undefined, endpoint: Endpoint): GatewayError {
  const providerCode = type ?? "unknown_error";
  const code = CODE_BY_TYPE[providerCode] ?? "bad_gateway";
  const message = CREDENTIAL_TYPES.has(providerCode) ? CREDENTIALS_MESSAGE : (upstreamMessage ?? `upstream reported ${providerCode}`);
  const errorType = errorTypeFor(code, upstreamMessage);
  return new GatewayError(code, compose(endpoint, message), {
    metadata: { provider_code: providerCode, provider: endpoint.provider.slug },
    ...(errorType !== undefined ? { errorType } : {}),
  });
}

export function invalidResponseError(endpoint: Endpoint): GatewayError {
  return new GatewayError("bad_gateway", "Upstream returned an invalid response", {
    metadata: { provider_code: "invalid_response", provider: endpoint.provider.slug },
  });
}

export function malformedStreamError(endpoint: Endpoint): GatewayError {
  return new GatewayError("bad_gateway", "Upstream sent a malformed stream event", {
    metadata: { provider_code: "malformed_stream", provider: endpoint.provider.slug },
  });
}

/** Seconds to wait, from `retry-after` (seconds or an HTTP date) or else `retry-after-ms`. */
export function readRetryAfter(headers: HeaderReader, now: number = Date.now()): number | undefined {
  const value = headers.get("retry-after")?.trim();
  if (value !== undefined && value !== "") {
    if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value));
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - now) / 1000));
  }
  const milliseconds = headers.get("retry-after-ms")?.trim();
  if (milliseconds !== undefined && /^\d+(\.\d+)?$/.test(milliseconds)) return Math.ceil(Number(milliseconds) / 1000);
  return undefined;
}
