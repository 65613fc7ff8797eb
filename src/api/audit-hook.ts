import { clientAddress, trustedProxies } from "../core/trusted-proxies.ts";
import { nowIso } from "../core/ids.ts";
import type { AuditInput } from "../db/audit-log.ts";
import { type Actor, existingState } from "./request-state.ts";
import type { Services } from "./services.ts";

/**
 * Routes that change nothing the audit log is about, though not read with GET: inference (every
 * style, operation and preset), counting tokens, and the analytics query (a read with a JSON body).
 * Every other request but GET, HEAD and OPTIONS is a management action and is recorded, refused or not.
 */
export const UNAUDITED_ROUTES: ReadonlySet<string> = new Set([
  "/api/v1/chat/completions",
  "/api/v1/responses",
  "/api/v1/messages",
  "/api/v1/v1/messages",
  "/api/v1/messages/count_tokens",
  "/api/v1/v1/messages/count_tokens",
  "/api/v1/embeddings",
  "/api/v1/rerank",
  "/api/v1/audio/transcriptions",
  "/api/v1/audio/speech",
  "/api/v1/images",
  "/api/v1/images/generations",
  "/api/v1/videos",
  "/api/v1/presets/:slug/responses",
  "/api/v1/presets/:slug/chat/completions",
  "/api/v1/presets/:slug/messages",
  "/api/v1/analytics/query",
]);

/**
 * GET routes that are audited all the same: the OpenID Connect callback, where a sign-in succeeds or
 * is refused (the provider's redirect back is a GET).
 */
export const AUDITED_READS: ReadonlySet<string> = new Set(["/session/oidc/callback"]);

const READS = new Set(["GET", "HEAD", "OPTIONS"]);
/** A route parameter's value is kept to this many characters (the ids acted on are shorter). */
const MAX_TARGET = 256;

/**
 * Whether a request with this method to this path may be a management action (its route is matched
 * later). The unaudited routes have no parameters, so their paths are their routes: inference is never one.
 */
export function mayBeAudited(method: string, path: string): boolean {
  return READS.has(method) ? method === "GET" && AUDITED_READS.has(path) : !UNAUDITED_ROUTES.has(path);
}

/** Whether a request to `route` (a matched route template) with `method` is recorded. */
export function isAudited(method: string, route: string | undefined): route is string {
  if (route === undefined || route === "") return false;
  return method === "GET" ? AUDITED_READS.has(route) : !READS.has(method) && !UNAUDITED_ROUTES.has(route);
}

/** The action's name: the method and the route template, without the API's `/api/v1` prefix. */
export function actionOf(method: string, route: string): string {
  return `${method} ${route.startsWith("/api/v1/") ? route.slice("/api/v1".length) : route}`;
}

/** The values of the route's parameters in the template's order, joined by `/`; null for a route without any. */
export function targetOf(route: string, params: Record<string, string | undefined> | undefined): string | null {
  const names = [...route.matchAll(/:([A-Za-z0-9_]+)|\*/g)].map((match) => match[1] ?? "*");
  const values = names.map((name) => params?.[name]).filter((value): value is string => typeof value === "string");
  return values.length === 0 ? null : values.join("/").slice(0, MAX_TARGET);
}

/** Who acted: the actor a route named, else the signed-in member, else the key, else nobody known. */
function actorOf(request: Request): Actor {
  const state = existingState(request);
  if (state?.actor) return state.actor;
  const principal = state?.principal;
  if (principal?.member) return { kind: "member", id: principal.member.id };
  if (principal) return { kind: "key", id: principal.key.hash };
  return { kind: "anonymous", id: null };
}

/** What the app hands the recorder after each response. */
export interface Handled {
  request: Request;
  route: string | undefined;
  params: Record<string, string | undefined> | undefined;
  status: number;
}

/**
 * The audit hook: after a response, records a management action or a sign-in (never its body: only
 * the action, target and outcome). Appending happens behind the request (services.auditLog.record).
 */
export function auditRecorder(services: Pick<Services, "auditLog" | "config">) {
  const trusted = trustedProxies(services.config.server.trusted_proxies);
  return (handled: Handled): void => {
    const { request, route } = handled;
    if (!isAudited(request.method, route)) return;
    const state = existingState(request);
    const actor = actorOf(request);
    const entry: AuditInput = {
      at: nowIso(),
      actorKind: actor.kind,
      actorId: actor.id,
      workspaceId: state?.audit?.workspaceId !== undefined ? state.audit.workspaceId : (state?.principal?.workspace.id ?? null),
      action: actionOf(request.method, route),
      target: state?.audit?.target ?? targetOf(route, handled.params),
      outcome: handled.status,
      ip: clientAddress(state?.peer, request.headers.get("x-forwarded-for"), trusted) ?? null,
      requestId: state?.requestId ?? null,
    };
    services.auditLog.record(entry);
  };
}
