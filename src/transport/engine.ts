import { responseToParts } from "../core/accumulate.ts";
import type { CanonicalResponse, StreamPart } from "../core/canonical.ts";
import { GatewayError } from "../core/errors.ts";
import { readAtMost } from "../core/read-at-most.ts";
import type { Endpoint } from "../core/catalog-types.ts";
import type { ChatReader, ErrorReader, HeaderReader, UpstreamAnswer, UpstreamRequest } from "./request.ts";
import { UpstreamParts } from "./upstream-parts.ts";
import { invalidUpstreamResponse, upstreamError } from "./upstream-errors.ts";

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export type { HeaderReader } from "./request.ts";

/**
 * What the engine reads of an upstream answer. A fetch `Response` is one; the gateway's own client
 * answers with a lighter one (no Headers or Response objects built per request).
 */
export interface UpstreamResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: HeaderReader;
  readonly body: ReadableStream<Uint8Array> | null;
  bytes(): Promise<Uint8Array>;
}

/** How a provider call is made: fetch, the simulator, or the gateway's HTTP client. */
export type UpstreamFetch = (url: string, init: RequestInit) => Promise<UpstreamResponse>;

export interface SendOptions {
  fetch: UpstreamFetch;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
}

const MAX_ERROR_BODY = 64 * 1024;
/** `upstream.max_response_bytes` when a provider does not say (providers built outside the catalog). */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** The runtime's own words about a failed connection, without its debugging advice. */
function detailOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s*For more information, pass `verbose: true`.*$/s, "");
}

const CONNECT_FAILURES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ConnectionRefused: "connection refused",
  ECONNRESET: "connection reset",
  ConnectionClosed: "connection reset",
  ENOTFOUND: "host name not resolved",
  EAI_AGAIN: "host name not resolved",
  ETIMEDOUT: "connect timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};

/**
 * An upstream that could not be reached. The client reads what happened, never the runtime's words,
 * which name the upstream's address (an internal host); those stay on the cause, for the log.
 */
function connectionError(endpoint: Endpoint, error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const what = (typeof code === "string" ? CONNECT_FAILURES[code] : undefined) ?? "connection failed";
  return new GatewayError("bad_gateway", `${endpoint.provider.name} could not be reached (${what})`, {
    metadata: { provider: endpoint.provider.slug, provider_code: "connection_error" },
    cause: error,
  });
}

function streamCut(endpoint: Endpoint, cause?: unknown): GatewayError {
  const detail = cause === undefined ? "" : ` (${detailOf(cause)})`;
  return new GatewayError("bad_gateway", `${endpoint.provider.name} closed the stream before it finished${detail}`, {
    metadata: { provider: endpoint.provider.slug, provider_code: "stream_cut" },
    ...(cause === undefined ? {} : { cause }),
  });
}

function timeoutError(endpoint: Endpoint, what: string, ms: number): GatewayError {
  return new GatewayError("gateway_timeout", `${endpoint.provider.name} did not answer within ${ms} ms (${what})`, {
    metadata: { provider: endpoint.provider.slug, provider_code: "timeout" },
  });
}

function tooLarge(endpoint: Endpoint, max: number): GatewayError {
  return new GatewayError("bad_gateway", `${endpoint.provider.name} sent a response larger than ${max} bytes`, {
    metadata: { provider: endpoint.provider.slug, provider_code: "response_too_large" },
  });
}

/**
 * Reads a whole body, at most `max` bytes: a longer one (declared or actual) is cancelled, which closes
 * the connection, and is an error. The gateway never holds more of an upstream answer than the limit.
 */
async function readBounded(response: UpstreamResponse, endpoint: Endpoint, max: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > max) {
    response.body?.cancel().catch(() => {});
    throw tooLarge(endpoint, max);
  }
  // A declared length within the limit of a body sent as is: the client reads exactly that many
  // bytes, in one go (no body is no bytes). A compressed body is decoded by fetch and may grow: it is
  // read bounded. The body stream is not asked for first: the gateway's client makes it on demand.
  const coding = response.headers.get("content-encoding");
  if (Number.isSafeInteger(declared) && declared >= 0 && (coding === null || coding.trim().toLowerCase() === "identity")) {
    const bytes = await response.bytes();
    if (bytes.byteLength > max) throw tooLarge(endpoint, max);
    return UTF8.decode(bytes);
  }
  if (!response.body) return "";
  return UTF8.decode(await readAtMost(response.body, max, () => tooLarge(endpoint, max)));
}

const UTF8 = new TextDecoder();

