import { GatewayError } from "../core/errors.ts";
import type { ApiKeyRow, InternRow, WorkspaceBudgetRow, WorkspaceRow } from "../db/schema.ts";
import type { GuardrailPolicy } from "../core/guardrails.ts";
import { hashApiKey, hashesEqual, KEY_PATTERN, type KeyKind } from "../core/api-key.ts";
import type { Services } from "./services.ts";
import { requestState } from "./request-state.ts";
import { hasBearerKey, sessionPrincipal } from "./session-auth.ts";
import { readCookie, SESSION_COOKIE } from "./session-cookie.ts";

/** Who is calling: the key, its kind, its active workspace and, for an intern's key, its intern. */
export type { Principal } from "./request-state.ts";
import type { Principal } from "./request-state.ts";

export const MANAGEMENT_ONLY = "Only management keys can perform this operation";
export const DEPLOYMENT_ADMIN_ONLY = "Only a deployment admin key can perform this operation";
const NOT_FOUND = "Not found";
/** One wording for an unknown, disabled or expired key: the answer must not tell which keys exist. */
export const INVALID_KEY = "Invalid API key";

/** The bearer token of a request: `Authorization: Bearer …`, or `x-api-key` as Anthropic 0.x clients send. */
export function readToken(headers: Headers): string {
  const authorization = headers.get("authorization");
  if (authorization !== null && authorization.trim() !== "") {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim());
    if (!match) throw new GatewayError("unauthorized", "Malformed Authorization header: expected 'Bearer <API key>'");
    return match[1]!;
  }
  const apiKey = headers.get("x-api-key");
  if (apiKey !== null && apiKey.trim() !== "") return apiKey.trim();
  throw new GatewayError("unauthorized", "Missing API key: send 'Authorization: Bearer <API key>'");
}

/**
 * Authenticates once per request; 401 for a missing, malformed, unknown, disabled or expired key. A
 * request without a key but with a session cookie authenticates by its session (session-auth.ts). The
 * workspace's upstream credentials are made ready for the pipeline (read only after a vault change).
 * When everything the principal is made of is held in memory (the common case: a key that called
 * before, nothing changed since), the principal is made synchronously, with no read and no await;
 * otherwise a promise of it. Either way a refused key throws (or rejects) the same 401.
 */
export function authenticate(services: Services, request: Request): Principal | Promise<Principal> {
  const state = requestState(request);
  if (state.principal) return state.principal;
  const session = hasBearerKey(request.headers) ? undefined : readCookie(request.headers, SESSION_COOKIE);
  if (session !== undefined) return sessionPrincipal(services, request, session).then((principal) => (state.principal = principal));
  const token = readToken(request.headers);
  if (!KEY_PATTERN.test(token)) throw new GatewayError("unauthorized", "Malformed API key");
  const hash = hashApiKey(token);
  const held = heldPrincipal(services, hash);
  if (held) return (state.principal = held);
  return readPrincipal(services, hash).then((principal) => (state.principal = principal));
}

/** 401 unless the key is usable: found by this very hash, not disabled, not expired. */
function checkKey(key: ApiKeyRow | undefined, hash: string): ApiKeyRow {
  if (!key || !hashesEqual(key.hash, hash) || key.disabled || (key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now())) {
    throw new GatewayError("unauthorized", INVALID_KEY);
  }
  return key;
}

function principalOf(key: ApiKeyRow, workspace: WorkspaceRow): Principal {
  return { key, kind: key.kind, workspace, internId: key.internId };
}

/** What an inference key's principal adds: its guardrails and its workspace's interval budgets. */
function withInferenceLimits(principal: Principal, guardrails: GuardrailPolicy[], budgets: WorkspaceBudgetRow[]): Principal {
  principal.guardrails = guardrails;
  principal.workspaceBudgets = { limits: budgets.map((row) => ({ interval: row.resetInterval, limitUsd: row.limitUsd })), includeByok: principal.workspace.includeByokInBudgets };
  return principal;
}

/**
 * The principal made from what the stores hold in memory, or undefined when any part of it is not held
 * (then readPrincipal reads it). A key that is held but refused is refused here as it would be there.
 */
