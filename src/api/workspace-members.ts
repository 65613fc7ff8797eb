import { t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import type { Membership } from "../db/members.ts";
import type { ApiKeyRow } from "../db/schema.ts";
import type { WorkspaceMemberRow, WorkspaceRole } from "../db/schema-people.ts";
import { isDeploymentAdmin, type Principal } from "./auth.ts";
import { parsePage } from "./http.ts";
import type { Services } from "./services.ts";
import { LIST_PAGE, listOf, workspaceRoutes } from "./workspace-routes.ts";

const UserIds = t.Object({ user_ids: t.Array(t.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems: 100, expected: "1 to 100 member ids" }) });
const WorkspaceMember = t.Object({
  id: t.String(),
  workspace_id: t.String(),
  user_id: t.String(),
  role: t.Union([t.Literal("admin"), t.Literal("member")]),
  created_at: t.String(),
});

/** A key that still works: enabled and not expired. */
function isActive(key: ApiKeyRow): boolean {
  return !key.disabled && (key.expiresAt === null || Date.parse(key.expiresAt) > Date.now());
}

/** The reference's shape of a membership; its id is the workspace's and the member's, joined. */
export function workspaceMemberJson(row: WorkspaceMemberRow) {
  return { id: `${row.workspaceId}:${row.memberId}`, workspace_id: row.workspaceId, user_id: row.memberId, role: row.role, created_at: row.createdAt };
}

/**
 * `/workspaces/{id}/members`: who belongs to a workspace. A management key manages its own workspace's
 * members (another workspace is not found); the deployment admin any workspace's. An added member gets
 * its organization role (owner or admin: workspace admin; else member). A member with active keys in
 * the workspace, or whose membership SCIM manages, cannot be removed (409 naming them).
 */
export function workspaceMembersApi(services: Services) {
  const find = async (principal: Principal, idOrSlug: string) => {
    const row = await services.workspaces.find(idOrSlug);
    if (!row || (row.id !== principal.workspace.id && !isDeploymentAdmin(principal))) throw new GatewayError("not_found", "Workspace not found");
    return row;
  };
  return workspaceRoutes(services, { name: "workspace-members-api", prefix: "/workspaces" })
    .get(
      "/:id/members",
      async ({ params, query, principal }) => {
        const workspace = await find(principal, params.id);
        const { rows, total } = await services.members.listWorkspace(workspace.id, parsePage(query, LIST_PAGE));
        return { data: rows.map(workspaceMemberJson), total_count: total };
      },
      { response: { 200: listOf(WorkspaceMember) }, detail: { summary: "The workspace's members" } },
    )
    .post(
      "/:id/members/add",
      async ({ params, body, principal }) => {
        const workspace = await find(principal, params.id);
        const ids = [...new Set(body.user_ids)];
        const members = await Promise.all(ids.map((id) => services.members.get(id)));
        const missing = ids.find((_, index) => !members[index]);
        if (missing !== undefined) throw new GatewayError("not_found", `user_ids: no member ${missing}`);
        const inactive = members.find((member) => !member!.active);
        if (inactive) throw new GatewayError("bad_request", `user_ids: member ${inactive.id} is deactivated`);
        const data: WorkspaceMemberRow[] = [];
        let added = 0;
        for (const member of members) {
          if (await services.members.roleIn(workspace.id, member!.id)) continue;
          const role: WorkspaceRole = member!.role === "member" ? "member" : "admin";
          data.push(await services.members.addToWorkspace(workspace.id, member!.id, role));
          added++;
        }
        return { added_count: added, data: data.map(workspaceMemberJson) };
      },
      { body: UserIds, response: { 200: t.Object({ added_count: t.Integer(), data: t.Array(WorkspaceMember) }) }, detail: { summary: "Adds members with their organization role" } },
    )
    .post(
      "/:id/members/remove",
      async ({ params, body, principal }) => {
        const workspace = await find(principal, params.id);
        const ids = [...new Set(body.user_ids)];
        const memberships = new Map<string, Membership>();
        for (const id of ids) {
          const membership = (await services.members.membershipsOf(id)).find((entry) => entry.workspaceId === workspace.id);
          if (membership) memberships.set(id, membership);
        }
        const scim = ids.filter((id) => memberships.get(id)?.source === "scim");
        if (scim.length > 0) throw new GatewayError("conflict", `user_ids: the membership of ${scim.join(", ")} is managed by SCIM: change it in the identity provider`);
        const holding: string[] = [];
        for (const id of ids) {
          if (!memberships.has(id)) continue;
          if ((await services.keys.createdBy(id, workspace.id)).some(isActive)) holding.push(id);
        }
        if (holding.length > 0) throw new GatewayError("conflict", `user_ids: ${holding.join(", ")} still hold active keys in this workspace: disable or delete them first`);
        return { removed_count: await services.members.removeFromWorkspace(workspace.id, ids) };
      },
      { body: UserIds, response: { 200: t.Object({ removed_count: t.Integer() }) }, detail: { summary: "Removes members (not while they hold active keys here, nor SCIM-managed memberships)" } },
    );
}
