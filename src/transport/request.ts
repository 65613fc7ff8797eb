/**
 * What the engine sends and what it hands back: the contract between adapters (translation only) and
 * the engine (I/O only). An adapter builds an UpstreamRequest; the engine sends it with its method and
 * body kind and reads the answer as the request says (JSON, SSE or bytes).
 */
import type { CanonicalResponse, StreamPart } from "../core/canonical.ts";
import type { Endpoint } from "../core/catalog-types.ts";
import type { MultipartForm } from "./multipart-body.ts";

/** One request to send upstream, fully translated. */
export interface UpstreamRequest {
  url: string;
  /** Default POST. GET and DELETE send no body (polling a job, fetching its content). */
  method?: "GET" | "POST" | "DELETE";
  headers: Record<string, string>;
  /**
   * The JSON body (the debug echo shows it as sent). Absent for a multipart body (`form`) and for a
   * request without one. Sent as `application/json`.
   */
  body?: Record<string, unknown>;
  /**
   * A multipart body. Its file parts are Blobs that can be read more than once (a spooled upload on
   * disk), so that a fallback endpoint can be sent the same bytes; the engine streams them.
   */
  form?: MultipartForm;
  /**
   * How to read a successful answer: `json` (parsed, bounded by the provider's max_response_bytes),
   * `sse` (a stream of events), `text` (bounded) or `bytes` (streamed through, never buffered).
   * Default: `sse` for a streaming chat request, else `json`.
   */
  answer?: "json" | "sse" | "text" | "bytes";
  /**
   * What the request asked for that this upstream cannot take, said in words (`reasoning: ...`):
   * reported in the routing metadata and the generation record instead of being silently lost.
   */
  warnings?: string[];
}

/** The header lookups the engine and the adapters make on an upstream answer. */
export interface HeaderReader {
  get(name: string): string | null;
}

/** A successful upstream answer, read as its request said. */
export interface UpstreamAnswer {
  status: number;
  headers: HeaderReader;
  /**
   * `json`: the parsed value; `text`: the string; `bytes`: a ReadableStream<Uint8Array> of the body as
   * it arrives (cancelling it aborts the upstream).
   */
  body: unknown;
}

/** One server-sent event as read from an upstream stream. */
export interface SseEvent {
  event?: string;
  data: string;
}

/** What an adapter's `parseError` extracts from an error body; the engine maps the status once. */
export interface UpstreamErrorFields {
  message?: string;
  /** The upstream's own error code or type, kept in the error's metadata. */
  providerCode?: string;
}

/** A request with a JSON body (every chat request). */
export type JsonUpstreamRequest = UpstreamRequest & { body: Record<string, unknown> };

/** A stateful translator for one upstream stream: an event maps to zero or more parts. */
export interface StreamParser {
  parse(event: SseEvent): StreamPart[];
  /** The upstream closed the stream; return any parts still owed (a finish the upstream never sent is not invented). */
  end(): StreamPart[];
}

/** How the engine reads a chat answer: a JSON body, or a stream of events. */
export interface ChatReader {
  parseResponse(body: unknown, endpoint: Endpoint): CanonicalResponse;
  createStreamParser(endpoint: Endpoint): StreamParser;
}

/** How the engine reads an error body: the upstream's message and code, nothing else. */
export interface ErrorReader {
  parseError(bodyText: string): UpstreamErrorFields;
}