/**
 * An answer's body as text, read within `ms` and at most the provider's `max_response_bytes`; anything
 * else (a stall, a cut, too much) is a GatewayError and the upstream request is aborted.
 */
async function readText(
  response: UpstreamResponse,
  controller: AbortController,
  endpoint: Endpoint,
  options: SendOptions,
  ms: number,
  /** The timer that watched the headers, re-armed for the body (else a new one). */
  deadline?: Deadline,
): Promise<string> {
  const timer = deadline ?? new Deadline(controller, ms);
  if (deadline) deadline.restart();
  try {
    return await readBounded(response, endpoint, endpoint.provider.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
  } catch (error) {
    controller.abort();
    if (error instanceof GatewayError) throw error;
    throw timer.timedOut && !options.signal.aborted ? timeoutError(endpoint, "body", ms) : connectionError(endpoint, error);
  } finally {
    timer.clear();
  }
}

/** A JSON answer's body (see readText); a body that is not JSON is an invalid response. */
async function readJson(
  response: UpstreamResponse,
  controller: AbortController,
  endpoint: Endpoint,
  options: SendOptions,
  ms: number,
  deadline?: Deadline,
): Promise<unknown> {
  const text = await readText(response, controller, endpoint, options, ms, deadline);
  try {
    return JSON.parse(text);
  } catch {
    throw invalidUpstreamResponse(endpoint, "the body is not JSON");
  }
}

async function readLimited(response: UpstreamResponse): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < MAX_ERROR_BODY) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, MAX_ERROR_BODY));
}

/** An attempt's one timer: when it fires the upstream request is aborted; it can be re-armed for the next wait. */
class Deadline {
  timedOut = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(controller: AbortController, ms: number) {
    if (ms > 0) {
      this.#timer = setTimeout(() => {
        this.timedOut = true;
        controller.abort();
      }, ms);
    }
  }

  /** The same wait again, from now. */
  restart(): void {
    this.#timer?.refresh();
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * Sends a request and waits for the response headers at most `ms`. The returned controller stays in
 * charge of the upstream request: aborting it (or the client's signal) cancels the body too. With
 * `keepDeadline`, the timer is handed back (still armed) for the caller to re-arm for the body.
 */
async function send(
  upstream: UpstreamRequest,
  endpoint: Endpoint,
  options: SendOptions,
  ms: number,
  what: string,
  keepDeadline = false,
): Promise<{ response: UpstreamResponse; controller: AbortController; deadline: Deadline }> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal.reason);
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener("abort", onAbort, { once: true });
  const deadline = new Deadline(controller, ms);
  try {
    const response = await options.fetch(upstream.url, { method: upstream.method ?? "POST", ...bodyOf(upstream), signal: controller.signal });
    if (!keepDeadline) deadline.clear();
    return { response, controller, deadline };
  } catch (error) {
    deadline.clear();
    options.signal.removeEventListener("abort", onAbort);
    if (deadline.timedOut) throw timeoutError(endpoint, what, ms);
    if (options.signal.aborted) throw new GatewayError("timeout", "The client closed the request", { cause: error });
    throw connectionError(endpoint, error);
  }
}

/** The headers and body to send: JSON, a streamed multipart form (its length declared), or none. */
function bodyOf(upstream: UpstreamRequest): Pick<RequestInit, "headers" | "body"> {
  if (upstream.body !== undefined) return { headers: upstream.headers, body: JSON.stringify(upstream.body) };
  if (upstream.form === undefined) return { headers: upstream.headers, body: null };
  const { contentType, length, body } = upstream.form.encode();
  return { headers: { ...upstream.headers, "content-type": contentType, "content-length": String(length) }, body };
}

