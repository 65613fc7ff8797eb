import type { StreamPart } from "../core/canonical.ts";
import { GatewayError } from "../core/errors.ts";
import type { SseEvent, StreamParser } from "./request.ts";
import { SseDecoder } from "./sse.ts";
import { PartIterator } from "../core/part-iterator.ts";

export interface UpstreamPartsOptions {
  /** The longest silence between reads, and before the first event. */
  idleMs: number;
  firstEventMs: number;
  /** One event larger than this ends the stream with an error. */
  maxEventBytes: number;
  /** Who sends the stream (the provider's name), for the errors' messages. */
  source: string;
  /** The client's signal: a failure once it aborted ends the parts without an error part. */
  signal: AbortSignal;
  /** The error of a stream the upstream cut: closed before it finished, or failed with `cause`. */
  cut(cause?: unknown): GatewayError;
  /** Releases the upstream request, once the parts end in any way. */
  release(): void;
}

const DONE: IteratorResult<StreamPart, undefined> = Object.freeze({ done: true, value: undefined });
/** The decoder's options for every read but the last (one object, not one per read). */
const STREAMING: { stream: boolean } = Object.freeze({ stream: true });

/**
 * An upstream's SSE body as stream parts: events decoded and parsed as the body's chunks arrive (each
 * read within the idle timeout, the first within the first-event one). The parts always end with a
 * `finish` or an `error` part: a body that ends before the parser finished ends with a cut, a failure
 * (a stall, an event too large, a broken connection) with its error, unless the client left. Reading
 * stops after the event that finished or failed the stream; once the parts end, or the consumer stops,
 * the body is cancelled and the upstream released.
 *
 * Not a generator: the parts of one read are parsed together and handed on one `next` at a time (a
 * part already parsed costs one resolved promise), and each read is one async call.
 */
export class UpstreamParts extends PartIterator {
  readonly #reader: { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> };
  readonly #decoder = new TextDecoder();
  readonly #sse: SseDecoder;
  readonly #watch: ReadWatch;
  /** Parts parsed and not yet handed on, from `#taken`. */
  #queue: StreamPart[] = [];
  #taken = 0;
  #first = true;
  /** Nothing more is read: the stream finished or failed, or the body ended. */
  #last = false;
  /** The upstream was released. */
  #closed = false;

  constructor(
    body: ReadableStream<Uint8Array>,
    private readonly parser: StreamParser,
    private readonly options: UpstreamPartsOptions,
  ) {
    super();
    this.#reader = body.getReader();
    this.#sse = new SseDecoder(options.maxEventBytes, options.source);
    this.#watch = new ReadWatch(this.#reader);
  }

  next(): Promise<IteratorResult<StreamPart, undefined>> {
    if (this.#taken < this.#queue.length) return Promise.resolve({ done: false, value: this.#take() });
    if (this.#closed) return Promise.resolve(DONE);
    return this.#fill();
  }

  override takeReady(): StreamPart | undefined {
    return this.#taken < this.#queue.length ? this.#take() : undefined;
  }

  async return(): Promise<IteratorResult<StreamPart, undefined>> {
    this.#queue = [];
    this.#taken = 0;
    this.#last = true;
    this.#release();
    return DONE;
  }

  /** Ends the parts (the upstream released) and throws `error`. */
  async throw(error: unknown): Promise<IteratorResult<StreamPart, undefined>> {
    await this.return();
    throw error;
  }

  #take(): StreamPart {
    const part = this.#queue[this.#taken++]!;
    if (this.#taken === this.#queue.length) {
      this.#queue = [];
      this.#taken = 0;
    }
    return part;
  }

  /** Reads until a part is parsed, or the stream is over. */
  async #fill(): Promise<IteratorResult<StreamPart, undefined>> {
    try {
      while (this.#queue.length === 0) {
        if (this.#last) {
          this.#release();
          return DONE;
        }
        await this.#read();
      }
    } catch (error) {
      this.#last = true;
      this.#stopReading();
      // The connection was up and answering: a transport failure now is a cut stream, not an unreachable upstream.
      if (!this.options.signal.aborted) this.#queue.push({ type: "error", error: error instanceof GatewayError ? error : this.options.cut(error) });
      if (this.#queue.length === 0) {
        this.#release();
        return DONE;
      }
    }
    return { done: false, value: this.#take() };
  }

  async #read(): Promise<void> {
    const { idleMs, firstEventMs, source } = this.options;
    const wait = this.#first ? firstEventMs : idleMs;
    this.#watch.begin(wait);
    const { done, value } = await this.#reader.read();
    this.#watch.end();
    if (this.#watch.timedOut) {
      throw new GatewayError(
        "gateway_timeout",
        this.#first ? `${source} sent no data for ${wait} ms before its first event` : `${source}'s stream stalled for ${wait} ms`,
        { metadata: { provider_code: this.#first ? "first_byte_timeout" : "idle_timeout" } },
      );
    }
    if (!done) {
      const events = this.#sse.push(this.#decoder.decode(value, STREAMING));
      if (events.length > 0) this.#first = false;
      this.#parse(events);
      return;
    }
    const rest = this.#sse.push(this.#decoder.decode());
    rest.push(...this.#sse.finish());
    this.#parse(rest);
    if (!this.#last) {
      this.#add(this.parser.end());
      if (!this.#last) this.#queue.push({ type: "error", error: this.options.cut() });
    }
    this.#last = true;
  }

  /** Parses events in order, up to the one that finished or failed the stream. */
  #parse(events: SseEvent[]): void {
    for (const event of events) {
      this.#add(this.parser.parse(event));
      if (this.#last) return;
    }
  }

  #add(parts: StreamPart[]): void {
    for (const part of parts) {
      this.#queue.push(part);
      if (part.type === "finish" || part.type === "error") this.#last = true;
    }
  }

  #stopReading(): void {
    this.#watch.stop();
    this.#reader.cancel().catch(() => {});
  }

  #release(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopReading();
    this.options.release();
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
