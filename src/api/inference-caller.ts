import { GatewayError } from "../core/errors.ts";
import type { Caller } from "../pipeline/pipeline.ts";
import type { Principal } from "./auth.ts";
import { existingState } from "./request-state.ts";

/**
 * Inference is for inference keys; management keys and signed-in sessions get 403. An intern's key is confined to its intern:
 * inference acts on the workspace (its presets, its generation records), so it answers 404 as every
 * workspace route does.
 */
export function requireInference(principal: Principal): void {
  if (principal.kind === "intern") throw new GatewayError("not_found", "Not found");
  if (principal.kind !== "inference" || principal.session) {
    throw new GatewayError("forbidden", "Only inference keys can call inference endpoints; create one with POST /api/v1/keys");
  }
}

/** Who asks, for routing and the generation record. */
export function callerOf(principal: Principal, request: Request, presetId: string | undefined): Caller {
  return {
    workspaceId: principal.workspace.id,
    keyHash: principal.key.hash,
    userId: principal.key.creatorUserId,
    // The id the access log and the x-request-id response header give the request (the client's own when valid).
    requestId: existingState(request)?.requestId ?? undefined,
    userAgent: request.headers.get("user-agent") ?? undefined,
    referer: request.headers.get("http-referer") ?? request.headers.get("referer") ?? undefined,
    presetId,
    allowedProviders: principal.workspace.allowedProviders ?? null,
    ignoredProviders: principal.workspace.ignoredProviders ?? null,
    dataRegion: principal.workspace.dataRegion ?? null,
    limit: principal.key.limit,
    limitReset: principal.key.limitReset,
    includeByokInLimit: principal.key.includeByokInLimit,
    guardrails: principal.guardrails ?? [],
    ...(principal.workspaceBudgets ? { workspaceBudgets: principal.workspaceBudgets } : {}),
  };
}

/** The sticky-session header a request carries: `x-session-id`, else Claude Code's `x-claude-code-session-id`. */
export function sessionHeaderName(headers: Headers): string {
  return headers.get("x-session-id") ? "x-session-id" : "x-claude-code-session-id";
}
