import type { HeaderReader } from "../http.ts";
import { GatewayError } from "../../core/errors.ts";
import type { Endpoint } from "../../routing/catalog.ts";
import { upstreamError } from "../upstream-errors.ts";

type Json = Record<string, any>;

const CONTEXT_LENGTH = /context[ _](length|window)|maximum context|too many tokens|prompt is too long/i;

/**
 * An OpenAI-style error object (`{message, type, code}`, wrapped in `error` or bare as vLLM sends it) →
 * GatewayError. What an upstream says about the gateway's own credentials (401/403) stays here: it may
 * quote part of the key, and it is the operator's problem, not the client's.
 */
function fromErrorObject(status: number, error: unknown, headers: HeaderReader, endpoint: Endpoint): GatewayError {
  let message: string | undefined;
  let code: string | undefined;
  if (typeof error === "string") message = error;
  else if (error && typeof error === "object") {
    const object = error as Json;
    if (typeof object.message === "string") message = object.message;
    if (typeof object.code === "string" && object.code !== "") code = object.code;
    else if (typeof object.type === "string" && object.type !== "") code = object.type;
    else if (typeof object.code === "number") code = String(object.code);
  }
  const credentials = status === 401 || status === 403;
  const base = upstreamError(endpoint, status, credentials ? undefined : message, code, headers);
  const contextLength = code === "context_length_exceeded" || (status === 400 && message !== undefined && CONTEXT_LENGTH.test(message));
  if (!contextLength) return base;
  return new GatewayError(base.code, base.message, {
    metadata: base.metadata,
    ...(base.retryAfter !== undefined ? { retryAfter: base.retryAfter } : {}),
    errorType: "context_length_exceeded",
  });
}

/** An upstream HTTP error → GatewayError. The raw body never travels further. */
export function parseChatError(status: number, bodyText: string, headers: HeaderReader, endpoint: Endpoint): GatewayError {
  let error: unknown;
  try {
    const json = JSON.parse(bodyText) as Json;
    error = json && typeof json === "object" ? (json.error ?? json) : undefined;
  } catch {
    // Not JSON (an HTML page from a proxy, plain text): the status says enough.
  }
  return fromErrorObject(status, error, headers, endpoint);
}

/** An `error` object inside a stream chunk (or a 200 body); its numeric `code`, if any, is the status. */
export function chunkError(error: Json, endpoint: Endpoint): GatewayError {
  const status = typeof error.code === "number" && error.code >= 400 && error.code <= 599 ? error.code : 502;
  return fromErrorObject(status, error, new Headers(), endpoint);
}

export function malformedChunk(endpoint: Endpoint): GatewayError {
  return new GatewayError("bad_gateway", `${endpoint.provider.name} sent a malformed stream chunk`, {
    metadata: { provider: endpoint.provider.slug, provider_code: "malformed_stream" },
  });
}
