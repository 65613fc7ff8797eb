import { StatusMap } from "elysia";
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
 * request authenticated, and the model and provider of an inference. Never headers, bodies or keys.
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
      });
    },
  };
}
