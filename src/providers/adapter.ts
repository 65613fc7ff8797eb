import type { UpstreamErrorFields } from "./upstream-errors.ts";
import type { CanonicalRequest, CanonicalResponse, StreamPart } from "../core/canonical.ts";
import type { Endpoint } from "../routing/catalog.ts";

/** One request to send upstream, fully translated. The http engine sends it; adapters do no I/O. */
export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  /** The JSON body (the debug echo shows it as sent). */
  body: Record<string, unknown>;
  /**
   * What the request asked for that this upstream cannot take, said in words (`reasoning: ...`):
   * reported in the routing metadata and the generation record instead of being silently lost.
   */
  warnings?: string[];
}

/** One server-sent event as read from an upstream stream. */
export interface SseEvent {
  event?: string;
  data: string;
}

/** A stateful translator for one upstream stream: an event maps to zero or more parts. */
export interface StreamParser {
  parse(event: SseEvent): StreamPart[];
  /** The upstream closed the stream; return any parts still owed (a finish the upstream never sent is not invented). */
  end(): StreamPart[];
}

export interface BuildOptions {
  stream: boolean;
  /** The credential to send, resolved from the config or the vault by the caller. */
  apiKey: string | undefined;
}

/**
 * A wire protocol. Translation only: no fetch, no timers. Optional capabilities are optional members.
 * `parseError` only extracts the message and the upstream's own code from an error body; the engine
 * maps the status to the gateway's code once, for every protocol (upstream-errors.ts).
 */
export interface ProviderAdapter {
  buildRequest(request: CanonicalRequest, endpoint: Endpoint, options: BuildOptions): UpstreamRequest;
  parseResponse(body: unknown, endpoint: Endpoint): CanonicalResponse;
  createStreamParser(endpoint: Endpoint): StreamParser;
  parseError(bodyText: string): UpstreamErrorFields;
  /**
   * The `max_tokens` this protocol always sends for the request (one whose API requires it), so that a
   * spend limit can bound the output; absent when the upstream decides by itself.
   */
  outputCap?(request: CanonicalRequest, endpoint: Endpoint): number;
}
