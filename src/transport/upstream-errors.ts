import type { HeaderReader } from "./request.ts";
import { type ErrorCode, GatewayError } from "../core/errors.ts";
import type { Endpoint } from "../core/catalog-types.ts";

/**
 * The one upstream error path. An adapter only extracts fields from an error body (its message and its
 * own code or type); the status → code table, the Retry-After parser, the message wording and the
 * metadata live here, so an upstream's 502 means the same whichever wire it speaks.
 */

/** What an adapter reads out of an upstream's error body. Absent fields were not in the body. */
export type { UpstreamErrorFields } from "./request.ts";
import type { UpstreamErrorFields } from "./request.ts";

/**
 * An upstream HTTP status → the gateway's code. Credentials (401/403) and the upstream account's
 * billing (402) are the gateway's problem, not the client's: 502. Any other 4xx means the request was
 * refused as it stands: 400.
 */
export function codeForUpstreamStatus(status: number): ErrorCode {
  switch (status) {
    case 401:
    case 402:
    case 403:
      return "bad_gateway";
    case 404:
      return "not_found";
    case 408:
      return "timeout";
    case 413:
      return "payload_too_large";
    case 429:
      return "rate_limited";
    case 503:
    case 529:
      return "unavailable";
    case 504:
      return "gateway_timeout";
    default:
      return status >= 400 && status < 500 ? "bad_request" : "bad_gateway";
  }
}

const MAX_MESSAGE_LENGTH = 500;
const CONTEXT_LENGTH = /context[ _](length|window)|maximum context|too many tokens|prompt is too long/i;

/**
 * The gateway's error for an upstream failure with `status`. `headers` are the answer's (absent for an
 * error reported inside a 200 body or a stream, where `status` is the one the error names or implies).
 * What an upstream says about the gateway's credentials may quote them, so it never travels further;
 * the raw body never reaches this function at all.
 */
export function upstreamError(
  endpoint: Endpoint,
  status: number,
  fields: UpstreamErrorFields,
  headers?: HeaderReader,
): GatewayError {
  const code = codeForUpstreamStatus(status);
  const credentials = status === 401 || status === 403;
  const what = credentials
    ? "rejected the gateway's credentials"
    : status === 404
      ? `does not know the model ${endpoint.upstreamModel}`
      : headers
        ? `answered ${status}`
        : `reported ${fields.providerCode ?? "an error"}`;
  const detail = fields.message !== undefined && fields.message !== "" && !credentials ? `: ${fields.message}` : "";
  const retryAfter = headers ? retryAfterSeconds(headers) : undefined;
  const contextLength =
    fields.providerCode === "context_length_exceeded" || (code === "bad_request" && fields.message !== undefined && CONTEXT_LENGTH.test(fields.message));
  return new GatewayError(code, truncate(`${endpoint.provider.name} ${what}${detail}`, MAX_MESSAGE_LENGTH), {
    metadata: {
      provider: endpoint.provider.slug,
      provider_code: fields.providerCode ?? String(status),
      // Tells availability an upstream 5xx (transient) from a 401 or 402 (not).
      upstream_status: status,
    },
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    ...(contextLength ? { errorType: "context_length_exceeded" } : {}),
  });
}

/** Seconds to wait, from `retry-after-ms`, else `retry-after` (seconds or an HTTP date). */
export function retryAfterSeconds(headers: HeaderReader, now: number = Date.now()): number | undefined {
  const milliseconds = headers.get("retry-after-ms")?.trim();
  if (milliseconds !== undefined && /^\d+(\.\d+)?$/.test(milliseconds)) return Number(milliseconds) / 1000;
  const value = headers.get("retry-after")?.trim();
  if (value === undefined || value === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The upstream answered 2xx with something that is not what its protocol promises. */
export function invalidUpstreamResponse(endpoint: Endpoint, what: string): GatewayError {
  return new GatewayError("bad_gateway", `${endpoint.provider.name} returned an invalid response: ${what}`, {
    metadata: { provider: endpoint.provider.slug, provider_code: "invalid_response" },
  });
}

/** The upstream's stream carried an event its protocol does not allow. */
export function malformedStream(endpoint: Endpoint): GatewayError {
  return new GatewayError("bad_gateway", `${endpoint.provider.name} sent a malformed stream event`, {
    metadata: { provider: endpoint.provider.slug, provider_code: "malformed_stream" },
  });
}