/** An error status: its body (the first 64 KiB, within the first-byte timeout) is read for the message. */
async function failure(response: UpstreamResponse, controller: AbortController, endpoint: Endpoint, errors: ErrorReader): Promise<GatewayError> {
  const ms = endpoint.provider.timeouts.firstByteMs;
  const timer = ms > 0 ? setTimeout(() => controller.abort(), ms) : undefined;
  let text = "";
  try {
    text = await readLimited(response).catch(() => "");
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return upstreamError(endpoint, response.status, errors.parseError(text), response.headers);
}

/**
 * One non-streaming call, answered as the request's `answer` says: `json` and `text` whole within the
 * first-byte timeout (bounded by max_response_bytes); `bytes` once the headers arrived, the body then
 * streamed through with the idle timeout between chunks (cancelling it aborts the upstream).
 */
export async function call(upstream: UpstreamRequest, endpoint: Endpoint, errors: ErrorReader, options: SendOptions): Promise<UpstreamAnswer> {
  const ms = endpoint.provider.timeouts.firstByteMs;
  const { response, controller, deadline } = await send(upstream, endpoint, options, ms, "first byte", true);
  if (!response.ok) {
    deadline.clear();
    throw await failure(response, controller, endpoint, errors);
  }
  const answer = upstream.answer ?? "json";
  if (answer === "bytes") {
    deadline.clear();
    if (!response.body) throw invalidUpstreamResponse(endpoint, "the answer has no body");
    return { status: response.status, headers: response.headers, body: streamThrough(response.body, controller, endpoint, options) };
  }
  if (answer === "text") {
    const text = await readText(response, controller, endpoint, options, ms, deadline);
    return { status: response.status, headers: response.headers, body: text };
  }
  const body = await readJson(response, controller, endpoint, options, ms, deadline);
  return { status: response.status, headers: response.headers, body };
}

/** One non-streaming chat call: the whole answer within the first-byte timeout. */
export async function sendJson(
  upstream: UpstreamRequest,
  endpoint: Endpoint,
  chat: Pick<ChatReader, "parseResponse">,
  errors: ErrorReader,
  options: SendOptions,
): Promise<CanonicalResponse> {
  const answer = await call({ ...upstream, answer: "json" }, endpoint, errors, options);
  return chat.parseResponse(answer.body, endpoint);
}

/**
 * An upstream body passed on as it arrives: each chunk within the idle timeout, the upstream aborted
 * when the reader cancels (a client that went away) or a chunk is late.
 */
function streamThrough(body: ReadableStream<Uint8Array>, controller: AbortController, endpoint: Endpoint, options: SendOptions): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const idleMs = endpoint.provider.timeouts.idleMs;
  const onAbort = () => controller.abort();
  options.signal.addEventListener("abort", onAbort, { once: true });
  const done = () => options.signal.removeEventListener("abort", onAbort);
  return new ReadableStream<Uint8Array>({
    async pull(sink) {
      const deadline = new Deadline(controller, idleMs);
      try {
        const { done: ended, value } = await reader.read();
        if (ended) {
          done();
          sink.close();
        } else sink.enqueue(value);
      } catch (error) {
        done();
        sink.error(deadline.timedOut ? timeoutError(endpoint, "idle", idleMs) : streamCut(endpoint, error));
      } finally {
        deadline.clear();
      }
    },
    cancel(reason) {
      done();
      controller.abort(reason);
      reader.cancel(reason).catch(() => {});
    },
  });
}

/**
 * Opens a stream. Resolves once the upstream accepted the request (headers within the connect timeout);
 * the parts then follow, each within the idle timeout (the first within the first-byte timeout). The
 * stream always ends with a `finish` or an `error` part: a stream the upstream closes without finishing
 * ends with a `stream_cut` error, never a clean end.
 */
export async function openStream(
  upstream: UpstreamRequest,
  endpoint: Endpoint,
  chat: ChatReader,
  errors: ErrorReader,
  options: SendOptions,
): Promise<AsyncGenerator<StreamPart>> {
  const timeouts = endpoint.provider.timeouts;
  const { response, controller } = await send(upstream, endpoint, options, timeouts.connectMs, "connect");
  if (!response.ok) throw await failure(response, controller, endpoint, errors);
  const type = response.headers.get("content-type") ?? "";
  if (type.includes("application/json")) {
    // Some servers answer a stream request with one JSON body; replay it as parts.
    const body = await readJson(response, controller, endpoint, options, timeouts.firstByteMs);
    const parsed = chat.parseResponse(body, endpoint);
    return (async function* () {
      yield* responseToParts(parsed);
    })();
  }
  if (/^\s*text\/html\b/i.test(type)) {
    // A proxy's error page with a 200: not a stream, and not worth reading.
    controller.abort();
    throw invalidUpstreamResponse(endpoint, `content type ${type.split(";")[0]!.trim()}`);
  }
  if (!response.body) throw invalidUpstreamResponse(endpoint, "the stream has no body");
  return new UpstreamParts(response.body, chat.createStreamParser(endpoint), {
    idleMs: timeouts.idleMs,
    firstEventMs: timeouts.firstByteMs,
    maxEventBytes: endpoint.provider.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    source: endpoint.provider.name,
    signal: options.signal,
    cut: (cause) => streamCut(endpoint, cause),
    release: () => controller.abort(STREAM_DONE),
  });
}

/**
 * The reason a stream's upstream request is aborted once the stream is done with it: one shared value,
 * as `abort()` without one would make a new DOMException (and capture a stack) for every stream.
 */
const STREAM_DONE = new DOMException("The operation was aborted.", "AbortError");
