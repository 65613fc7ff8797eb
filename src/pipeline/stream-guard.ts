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
class Replayed implements AsyncGenerator<StreamPart, undefined> {
  #read: StreamPart[];
  #position = 0;
  #stopped = false;

  constructor(
    read: StreamPart[],
    private readonly parts: AsyncGenerator<StreamPart>,
  ) {
    this.#read = read;
  }

  next(): Promise<IteratorResult<StreamPart, undefined>> {
    if (this.#stopped) return Promise.resolve({ done: true, value: undefined });
    if (this.#position < this.#read.length) return Promise.resolve({ done: false, value: this.#read[this.#position++]! });
    return this.parts.next() as Promise<IteratorResult<StreamPart, undefined>>;
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

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
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

/**
 * Passes parts through, records the generation once the stream ends in any way, and reports the end.
 * An error part (the upstream's error event after output began) is redacted before anything sees it.
 */
export async function* recordedStream(
  parts: AsyncIterable<StreamPart>,
  options: {
    request: CanonicalRequest;
    signal: AbortSignal;
    started: number;
    attemptStart: number;
    cost: Charge;
    /** Records the generation, with the answer streamed so far (its content, when the workspace logs it). */
    record: (fields: Partial<GenerationRow>, answer: RecordedAnswer) => void;
    redact: (error: GatewayError) => GatewayError;
    onEnd: (end: StreamEnd) => void;
  },
): AsyncGenerator<StreamPart> {
  const accumulator = new ResponseAccumulator();
  let firstTokenAt: number | undefined;
  // Set before the part is handed on: a consumer that stops at the last part (an error) must not
  // make an upstream failure look like a client that left.
  let ended = false;
  try {
    for await (const upstreamPart of parts) {
      const part: StreamPart = upstreamPart.type === "error" ? { type: "error", error: options.redact(upstreamPart.error) } : upstreamPart;
      if (firstTokenAt === undefined && (part.type === "text-delta" || part.type === "reasoning-delta" || part.type === "tool-call-start" || part.type === "image")) {
        firstTokenAt = performance.now();
      }
      accumulator.add(part);
      if (part.type === "finish" || part.type === "error") ended = true;
      yield part;
    }
  } finally {
    const error = accumulator.error;
    const finished = ended && error === undefined;
    const cancelled = !ended || (options.signal.aborted && !finished);
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
