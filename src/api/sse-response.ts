import type { StreamPart } from "../core/canonical.ts";
import { GatewayError, toGatewayError } from "../core/errors.ts";
import { SSE_KEEPALIVE, type StreamEncoder } from "./codecs/codec.ts";
import { takeReady } from "../core/part-iterator.ts";

export interface SseSource {
  /** Resolves with the encoder and the parts once an upstream answered; rejects if none did. */
  ready: Promise<{ encoder: StreamEncoder; parts: AsyncGenerator<StreamPart>; echo?: Array<Record<string, unknown>> }>;
  /** Encodes a failure that happens before `ready` resolved (the response had already started). */
  failEarly(error: GatewayError): string[];
  keepaliveMs: number;
  /** Aborts the upstream: the client went away. */
  abort(): void;
  onError(error: unknown): void;
  /** Counts the stream as in flight until it ends; a graceful shutdown may abort it through this. */
  tracker?: { trackStream(abort: () => void): () => void } | undefined;
}

const HEADERS: Record<string, string> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};
/** Where a direct stream's frames go: the response, or nowhere once the client left. */
type Writer = Pick<ReadableStreamDirectController, "write" | "flush" | "close">;
const DISCARD: Writer = { write: () => 0, flush: () => 0, close: () => {} };

/** The same, built once: a Response copies headers it is given (cheaper from Headers than from an object). */
const SHARED_HEADERS = new Headers(HEADERS);

/**
 * An SSE response. Writes a keep-alive comment whenever the upstream has been silent for `keepaliveMs`
 * (from the start, while the upstream has not answered yet). A failure after the response started is
 * sent in the style's error frames; the stream is never closed cleanly when the answer is incomplete.
 * When the client disconnects, the upstream is aborted. While it runs, the stream is tracked (active
 * streams gauge, graceful shutdown), which may also abort it: the client then gets the error frames.
 */
export function sseResponse(source: SseSource, headers?: Record<string, string>): Response {
  let closed = false;
  let started = false;
  let lastWrite = Date.now();
  let keepalive: ReturnType<typeof setTimeout> | undefined;

  const run = async (controller: Writer) => {
    started = true;
    let shutdown = false;
    const untrack = source.tracker?.trackStream(() => {
      shutdown = true;
      source.abort();
    });
    const shutdownError = () => new GatewayError("unavailable", "The gateway is shutting down; the stream was stopped before it finished");
    // Frames are gathered while parts are at hand and written together before the stream waits.
    let pending = "";
    const add = (frames: string[]) => {
      for (const frame of frames) pending += frame;
    };
    // Sends what is gathered. A client slower than the upstream does not hold the upstream back: what it
    // has not taken yet waits in the response's buffer.
    const flush = () => {
      if (pending === "") return;
      if (!closed) {
        controller.write(pending);
        const sent: unknown = controller.flush();
        if (sent instanceof Promise) sent.catch(() => {});
        lastWrite = Date.now();
      }
      pending = "";
    };
    const write = (frames: string[]) => {
      add(frames);
      flush();
    };
    // One timer per stream, not reset by writes: when it fires it writes a keep-alive if the stream
    // has been silent long enough, and is armed again for when the silence would be long enough
    // (checks at least 50 ms apart).
    const check = () => {
      if (closed) return;
      if (Date.now() - lastWrite >= source.keepaliveMs) write([SSE_KEEPALIVE]);
      keepalive = setTimeout(check, Math.max(50, source.keepaliveMs - (Date.now() - lastWrite)));
    };
    keepalive = setTimeout(check, Math.max(50, source.keepaliveMs));
    write([SSE_KEEPALIVE]);
    let styleEncoder: StreamEncoder | undefined;
    try {
      const { encoder: ready, parts, echo } = await source.ready;
      styleEncoder = ready;
      // The spec: with `debug.echo_upstream_body` the first chunk is the debug chunk (one per attempt).
      for (const body of echo ?? []) write(styleEncoder.debug?.(body) ?? []);
      add(styleEncoder.start());
      let finished = false;
      let failed = false;
      // As a for-await over the parts, which also takes the parts already at hand without waiting: a
      // read that brought several parts is written in one go. Stopping early closes the parts.
      let open = true;
      try {
        for (;;) {
          let part = takeReady(parts);
          if (part === undefined) {
            // After the finish only the stream's end is left: `[DONE]` goes out with the last frames.
            if (!finished) flush();
            let next: IteratorResult<StreamPart>;
            try {
              next = await parts.next();
            } catch (error) {
              open = false;
              throw error;
            }
            if (next.done) {
              open = false;
              break;
            }
            part = next.value;
          }
          if (closed) break;
          if (part.type === "error") {
            add(styleEncoder.error(part.error));
            failed = true;
            break;
          }
          add(styleEncoder.part(part));
          if (part.type === "finish") finished = true;
        }
      } catch (error) {
        if (open) await parts.return(undefined).catch(() => {});
        throw error;
      }
      if (open) {
        flush();
        await parts.return(undefined);
      }
      if (finished) add(styleEncoder.end());
      else if (!failed) add(styleEncoder.error(shutdown ? shutdownError() : new GatewayError("bad_gateway", "The upstream stream ended before it finished")));
      flush();
    } catch (error) {
      const failure = shutdown ? shutdownError() : toGatewayError(error);
      if (failure.status >= 500) source.onError(error);
      write(styleEncoder ? styleEncoder.error(failure) : source.failEarly(failure));
    } finally {
      clearTimeout(keepalive);
      if (!closed) {
        closed = true;
        controller.close();
      }
      untrack?.();
    }
  };

  // A direct stream: the frames are written to the response as they are made, without a queue of
  // chunks between them. It runs once the response starts being sent.
  const body = new ReadableStream({
    type: "direct",
    pull: run,
    cancel() {
      closed = true;
      clearTimeout(keepalive);
      source.abort();
      // The client left before the response was sent (during the warm-up): the stream still runs, with
      // nothing to write to, so that its parts end, and are recorded, as cancelled.
      if (!started) void run(DISCARD);
    },
  } as Bun.DirectUnderlyingSource);
  return new Response(body, { status: 200, headers: headers ? { ...HEADERS, ...headers } : SHARED_HEADERS });
}
