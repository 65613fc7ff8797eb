import { t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { parseScimFilter, type ScimFilter, scimError } from "../core/scim-filter.ts";
import type { GroupChange, GroupWithMembers } from "../db/scim-groups.ts";
import { scimPage, scimRoutes } from "./scim-v2-auth.ts";
import { MAX_RESULTS } from "./scim-v2-users.ts";
import { groupJson, listJson, type PatchOperation, patchOperations } from "./scim-resources.ts";
import type { Services } from "./services.ts";

const MemberRef = t.Object({ value: t.String({ minLength: 1 }), display: t.Optional(t.String()) }, { additionalProperties: true });

/** A Group as the identity provider sends it (RFC 7643 §4.2). */
const GroupBody = t.Object(
  {
    schemas: t.Optional(t.Array(t.String())),
    displayName: t.String({ minLength: 1, maxLength: 256 }),
    externalId: t.Optional(t.Union([t.String({ maxLength: 256 }), t.Null()])),
    members: t.Optional(t.Array(MemberRef)),
  },
  { additionalProperties: true },
);

const PatchBody = t.Object({ schemas: t.Optional(t.Array(t.String())), Operations: t.Array(t.Object({ op: t.String(), path: t.Optional(t.String()), value: t.Optional(t.Unknown()) }), { minItems: 1 }) });

/** Member ids of a `members` value: `[{value}]` (or one `{value}`, as some providers send). */
function memberIds(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((entry, index) => {
    const id = (entry as { value?: unknown } | null)?.value;
    if (typeof id !== "string" || id === "") throw scimError("invalidValue", `members[${index}].value: expected a user id`);
    return id;
  });
}

/** The ids a `members[value eq "…" or value eq "…"]` path selects. */
function selectedIds(filter: ScimFilter): string[] {
  if (filter.kind === "or") return [...selectedIds(filter.left), ...selectedIds(filter.right)];
  if (filter.kind === "compare" && filter.path === "value" && filter.op === "eq" && typeof filter.value === "string") return [filter.value];
  throw scimError("invalidPath", 'members path: expected members[value eq "<id>"] (joined by or)');
}

/**
 * Applies PatchOp operations (Okta's and Entra's shapes) to a group's members held as a set, with
 * its name; the result is the change to store (members added and removed).
 */
function patchChange(group: GroupWithMembers, operations: PatchOperation[]): GroupChange {
  const change: GroupChange = {};
  const current = new Set(group.members.map((member) => member.id));
  const next = new Set(current);
  const setAttribute = (path: string, value: unknown, op: PatchOperation["op"]) => {
    const attribute = path.toLowerCase();
    if (attribute === "displayname") {
      if (op === "remove" || typeof value !== "string" || value === "") throw scimError("invalidValue", "displayName: expected a non-empty string");
      change.displayName = value;
    } else if (attribute === "externalid") {
      change.externalId = op === "remove" || value === null ? null : String(value);
    } else if (attribute === "members") {
      if (op === "replace") next.clear();
      if (op === "remove") for (const id of value === undefined ? [...next] : memberIds(value)) next.delete(id);
      else for (const id of memberIds(value)) next.add(id);
    } else if (attribute.startsWith("members[")) {
      if (op !== "remove") throw scimError("invalidPath", `${path}: only remove takes a filtered members path`);
      const parsed = parseScimFilter(path);
      if (parsed.kind !== "valuePath" || parsed.then) throw scimError("invalidPath", `${path}: expected members[value eq "<id>"]`);
      for (const id of selectedIds(parsed.filter)) next.delete(id);
    }
    // Other attributes are not kept by Roundhouse and are ignored.
  };
  for (const operation of operations) {
    if (operation.path !== undefined) {
      setAttribute(operation.path, operation.value, operation.op);
    } else if (operation.op === "remove") {
      throw scimError("noTarget", "Operations: a remove needs a path");
    } else if (operation.value !== null && typeof operation.value === "object" && !Array.isArray(operation.value)) {
      for (const [key, value] of Object.entries(operation.value)) if (key !== "id" && key !== "schemas") setAttribute(key, value, operation.op);
    } else {
      throw scimError("invalidValue", "Operations: an operation without a path needs an object value");
    }
  }
  change.addMembers = [...next].filter((id) => !current.has(id));
  change.removeMembers = [...current].filter((id) => !next.has(id));
  return change;
}

/**
 * The SCIM server's Groups: the identity provider's groups and their members. Membership changes
 * recompute the members' workspace memberships through the group mappings.
 */
export function scimGroupsApi(services: Services) {
  const { scim, logger } = services;
  const found = (group: GroupWithMembers | undefined): GroupWithMembers => {
    if (!group) throw new GatewayError("not_found", "Group not found");
    return group;
  };
  const withMembers = (query: Record<string, string | undefined>) => !/\bmembers\b/i.test(query.excludedAttributes ?? "");

  return scimRoutes(services, "scim-v2-groups")
    .get("/Groups", async ({ query, base }) => {
      const page = scimPage(query, MAX_RESULTS);
      const filter = query.filter ? parseScimFilter(query.filter) : undefined;
      const list = await scim.groups.list({ ...(filter ? { filter } : {}), offset: page.offset, limit: page.limit });
      return listJson(list.rows.map((group) => groupJson(group, base, withMembers(query))), list.total, page.startIndex);
    })
    .post(
      "/Groups",
      async ({ body, base, set }) => {
        const group = await scim.groups.create({ displayName: body.displayName, externalId: body.externalId ?? null, memberIds: memberIds(body.members ?? []) });
        logger.info("scim group created", { group_id: group.row.id, members: group.members.length });
        set.status = 201;
        return groupJson(group, base);
      },
      { body: GroupBody },
    )
    .get("/Groups/:id", async ({ params, query, base }) => groupJson(found(await scim.groups.get(params.id)), base, withMembers(query)))
    .put(
      "/Groups/:id",
      async ({ params, body, base }) => {
        const change: GroupChange = { displayName: body.displayName, externalId: body.externalId ?? null, setMembers: memberIds(body.members ?? []) };
        return groupJson(found(await scim.groups.update(params.id, change)), base);
      },
      { body: GroupBody },
    )
    .patch(
      "/Groups/:id",
      async ({ params, body, base, set }) => {
        const group = found(await scim.groups.get(params.id));
        const updated = found(await scim.groups.update(group.row.id, patchChange(group, patchOperations(body))));
        logger.info("scim group changed", { group_id: group.row.id, members: updated.members.length });
        set.status = 200;
        return groupJson(updated, base);
      },
      { body: PatchBody },
    )
    .delete("/Groups/:id", async ({ params, set }) => {
      if (!(await scim.groups.delete(params.id))) throw new GatewayError("not_found", "Group not found");
      logger.info("scim group deleted", { group_id: params.id });
      set.status = 204;
      return "";
    });
}
