import { GatewayError } from "../core/errors.ts";
import type { SseEvent } from "./request.ts";

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;

/**
 * Incremental server-sent-events decoder: feed it text, get complete events. Handles `\n`, `\r\n` and
 * `\r` line ends, multi-line data, `event:` names and comment lines (ignored). The work is linear in
 * the input however it is split: each push scans only its own text, an unfinished line is kept as a
 * list of pieces and joined once when its line end arrives (never re-concatenated per push), and
 * `scanned` counts every character scanned or copied, so a test can hold the decoder to that. An event
 * still being built (its unfinished line plus its data) may hold at most `maxEventLength` characters: an
 * upstream that never ends a line or an event cannot make the gateway buffer without bound.
 */
export class SseDecoder {
  /** The pieces of the line still waiting for its line end. */
  #pending: string[] = [];
  #pendingLength = 0;
  /** The last push ended with `\r`: a `\n` starting the next one belongs to that line end. */
  #afterReturn = false;
  #event: string | undefined;
  /** The event's first data line, and the lines after it (most events have one). */
  #data: string | undefined;
  #more: string[] | undefined;
  #dataLength = 0;
  #scanned = 0;

  constructor(
    private readonly maxEventLength = Number.POSITIVE_INFINITY,
    /** Who sends the stream, for the error messages (a provider's name). */
    private readonly source = "Upstream",
  ) {}

  /** Characters scanned for line ends plus characters copied joining pieces of a line. */
  get scanned(): number {
    return this.#scanned;
  }

  push(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    if (this.#afterReturn && text.charCodeAt(0) === LF) start = 1;
    this.#afterReturn = false;
    this.#scanned += text.length - start;
    // The next \n and \r from `start`, each searched for again only once passed: every character is
    // looked at once (no match objects made per line, as a regular expression would).
    let lf = text.indexOf("\n", start);
    let cr = text.indexOf("\r", start);
    while (lf !== -1 || cr !== -1) {
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      const event = this.#line(this.#take(text.slice(start, end)));
      if (event) events.push(event);
      start = end + (end === cr && lf === end + 1 ? 2 : 1);
      if (lf !== -1 && lf < start) lf = text.indexOf("\n", start);
      if (cr !== -1 && cr < start) cr = text.indexOf("\r", start);
    }
    // A line end split between two pushes (`\r` here, `\n` next) must not end an empty line too.
    if (start === text.length && text.charCodeAt(text.length - 1) === CR) this.#afterReturn = true;
    if (start < text.length) {
      this.#pending.push(start === 0 ? text : text.slice(start));
      this.#pendingLength += text.length - start;
    }
    if (this.#pendingLength + this.#dataLength > this.maxEventLength) {
      // Characters never outnumber UTF-8 bytes: an event this long is over the byte limit too.
      throw new GatewayError("bad_gateway", `${this.source} sent a stream event larger than ${this.maxEventLength} bytes (max_response_bytes)`, {
        metadata: { provider_code: "response_too_large" },
      });
    }
    return events;
  }

  /** The line ending with `tail`: the pieces waiting for it joined once. */
  #take(tail: string): string {
    if (this.#pending.length === 0) return tail;
    this.#pending.push(tail);
    const line = this.#pending.join("");
    this.#scanned += line.length;
    this.#pending = [];
    this.#pendingLength = 0;
    return line;
  }

  /** The stream ended: an event still being built is dispatched if it has data. */
  finish(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.#pending.length > 0) {
      const event = this.#line(this.#take(""));
      if (event) events.push(event);
    }
    this.#afterReturn = false;
    const last = this.#line("");
    if (last) events.push(last);
    return events;
  }

  #line(line: string): SseEvent | undefined {
    if (line === "") {
      const first = this.#data;
      if (first === undefined) {
        this.#event = undefined;
        return undefined;
      }
      const event: SseEvent = { data: this.#more === undefined ? first : `${first}\n${this.#more.join("\n")}` };
      if (this.#event !== undefined) event.event = this.#event;
      this.#data = undefined;
      this.#more = undefined;
      this.#dataLength = 0;
      this.#event = undefined;
      return event;
    }
    if (line.charCodeAt(0) === COLON) return undefined;
    if (line.startsWith("data:")) {
      this.#addData(line.charCodeAt(5) === SPACE ? line.slice(6) : line.slice(5));
      return undefined;
    }
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === SPACE) value = value.slice(1);
    // A `data` line without a colon is an empty data line.
    if (field === "data") this.#addData(value);
    else if (field === "event") this.#event = value;
    return undefined;
  }

  #addData(value: string): void {
    if (this.#data === undefined) this.#data = value;
    else (this.#more ??= []).push(value);
    this.#dataLength += value.length + 1;
  }
}
