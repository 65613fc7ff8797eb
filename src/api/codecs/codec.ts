import type { TSchema } from "@sinclair/typebox";
import type { ValueError } from "@sinclair/typebox/errors";
import type { CanonicalRequest, CanonicalResponse, RequestStyle, StreamPart, Usage } from "../../core/canonical.ts";
import type { GatewayError } from "../../core/errors.ts";
import type { RequestedServerTool } from "./server-tools.ts";

/** What an encoder needs to know of the request it answers. */
export interface EncodeContext {
  /** The generation id (`gen-…`), used as the response id in every style. */
  id: string;
  /** The catalog model that answered, as the client should see it. */
  model: string;
  /** Unix seconds. */
  created: number;
  /** Display name of the provider that answered. */
  provider: string;
  request: CanonicalRequest;
  /** The body exactly as the client sent it (Responses echoes instructions, tools, metadata, ...). */
  body: Record<string, unknown>;
  /** USD cost of a usage on the answering endpoint. */
  costOf(usage: Usage): number;
  /** The answering attempt sent a BYOK credential of the workspace (`usage.is_byok`); default false. */
  isByok?: boolean;
  /** Routing metadata (`X-OpenRouter-Metadata: enabled`): sent as `openrouter_metadata` (streams: at the end). */
  metadata?: Record<string, unknown>;
}

/**
 * Turns canonical stream parts into SSE frames of one style. Frames are complete
 * (`event: …\ndata: …\n\n`). `start` runs once before the first part; `end` once after a `finish`
 * part; `error` instead of `end` when the stream fails after it started.
 */
export interface StreamEncoder {
  start(): string[];
  part(part: StreamPart): string[];
  end(): string[];
  error(error: GatewayError): string[];
  /** `debug.echo_upstream_body`: a frame with the body sent upstream, before `start` (the first chunk). */
  debug?(upstreamBody: Record<string, unknown>): string[];
}

/** One request style: decode its body, encode answers and errors in its shape. */
export interface Codec {
  style: RequestStyle;
  /** TypeBox schema of the request body (validated by the route before decode). */
  schema: TSchema;
  /** The body as a canonical request; server tools it names are set aside in `serverTools` for the gateway to decide on. */
  decode(body: Record<string, unknown>, serverTools?: RequestedServerTool[]): CanonicalRequest;
  encodeResponse(response: CanonicalResponse, context: EncodeContext): Record<string, unknown>;
  createStreamEncoder(context: EncodeContext): StreamEncoder;
  /** A JSON error body in the style's shape; the HTTP status is the error's. */
  encodeError(error: GatewayError): Record<string, unknown>;
  /** The message of a body validation error, when the style words them its own way. */
  validationMessage?(errors: Iterable<ValueError>): string;
}

/** One SSE frame; `event` adds an `event:` line (the Anthropic SDK needs them). */
export function sseFrame(data: unknown, event?: string): string {
  const json = typeof data === "string" ? data : JSON.stringify(data);
  return event === undefined ? `data: ${json}\n\n` : `event: ${event}\ndata: ${json}\n\n`;
}

export const SSE_DONE = "data: [DONE]\n\n";
export const SSE_KEEPALIVE = ": OPENROUTER PROCESSING\n\n";

/** Anthropic's error `type` for an HTTP status. */
export function anthropicErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 402) return "billing_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 408 || status === 504) return "timeout_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 503 || status === 529) return "overloaded_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}