function heldPrincipal(services: Services, hash: string): Principal | undefined {
  const found = services.keys.cachedByHash(hash);
  if (!found) return undefined;
  const key = checkKey(found, hash);
  const workspace = services.workspaces.cached(key.workspaceId);
  if (!workspace || !services.credentials.isPrepared(workspace.id)) return undefined;
  if (key.kind !== "inference") return principalOf(key, workspace);
  const guardrails = services.guardrails.cachedPoliciesFor(workspace.id, key.hash, key.creatorUserId);
  const budgets = services.workspaceBudgets.cachedList(workspace.id);
  if (!guardrails || !budgets) return undefined;
  return withInferenceLimits(principalOf(key, workspace), guardrails, budgets);
}

async function readPrincipal(services: Services, hash: string): Promise<Principal> {
  const key = checkKey(await services.keys.findByHash(hash), hash);
  const workspace = await services.workspaces.get(key.workspaceId);
  if (!workspace) throw new GatewayError("unauthorized", INVALID_KEY);
  await services.credentials.prepare(workspace.id);
  const principal = principalOf(key, workspace);
  if (key.kind !== "inference") return principal;
  const guardrails = await services.guardrails.policiesFor(workspace.id, key.hash, key.creatorUserId);
  return withInferenceLimits(principal, guardrails, await services.workspaceBudgets.list(workspace.id));
}

/**
 * A workspace route: an intern's key is confined to its intern and gets 404; any other kind outside
 * `kinds` gets 403.
 */
export function requireWorkspaceRoute(principal: Principal, kinds: KeyKind[] = ["management"]): void {
  if (principal.kind === "intern") throw new GatewayError("not_found", NOT_FOUND);
  if (!kinds.includes(principal.kind)) {
    throw new GatewayError("forbidden", kinds.length === 1 && kinds[0] === "management" ? MANAGEMENT_ONLY : "This key kind cannot perform this operation");
  }
}

/** A management key that administers the whole deployment (the bootstrap key, or one it minted). */
export function isDeploymentAdmin(principal: Principal): boolean {
  return principal.kind === "management" && principal.key.deploymentAdmin;
}

/** Deployment-wide administration (creating workspaces, minting deployment admins): 403 for any other key. */
export function requireDeploymentAdmin(principal: Principal): void {
  requireWorkspaceRoute(principal);
  if (!isDeploymentAdmin(principal)) throw new GatewayError("forbidden", DEPLOYMENT_ADMIN_ONLY);
}

/** Every /interns and /vault route answers 404 unless the workspace is in the Intern API programme. */
export function requireInternProgramme(principal: Principal): void {
  if (!principal.workspace.internApiAccess) throw new GatewayError("not_found", NOT_FOUND);
}

/**
 * Resolves an intern route's intern. `ownKeyAllowed` marks the routes an intern's own key may use
 * (reading its secrets and effective secrets); on every other intern route its key gets 404. Only a
 * management key sees the workspace's interns: for any other key every intern is one it cannot see,
 * which the spec answers with 404 (not 403).
 */
export async function resolveIntern(
  services: Services,
  principal: Principal,
  internId: string,
  options: { ownKeyAllowed: boolean },
): Promise<InternRow> {
  requireInternProgramme(principal);
  const visible = principal.kind === "management" || (principal.kind === "intern" && options.ownKeyAllowed && principal.internId === internId);
  if (!visible) throw new GatewayError("not_found", NOT_FOUND);
  const intern = await services.interns.get(principal.workspace.id, internId);
  if (!intern) throw new GatewayError("not_found", "Intern not found");
  return intern;
}

/**
 * A generation a plain member's session (self-service: not an admin of its workspace) may read: only
 * one made with a key the member created; another key's is not found for it. Any other caller reads
 * every generation of its workspace.
 */
export async function requireOwnGeneration(services: Services, principal: Principal, id: string): Promise<void> {
  if (!principal.member || principal.kind !== "inference") return;
  await services.generations.flush();
  const generation = await services.generations.get(principal.workspace.id, id);
  const key = generation && (await services.keys.findByHash(generation.keyHash));
  if (key?.creatorUserId !== principal.member.id) {
    services.logger.info("generation refused", { reason: "not made with a key of the signed-in member", member_id: principal.member.id });
    throw new GatewayError("not_found", `Generation '${id}' not found`);
  }
}
