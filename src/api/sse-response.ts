import type { StreamPart } from "../core/canonical.ts";
import { GatewayError, toGatewayError } from "../core/errors.ts";
import { SSE_KEEPALIVE, type StreamEncoder } from "./codecs/codec.ts";

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

const encoder = new TextEncoder();

const HEADERS: Record<string, string> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};
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
  let lastWrite = Date.now();
  let keepalive: ReturnType<typeof setTimeout> | undefined;

  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      let shutdown = false;
      const untrack = source.tracker?.trackStream(() => {
        shutdown = true;
        source.abort();
      });
      const shutdownError = () => new GatewayError("unavailable", "The gateway is shutting down; the stream was stopped before it finished");
      const write = (frames: string[]) => {
        if (closed || frames.length === 0) return;
        controller.enqueue(encoder.encode(frames.join("")));
        lastWrite = Date.now();
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
        write(styleEncoder.start());
        let finished = false;
        let failed = false;
        for await (const part of parts) {
          if (closed) break;
          if (part.type === "error") {
            write(styleEncoder.error(part.error));
            failed = true;
            break;
          }
          write(styleEncoder.part(part));
          if (part.type === "finish") finished = true;
        }
        if (finished) write(styleEncoder.end());
        else if (!failed) {
          write(styleEncoder.error(shutdown ? shutdownError() : new GatewayError("bad_gateway", "The upstream stream ended before it finished")));
        }
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
    },
    cancel() {
      closed = true;
      clearTimeout(keepalive);
      source.abort();
    },
  });
  return new Response(body, { status: 200, headers: headers ? { ...HEADERS, ...headers } : SHARED_HEADERS });
}
