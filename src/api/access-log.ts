import { StatusMap } from "elysia";
import type { Services } from "../services.ts";
import { principalOf } from "./auth.ts";

/** What a handler learned about its request that the access log reports (inference: model, provider). */
export interface RequestNote {
  model?: string;
  provider?: string;
}

const notes = new WeakMap<Request, RequestNote>();

export function noteRequest(request: Request, note: RequestNote): void {
  const noted = notes.get(request);
  if (noted) Object.assign(noted, note);
  else notes.set(request, { ...note });
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
  const started = new WeakMap<Request, number>();
  return {
    start(request: Request): void {
      started.set(request, performance.now());
    },
    finish(input: { request: Request; route: string | undefined; status: number; requestId: string | undefined }): void {
      const { request } = input;
      const begin = started.get(request);
      if (begin === undefined) return;
      started.delete(request);
      const seconds = (performance.now() - begin) / 1000;
      const route = input.route || "unmatched";
      services.metrics.httpRequest(route, request.method, input.status, seconds);
      if (services.logger.enabled?.("info") === false) return;
      const principal = principalOf(request);
      const note = notes.get(request);
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
