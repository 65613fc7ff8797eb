import type { GenerationRow } from "../core/generation.ts";
import type { ChatReader, ErrorReader, UpstreamRequest } from "../providers/adapter.ts";
import { openStream, type UpstreamFetch } from "../transport/engine.ts";
import type { Endpoint } from "../core/catalog-types.ts";
import { ResponseAccumulator } from "../core/accumulate.ts";
import type { CanonicalRequest, StreamPart, Usage } from "../core/canonical.ts";
import { GatewayError } from "../core/errors.ts";
import { usageFields, usageSoFar } from "./generation-record.ts";
import type { Charge } from "../core/cost.ts";
import type { RecordedAnswer } from "../core/generation-content.ts";
import { PartIterator, takeReady } from "../core/part-iterator.ts";

/**
 * Opens a stream and waits for its first output (a delta, or a finish), so that a failure before
 * anything reaches the client is an ordinary error (and may fail over): an upstream that says
 * `message_start` and then fails has produced nothing yet. The parts read so far are then replayed
 * ahead of the rest.
 */
export async function openUntilOutput(
  upstream: UpstreamRequest,
  endpoint: Endpoint,
  chat: ChatReader,
  errors: ErrorReader,
  options: { fetch: UpstreamFetch; signal: AbortSignal },
): Promise<AsyncGenerator<StreamPart>> {
  const parts = await openStream(upstream, endpoint, chat, errors, options);
  const read: StreamPart[] = [];
  for (;;) {
    const next = await parts.next();
    if (next.done) {
      throw new GatewayError("bad_gateway", `${endpoint.provider.name} closed the stream before it started`, {
        metadata: { provider: endpoint.provider.slug, provider_code: "stream_cut" },
      });
    }
    if (next.value.type === "error") {
      await parts.return(undefined);
      throw next.value.error;
    }
    read.push(next.value);
    if (next.value.type !== "start" && next.value.type !== "usage") break;
  }
  return new Replayed(read, parts);
}

/**
 * The parts read while waiting for the first output, then the rest of the stream. Not a generator of
 * its own: past the replayed parts each `next` is the stream's, so a part costs no extra promise turns.
 * A consumer that stops early (even within the replayed parts, or before it read any) releases the
 * upstream.
 */
class Replayed extends PartIterator {
  #read: StreamPart[];
  #position = 0;
  #stopped = false;

  constructor(
    read: StreamPart[],
    private readonly parts: AsyncGenerator<StreamPart>,
  ) {
    super();
    this.#read = read;
  }

