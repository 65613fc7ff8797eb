import { GatewayError } from "../core/errors.ts";
import type { Membership } from "../db/members.ts";
import type { ApiKeyRow, WorkspaceRow } from "../db/schema.ts";
import type { MemberRow, MemberSessionRow } from "../db/schema-people.ts";
import type { LiveSession } from "../db/sessions.ts";
import type { Principal } from "./request-state.ts";
import type { Services } from "./services.ts";
import { requireCsrf } from "./session-cookie.ts";

/** The header a signed-in member names the workspace it acts in with (id or slug). */
export const WORKSPACE_HEADER = "x-roundhouse-workspace";

const SESSION_ENDED = "Session expired or signed out: sign in again";

/** Whether a request carries a bearer key (which then wins over any session cookie). */
export function hasBearerKey(headers: Headers): boolean {
  return (headers.get("authorization") ?? "").trim() !== "" || (headers.get("x-api-key") ?? "").trim() !== "";
}

/**
 * The key a member's session acts as: not stored, never matching a real key's hash (`member:` and the
 * member id), management for admins, inference-kind (so management routes refuse it) for members.
 */
function memberKey(member: MemberRow, workspace: WorkspaceRow, management: boolean, organizationAdmin: boolean): ApiKeyRow {
  return {
    hash: `member:${member.id}`,
    kind: management ? "management" : "inference",
    deploymentAdmin: organizationAdmin,
    name: member.email,
    label: member.email,
    workspaceId: workspace.id,
    internId: null,
    disabled: false,
    limit: null,
    limitReset: null,
    includeByokInLimit: false,
    requestsPerMinute: null,
    tokensPerMinute: null,
    expiresAt: null,
    creatorUserId: member.id,
    externalUser: null,
    createdAt: member.createdAt,
    updatedAt: null,
  };
}

/** The workspace a member acts in: the one its header names (one of its own), else its first (an admin one first). */
async function selectedWorkspace(services: Services, request: Request, organizationAdmin: boolean, memberships: Membership[]): Promise<WorkspaceRow> {
  const named = request.headers.get(WORKSPACE_HEADER)?.trim();
  if (named) {
    const workspace = await services.workspaces.find(named);
    if (!workspace || (!organizationAdmin && !memberships.some((membership) => membership.workspaceId === workspace.id))) {
      throw new GatewayError("not_found", `${WORKSPACE_HEADER}: no workspace of yours has this id or slug`);
    }
    return workspace;
  }
  const first = memberships.find((membership) => membership.role === "admin") ?? memberships[0];
  const workspace = first ? await services.workspaces.get(first.workspaceId) : organizationAdmin ? (await services.workspaces.list(0, 1)).rows[0] : undefined;
  if (!workspace) throw new GatewayError("forbidden", "This member belongs to no workspace");
  return workspace;
}

/**
 * A management-key session acts as its key, while the key is still usable, in its key's workspace: a
 * request naming another one (the workspace header) is not found rather than served from the key's.
 */
async function keySessionPrincipal(services: Services, request: Request, row: MemberSessionRow): Promise<Principal> {
  const key = row.keyHash === null ? undefined : await services.keys.findByHash(row.keyHash);
  if (!key || key.disabled || key.kind !== "management" || (key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now())) {
    throw new GatewayError("unauthorized", SESSION_ENDED);
  }
  const workspace = await services.workspaces.get(key.workspaceId);
  if (!workspace) throw new GatewayError("unauthorized", SESSION_ENDED);
  const named = request.headers.get(WORKSPACE_HEADER)?.trim();
  if (named && named !== workspace.id && named !== workspace.slug) throw new GatewayError("not_found", `${WORKSPACE_HEADER}: a management key's session acts in its key's workspace only`);
  return { key, kind: key.kind, workspace, internId: null, session: row };
}

/**
 * A member's principal: an organization owner or admin administers every workspace (acting in the
 * selected one); a workspace admin manages the selected workspace; a member in it gets a principal
 * management routes refuse with 403.
 */
async function memberPrincipal(services: Services, request: Request, member: MemberRow, row: MemberSessionRow): Promise<Principal> {
  const organizationAdmin = member.role === "owner" || member.role === "admin";
  const memberships = await services.members.membershipsOf(member.id);
  const workspace = await selectedWorkspace(services, request, organizationAdmin, memberships);
  const role = memberships.find((membership) => membership.workspaceId === workspace.id)?.role;
  const management = organizationAdmin || role === "admin";
  const key = memberKey(member, workspace, management, organizationAdmin);
  return { key, kind: key.kind, workspace, internId: null, member, session: row };
}

/**
 * Authenticates a request by its session cookie: 401 when the session is unknown, expired, signed out
 * or its member deactivated; 403 for a state-changing request without the session's CSRF token.
 */
export async function sessionPrincipal(services: Services, request: Request, token: string): Promise<Principal> {
  const live: LiveSession | undefined = await services.sessions.find(token);
  if (!live) {
    services.logger.info("session refused", { reason: "unknown, expired, signed out or deactivated", method: request.method });
    throw new GatewayError("unauthorized", SESSION_ENDED);
  }
  try {
    requireCsrf(request, token);
  } catch (error) {
    services.logger.warn("session request refused", { reason: "missing or invalid CSRF token", method: request.method });
    throw error;
  }
  const principal = live.member ? await memberPrincipal(services, request, live.member, live.row) : await keySessionPrincipal(services, request, live.row);
  await services.credentials.prepare(principal.workspace.id);
  return principal;
}
