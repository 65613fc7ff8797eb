import { StatusMap } from "elysia";
import { type GatewayError, MASKED_INTERNAL_MESSAGE } from "../core/errors.ts";
import { describeError } from "../core/log.ts";
import type { Services } from "./services.ts";
import { existingState, type RequestNote, requestState } from "./request-state.ts";

export type { RequestNote } from "./request-state.ts";

export function noteRequest(request: Request, note: RequestNote): void {
  const state = requestState(request);
  if (state.note) Object.assign(state.note, note);
  else state.note = { ...note };
}

/** The status of a finished request: the returned Response's, else the one set on the context. */
export function responseStatus(status: number | string | undefined, response: unknown): number {
  if (response instanceof Response) return response.status;
  if (typeof status === "number") return status;
  if (typeof status === "string") return (StatusMap as Record<string, number>)[status] ?? 200;
  return 200;
}

/**
 * Request metrics and the access log: one JSON line per request at info level with the request id,
 * method, matched route pattern, status, duration, the first 12 characters of the key's hash when the
 * request authenticated, and the model, provider and generation id of an inference (whose record carries
 * the request id back). Never headers, bodies or keys.
 * A streamed response is logged when its headers go out.
 */
export function requestObserver(services: Pick<Services, "logger" | "metrics">) {
  return {
    start(request: Request): void {
      requestState(request).started = performance.now();
    },
    finish(input: { request: Request; route: string | undefined; status: number; requestId: string | undefined }): void {
      const { request } = input;
      const state = existingState(request);
      const begin = state?.started;
      if (begin === undefined) return;
      state!.started = undefined;
      const seconds = (performance.now() - begin) / 1000;
      const route = input.route || "unmatched";
      services.metrics.httpRequest(route, request.method, input.status, seconds);
      if (services.logger.enabled?.("info") === false) return;
      const principal = state!.principal;
      const note = state!.note;
      services.logger.info("request", {
        request_id: input.requestId,
        method: request.method,
        route,
        status: input.status,
        duration_ms: Math.round(seconds * 10_000) / 10,
        ...(principal ? { key_hash_prefix: principal.key.hash.slice(0, 12) } : {}),
        ...(note?.model ? { model: note.model } : {}),
        ...(note?.provider ? { provider: note.provider } : {}),
        ...(note?.generationId ? { generation_id: note.generationId } : {}),
      });
    },
  };
}

/**
 * What the "request failed" error line says about a 5xx answer, or undefined for none. An unexpected
 * failure (a bug, masked as an internal error to the client) is logged with its stack. An upstream
 * failure is expected: each failed attempt already has its warning line (pipeline/attempts.ts) and the
 * request its access line, so it adds nothing. Any other failure the gateway meant is its message.
 */
export function failureLogError(failure: GatewayError, thrown: unknown): Record<string, unknown> | undefined {
  if (failure.message === MASKED_INTERNAL_MESSAGE) return describeError(failure.cause ?? thrown);
  const metadata = failure.metadata;
  if (failure.availability !== undefined || metadata?.provider_code !== undefined || metadata?.upstream_status !== undefined) return undefined;
  return { name: failure.name, message: failure.message };
}