  next(): Promise<IteratorResult<StreamPart, undefined>> {
    if (this.#stopped) return Promise.resolve({ done: true, value: undefined });
    if (this.#position < this.#read.length) return Promise.resolve({ done: false, value: this.#read[this.#position++]! });
    return this.parts.next() as Promise<IteratorResult<StreamPart, undefined>>;
  }

  override takeReady(): StreamPart | undefined {
    if (this.#stopped) return undefined;
    if (this.#position < this.#read.length) return this.#read[this.#position++]!;
    return takeReady(this.parts);
  }

  async return(): Promise<IteratorResult<StreamPart, undefined>> {
    this.#stop();
    await this.parts.return(undefined);
    return { done: true, value: undefined };
  }

  async throw(error: unknown): Promise<IteratorResult<StreamPart, undefined>> {
    if (!this.#stopped && this.#position >= this.#read.length) return this.parts.throw(error) as Promise<IteratorResult<StreamPart, undefined>>;
    this.#stop();
    await this.parts.return(undefined);
    throw error;
  }

  #stop(): void {
    this.#stopped = true;
    this.#read = [];
  }
}

export interface StreamEnd {
  /** The stream finished: the upstream's final usage (when it reported one) and the timings. */
  finished: boolean;
  /** The upstream failed after output began. */
  failed: GatewayError | undefined;
  usage: Usage | undefined;
  firstTokenMs: number | undefined;
  durationMs: number;
}

/** What recordedStream needs to record a stream and report its end. */
export interface RecordOptions {
  request: CanonicalRequest;
  signal: AbortSignal;
  started: number;
  attemptStart: number;
  cost: Charge;
  /** Records the generation, with the answer streamed so far (its content, when the workspace logs it). */
  record: (fields: Partial<GenerationRow>, answer: RecordedAnswer) => void;
  redact: (error: GatewayError) => GatewayError;
  onEnd: (end: StreamEnd) => void;
}

/**
 * Passes parts through, records the generation once the stream ends in any way, and reports the end.
 * An error part (the upstream's error event after output began) is redacted before anything sees it.
 */
export function recordedStream(parts: AsyncIterable<StreamPart>, options: RecordOptions): AsyncGenerator<StreamPart, undefined> {
  return new Recorded(parts, options);
}

/**
 * recordedStream's parts. Not a generator of its own: each part is handled as the stream's `next`
 * settles, which costs one promise turn rather than a generator layer's. It ends as an async generator
 * looping over the parts would: recorded when the parts end or fail, or when the consumer stops after
 * its first `next` (the parts are closed first); a consumer that stops before reading records nothing.
 */
class Recorded extends PartIterator {
  readonly #accumulator = new ResponseAccumulator();
  #iterator: AsyncIterator<StreamPart> | undefined;
  #firstTokenAt: number | undefined;
  // Set before the part is handed on: a consumer that stops at the last part (an error) must not
  // make an upstream failure look like a client that left.
  #ended = false;
  #closed = false;
  /** A part takeReady took from the stream and could not handle: `next` handles (and fails on) it. */
  #untaken: StreamPart | undefined;

  constructor(
    private readonly parts: AsyncIterable<StreamPart>,
    private readonly options: RecordOptions,
  ) {
    super();
  }

  next(): Promise<IteratorResult<StreamPart, undefined>> {
    if (this.#closed) return Promise.resolve({ done: true, value: undefined });
    let next: Promise<IteratorResult<StreamPart>>;
    const untaken = this.#untaken;
    if (untaken !== undefined) {
      this.#untaken = undefined;
      next = Promise.resolve({ done: false, value: untaken });
    } else {
      try {
        this.#iterator ??= this.parts[Symbol.asyncIterator]();
        next = Promise.resolve(this.#iterator.next());
      } catch (error) {
        next = Promise.reject(error);
      }
    }
    return next.then(this.#step, this.#failed);
  }

  /** A part at hand in the stream, handled as `next` would; a part that fails to be taken is left for `next`. */
  override takeReady(): StreamPart | undefined {
    if (this.#closed || this.#untaken !== undefined) return undefined;
    this.#iterator ??= this.parts[Symbol.asyncIterator]();
    const part = takeReady(this.#iterator);
    if (part === undefined) return undefined;
    try {
      return this.#take(part);
    } catch {
      this.#untaken = part;
      return undefined;
    }
  }

  #step = (result: IteratorResult<StreamPart>): IteratorResult<StreamPart, undefined> | Promise<never> => {
    if (result.done) {
      this.#finish();
      return { done: true, value: undefined };
    }
    let part: StreamPart;
    try {
      part = this.#take(result.value);
    } catch (error) {
      return this.#abandon(error);
    }
    return { done: false, value: part };
  };

  /** As a loop's body failing: the parts are closed (whatever that says), then the stream is recorded. */
  async #abandon(error: unknown): Promise<never> {
    try {
      await this.#iterator!.return?.();
    } catch {}
    this.#finish();
    throw error;
  }

  #failed = (error: unknown): never => {
    this.#finish();
    throw error;
  };

  #take(upstreamPart: StreamPart): StreamPart {
    const part: StreamPart = upstreamPart.type === "error" ? { type: "error", error: this.options.redact(upstreamPart.error) } : upstreamPart;
    if (this.#firstTokenAt === undefined && (part.type === "text-delta" || part.type === "reasoning-delta" || part.type === "tool-call-start" || part.type === "image")) {
      this.#firstTokenAt = performance.now();
    }
    this.#accumulator.add(part);
    if (part.type === "finish" || part.type === "error") this.#ended = true;
    return part;
  }

  async return(): Promise<IteratorResult<StreamPart, undefined>> {
    if (this.#closed) return { done: true, value: undefined };
    if (this.#iterator === undefined) {
      this.#closed = true;
      return { done: true, value: undefined };
    }
    try {
      await this.#iterator.return?.();
    } finally {
      this.#finish();
    }
    return { done: true, value: undefined };
  }

  async throw(error: unknown): Promise<IteratorResult<StreamPart, undefined>> {
    if (!this.#closed && this.#iterator !== undefined) return this.#abandon(error);
    this.#closed = true;
    throw error;
  }

  /** Records the generation and reports the end, once. */
  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    const { options } = this;
    const accumulator = this.#accumulator;
    const firstTokenAt = this.#firstTokenAt;
    const error = accumulator.error;
    const finished = this.#ended && error === undefined;
    const cancelled = !this.#ended || (options.signal.aborted && !finished);
    const usage = finished && accumulator.usage ? accumulator.usage : usageSoFar(accumulator, options.request);
    options.record({
      status: error ? error.status : cancelled ? 499 : 200,
      cancelled,
      errorCode: error ? error.errorType : cancelled ? "client_closed" : null,
      upstreamId: accumulator.upstreamId ?? null,
      finishReason: accumulator.finishReason ?? null,
      nativeFinishReason: accumulator.nativeFinishReason ?? null,
      ...usageFields(usage, options.cost),
      latencyMs: firstTokenAt === undefined ? null : Math.round(firstTokenAt - options.started),
      generationTimeMs: Math.round(performance.now() - options.attemptStart),
    }, { output: accumulator.output, error });
    options.onEnd({
      finished,
      failed: error,
      usage,
      firstTokenMs: firstTokenAt === undefined ? undefined : firstTokenAt - options.attemptStart,
      durationMs: performance.now() - options.attemptStart,
    });
  }
}
