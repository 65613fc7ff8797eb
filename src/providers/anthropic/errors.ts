import type { GatewayError } from "../../core/errors.ts";
import type { Endpoint } from "../../core/catalog-types.ts";
import { invalidUpstreamResponse, malformedStream, upstreamError, type UpstreamErrorFields } from "../../transport/upstream-errors.ts";
import { isRecord } from "./wire.ts";

/**
 * The HTTP status each Anthropic error `type` stands for (its documented pairing), for errors that
 * arrive without one: an `error` event mid-stream, or an error object in a 200 body.
 */
const STATUS_BY_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** `{type: "error", error: {type, message}}` → its type and message, when the body has that shape. */
export function readErrorBody(value: unknown): { type?: string; message?: string } | undefined {
  if (!isRecord(value) || !isRecord(value.error)) return undefined;
  const { type, message } = value.error;
  return {
    ...(typeof type === "string" && type !== "" ? { type } : {}),
    ...(typeof message === "string" && message !== "" ? { message } : {}),
  };
}

/** An upstream error body → its fields (none for a body of another shape, e.g. a proxy's HTML page). */
export function readAnthropicError(bodyText: string): UpstreamErrorFields {
  let parsed: { type?: string; message?: string } | undefined;
  try {
    parsed = readErrorBody(JSON.parse(bodyText));
  } catch {
    parsed = undefined;
  }
  return { message: parsed?.message, providerCode: parsed?.type };
}

/** An `error` event in a stream (or an error object where a message was expected) → GatewayError. */
export function anthropicTypedError(type: string | undefined, message: string | undefined, endpoint: Endpoint): GatewayError {
  return upstreamError(endpoint, STATUS_BY_TYPE[type ?? ""] ?? 502, { message, providerCode: type ?? "unknown_error" });
}

export function invalidResponseError(endpoint: Endpoint): GatewayError {
  return invalidUpstreamResponse(endpoint, "not a Messages API answer");
}

export function malformedStreamError(endpoint: Endpoint): GatewayError {
  return malformedStream(endpoint);
}
