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
  const watch = new ReadWatch(reader);
  let first = true;
  try {
    for (;;) {
      const wait = first && options.firstEventMs !== undefined ? options.firstEventMs : options.idleMs;
      watch.begin(wait);
      const { done, value } = await reader.read();
      watch.end();
      if (watch.timedOut) {
        throw new GatewayError(
          "gateway_timeout",
          first ? `Upstream sent no data for ${wait} ms before its first event` : `Upstream stream stalled for ${wait} ms`,
          { metadata: { provider_code: first ? "first_byte_timeout" : "idle_timeout" } },
        );
      }
      if (done) break;
      const events = sse.push(decoder.decode(value, { stream: true }));
      if (events.length > 0) first = false;
      yield* events;
    }
    yield* sse.push(decoder.decode());
    yield* sse.finish();
  } finally {
    watch.stop();
    reader.cancel().catch(() => {});
  }
}

/**
 * The timeout of a stream's reads, with one timer per stream rather than one per read: a read only
 * notes when it began, and the timer, when it fires, checks how long the read in progress has waited:
 * past its limit it cancels the reader (which ends that read), otherwise it is re-armed for the rest.
 * Time spent outside a read (the consumer busy) does not count, as with a timer per read.
 */
class ReadWatch {
  timedOut = false;
  #reading = false;
  #since = 0;
  #wait = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the armed timer fires (performance.now() time). */
  #due = 0;

  constructor(private readonly reader: { cancel(): Promise<void> }) {}

  begin(wait: number): void {
    if (wait <= 0) return;
    this.#reading = true;
    this.#since = performance.now();
    this.#wait = wait;
    // A timer armed for a longer wait (the first read's) would fire late for this one.
    if (this.#timer === undefined || this.#due > this.#since + wait) this.#arm(wait);
  }

  end(): void {
    this.#reading = false;
  }

  stop(): void {
    this.#reading = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(ms: number): void {
    clearTimeout(this.#timer);
    this.#due = performance.now() + ms;
    this.#timer = setTimeout(this.#fire, ms);
  }

  #fire = (): void => {
    this.#timer = undefined;
    if (!this.#reading) return;
    const left = this.#since + this.#wait - performance.now();
    if (left > 0) {
      this.#arm(Math.max(1, Math.ceil(left)));
      return;
    }
    this.timedOut = true;
    this.reader.cancel().catch(() => {});
  };
}
