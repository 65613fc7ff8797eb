import type { HeaderReader } from "./http.ts";
import { type ErrorCode, GatewayError } from "../core/errors.ts";
import type { Endpoint } from "../routing/catalog.ts";

/**
 * The gateway's error for an upstream's HTTP error status. Credentials the upstream refused are the
 * gateway's problem, not the client's, so 401/403 become 502. The message names the provider; the raw
 * body never travels further than this function.
 */
export function upstreamError(
  endpoint: Endpoint,
  status: number,
  upstreamMessage: string | undefined,
  providerCode: string | undefined,
  headers: HeaderReader,
): GatewayError {
  let code: ErrorCode;
  if (status === 400 || status === 422) code = "bad_request";
  else if (status === 401 || status === 403) code = "bad_gateway";
  else if (status === 404) code = "not_found";
  else if (status === 408) code = "timeout";
  else if (status === 413) code = "payload_too_large";
  else if (status === 429) code = "rate_limited";
  else if (status === 503 || status === 529) code = "unavailable";
  else if (status === 504) code = "gateway_timeout";
  else code = "bad_gateway";
  const what =
    status === 401 || status === 403
      ? "rejected the gateway's credentials"
      : status === 404
        ? `does not know the model ${endpoint.upstreamModel}`
        : `answered ${status}`;
  // What an upstream says about our credentials may quote them: never pass it on.
  const detail = upstreamMessage && status !== 401 && status !== 403 ? `: ${truncate(upstreamMessage, 500)}` : "";
  const retryAfter = retryAfterSeconds(headers);
  return new GatewayError(code, `${endpoint.provider.name} ${what}${detail}`, {
    metadata: { provider: endpoint.provider.slug, provider_code: providerCode ?? String(status), upstream_status: status },
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  });
}

/** Seconds from `retry-after-ms`, `retry-after` (seconds or an HTTP date). */
export function retryAfterSeconds(headers: HeaderReader): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms)) return Number(ms) / 1000;
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
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
