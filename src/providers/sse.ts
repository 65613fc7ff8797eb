import { GatewayError } from "../core/errors.ts";
import type { SseEvent } from "./adapter.ts";

/**
 * Incremental server-sent-events decoder: feed it text, get complete events. Handles `\n`, `\r\n` and
 * `\r` line ends, multi-line data, `event:` names and comment lines (ignored). Each character is
 * scanned once however the text is split, and an event still being built (its unfinished line plus its
 * data) may hold at most `maxEventLength` characters: an upstream that never ends a line cannot make the
 * gateway buffer without bound.
 */
export class SseDecoder {
  #buffer = "";
  /** Characters at the start of #buffer known to hold no line end. */
  #scanned = 0;
  #event: string | undefined;
  #data: string[] = [];
  #dataLength = 0;

  constructor(private readonly maxEventLength = Number.POSITIVE_INFINITY) {}

  push(text: string): SseEvent[] {
    const buffer = this.#buffer + text;
    const events: SseEvent[] = [];
    const lineEnd = /\r\n|\r|\n/g;
    lineEnd.lastIndex = this.#scanned;
    let start = 0;
    for (;;) {
      const match = lineEnd.exec(buffer);
      if (!match) break;
      // A lone \r at the end may be the first half of \r\n: wait for more.
      if (match[0] === "\r" && match.index === buffer.length - 1) break;
      const line = buffer.slice(start, match.index);
      start = match.index + match[0].length;
      const event = this.#line(line);
      if (event) events.push(event);
    }
    this.#buffer = start === 0 ? buffer : buffer.slice(start);
    this.#scanned = this.#buffer.endsWith("\r") ? this.#buffer.length - 1 : this.#buffer.length;
    if (this.#buffer.length + this.#dataLength > this.maxEventLength) {
      throw new GatewayError("bad_gateway", `Upstream sent a stream event larger than ${this.maxEventLength} bytes`, {
        metadata: { provider_code: "response_too_large" },
      });
    }
    return events;
  }

  /** The stream ended: an event still being built is dispatched if it has data. */
  finish(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.#buffer.length > 0) {
      const event = this.#line(this.#buffer);
      this.#buffer = "";
      if (event) events.push(event);
    }
    this.#scanned = 0;
    const last = this.#line("");
    if (last) events.push(last);
    return events;
  }

  #line(line: string): SseEvent | undefined {
    if (line === "") {
      if (this.#data.length === 0) {
        this.#event = undefined;
        return undefined;
      }
      const event: SseEvent = { data: this.#data.join("\n") };
      if (this.#event !== undefined) event.event = this.#event;
      this.#data = [];
      this.#dataLength = 0;
      this.#event = undefined;
      return event;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      this.#data.push(value);
      this.#dataLength += value.length + 1;
    }
    else if (field === "event") this.#event = value;
    return undefined;
  }
}

/**
 * Reads SSE events from a response body. Each read waits at most `idleMs`; a longer silence ends the
 * stream with a 504 GatewayError, and an abort of `signal` cancels the body. One event larger than
 * `maxEventBytes` (counted in characters) ends the stream with a 502 GatewayError.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  options: { idleMs: number; firstEventMs?: number; signal?: AbortSignal; maxEventBytes?: number },
): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const sse = new SseDecoder(options.maxEventBytes);
  let first = true;
  try {
    for (;;) {
      const wait = first && options.firstEventMs !== undefined ? options.firstEventMs : options.idleMs;
      const { done, value } = await readWithTimeout(reader as Reader, wait, first);
      if (done) break;
      const events = sse.push(decoder.decode(value, { stream: true }));
      if (events.length > 0) first = false;
      yield* events;
    }
    yield* sse.push(decoder.decode());
    yield* sse.finish();
  } finally {
    reader.cancel().catch(() => {});
  }
}

type Reader = { read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }> };

function readWithTimeout(reader: Reader, ms: number, first: boolean): ReturnType<Reader["read"]> {
  if (ms <= 0) return reader.read();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new GatewayError(
          "gateway_timeout",
          first ? `Upstream sent no data for ${ms} ms before its first event` : `Upstream stream stalled for ${ms} ms`,
          { metadata: { provider_code: first ? "first_byte_timeout" : "idle_timeout" } },
        ),
      );
    }, ms);
  });
  return Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
}
