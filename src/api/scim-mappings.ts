import { t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import type { ScimGroupMappingRow, ScimGroupRow, ScimTokenRow } from "../db/schema-people.ts";
import { type Principal, requireDeploymentAdmin } from "./auth.ts";
import { parsePage } from "./http.ts";
import type { Services } from "./services.ts";
import { LIST_PAGE, listOf, workspaceRoutes } from "./workspace-routes.ts";

/** The organization id in the reference's shapes: a deployment is one organization. */
const ORGANIZATION_ID = "roundhouse";
const Role = t.Union([t.Literal("admin"), t.Literal("member")], { expected: '"admin" or "member"' });

const ScimGroup = t.Object({ id: t.String(), organization_id: t.String(), display_name: t.String(), external_id: t.Union([t.String(), t.Null()]), created_at: t.String(), updated_at: t.String() });
const ScimGroupMapping = t.Object({ id: t.String(), organization_id: t.String(), scim_group_id: t.String(), workspace_id: t.String(), role: Role, created_at: t.String(), updated_at: t.String() });
const ScimToken = t.Object({ id: t.String(), name: t.String(), created_at: t.String(), last_used_at: t.Union([t.String(), t.Null()]), revoked_at: t.Union([t.String(), t.Null()]) });

function groupJson(row: ScimGroupRow) {
  return { id: row.id, organization_id: ORGANIZATION_ID, display_name: row.displayName, external_id: row.externalId, created_at: row.createdAt, updated_at: row.updatedAt };
}

function mappingJson(row: ScimGroupMappingRow) {
  return { id: row.id, organization_id: ORGANIZATION_ID, scim_group_id: row.scimGroupId, workspace_id: row.workspaceId, role: row.role, created_at: row.createdAt, updated_at: row.updatedAt };
}

/** A token as listed: never the token itself nor its hash. */
function tokenJson(row: ScimTokenRow) {
  return { id: row.id, name: row.name, created_at: row.createdAt, last_used_at: row.lastUsedAt, revoked_at: row.revokedAt };
}

/**
 * The reference's SCIM mapping API (`/scim/groups`, `/scim/group-mappings`) and the SCIM tokens
 * (`/scim/tokens`). Management keys only. Mappings are scoped to the key's workspace like every
 * workspace route (another workspace's are not found, the deployment admin's key included: it maps
 * groups into a workspace with that workspace's management key); the groups are the organization's,
 * listed to any management key; only the deployment admin creates, lists and revokes SCIM tokens.
 */
export function scimMappingsApi(services: Services) {
  const { scim, workspaces, logger } = services;
  /** A mapping the caller may see, or 404. */
  const visible = async (principal: Principal, id: string): Promise<ScimGroupMappingRow> => {
    const row = await scim.mappings.get(id);
    if (!row || row.workspaceId !== principal.workspace.id) throw new GatewayError("not_found", "SCIM group mapping not found");
    return row;
  };

  return workspaceRoutes(services, { name: "scim-mappings-api", prefix: "/scim" })
    .get(
      "/groups",
      async ({ query }) => {
        const page = await scim.groups.list(parsePage(query, LIST_PAGE));
        return { data: page.rows.map((group) => groupJson(group.row)), total_count: page.total };
      },
      { response: listOf(ScimGroup), detail: { summary: "Groups pushed by the identity provider" } },
    )
    .get(
      "/group-mappings",
      async ({ principal, query }) => {
        const page = await scim.mappings.list(principal.workspace.id, parsePage(query, LIST_PAGE));
        return { data: page.rows.map(mappingJson), total_count: page.total };
      },
      { response: listOf(ScimGroupMapping) },
    )
    .post(
      "/group-mappings",
      async ({ principal, body, set }) => {
        const workspace = await workspaces.find(body.workspace_id);
        if (!workspace || workspace.id !== principal.workspace.id) throw new GatewayError("not_found", "workspace_id: workspace not found");
        const row = await scim.mappings.create({ scimGroupId: body.scim_group_id, workspaceId: workspace.id, role: body.role });
        logger.info("scim group mapped", { mapping_id: row.id, workspace_id: row.workspaceId, role: row.role });
        set.status = 201;
        return { data: mappingJson(row) };
      },
      { body: t.Object({ scim_group_id: t.String({ minLength: 1 }), workspace_id: t.String({ minLength: 1 }), role: Role }), response: { 201: t.Object({ data: ScimGroupMapping }) } },
    )
    .get("/group-mappings/:id", async ({ principal, params }) => ({ data: mappingJson(await visible(principal, params.id)) }), { response: t.Object({ data: ScimGroupMapping }) })
    .patch(
      "/group-mappings/:id",
      async ({ principal, params, body }) => {
        const row = await scim.mappings.update((await visible(principal, params.id)).id, body.role);
        if (!row) throw new GatewayError("not_found", "SCIM group mapping not found");
        return { data: mappingJson(row) };
      },
      { body: t.Object({ role: Role }), response: t.Object({ data: ScimGroupMapping }) },
    )
    .delete(
      "/group-mappings/:id",
      async ({ principal, params, query }) => {
        const keep = query.keep_members;
        if (keep !== "true" && keep !== "false") throw new GatewayError("bad_request", "keep_members: required, true (members stay, as manual members) or false (members lose the access this mapping granted)");
        const row = await visible(principal, params.id);
        await scim.mappings.delete(row.id, keep === "true");
        logger.info("scim group mapping deleted", { mapping_id: row.id, keep_members: keep });
        return { deleted: true as const };
      },
      { response: t.Object({ deleted: t.Literal(true) }) },
    )
    .get(
      "/tokens",
      async ({ principal }) => {
        requireDeploymentAdmin(principal);
        return { data: (await scim.tokens.list()).map(tokenJson) };
      },
      { response: t.Object({ data: t.Array(ScimToken) }) },
    )
    .post(
      "/tokens",
      async ({ principal, body, set }) => {
        requireDeploymentAdmin(principal);
        const { row, token } = await scim.tokens.create(body.name);
        logger.info("scim token created", { token_id: row.id });
        set.status = 201;
        return { data: tokenJson(row), token };
      },
      { body: t.Object({ name: t.String({ minLength: 1, maxLength: 200 }) }), response: { 201: t.Object({ data: ScimToken, token: t.String() }) } },
    )
    .delete(
      "/tokens/:id",
      async ({ principal, params }) => {
        requireDeploymentAdmin(principal);
        const row = await scim.tokens.revoke(params.id);
        if (!row) throw new GatewayError("not_found", "SCIM token not found");
        logger.info("scim token revoked", { token_id: row.id });
        return { data: tokenJson(row) };
      },
      { response: t.Object({ data: ScimToken }) },
    );
}
