import { t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import type { MemberRow, OrganizationRole } from "../db/schema-people.ts";
import type { Principal } from "./auth.ts";
import { requireDeploymentAdmin } from "./auth.ts";
import { parsePage } from "./http.ts";
import type { Services } from "./services.ts";
import { LIST_PAGE, listOf, workspaceRoutes } from "./workspace-routes.ts";

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);
const Name = Nullable(t.String({ maxLength: 200 }));
const RoleInput = t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member"), t.Literal("org:admin"), t.Literal("org:member")], {
  expected: '"owner", "admin", "member" (or the reference\'s "org:admin", "org:member")',
});

const CreateBody = t.Object({
  email: t.String({ format: "email", maxLength: 320, expected: "an e-mail address" }),
  first_name: t.Optional(Name),
  last_name: t.Optional(Name),
  role: t.Optional(RoleInput),
});
const UpdateBody = t.Object({
  first_name: t.Optional(Name),
  last_name: t.Optional(Name),
  role: t.Optional(RoleInput),
  active: t.Optional(t.Boolean({ description: "false deactivates the member: its sessions end and every key it created is disabled at once" })),
});

const Member = t.Object({
  id: t.String(),
  email: t.String(),
  first_name: Nullable(t.String()),
  last_name: Nullable(t.String()),
  role: t.Union([t.Literal("org:admin"), t.Literal("org:member")]),
});
const MemberDetail = t.Object({
  ...Member.properties,
  organization_role: t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member")]),
  active: t.Boolean(),
  scim_managed: t.Boolean(),
  workspaces: t.Array(t.Object({ workspace_id: t.String(), role: t.String() })),
  created_at: t.String(),
  updated_at: t.String(),
});
const Usage = {
  usage: t.Number({ description: "USD spent by every key the member created, all time" }),
  usage_daily: t.Number(),
  usage_weekly: t.Number(),
  usage_monthly: t.Number(),
};
const MemberWithUsage = t.Object({ ...MemberDetail.properties, ...Usage });

/** The deployment is one organization: its id wherever the reference names one. */
export const ORGANIZATION_ID = "roundhouse";

const EXTENSION = "Roundhouse extension (not in the reference): the local account directory of an on-prem deployment.";
const SCIM_MANAGED = "This member is managed by SCIM: deprovision it through the identity provider";

/** The reference's organization role: an owner is an admin there. */
function referenceRole(role: OrganizationRole): "org:admin" | "org:member" {
  return role === "member" ? "org:member" : "org:admin";
}

/** An organization role from the API: the reference's `org:` names are accepted too. */
function organizationRole(role: typeof RoleInput.static | undefined): OrganizationRole | undefined {
  if (role === "org:admin") return "admin";
  if (role === "org:member") return "member";
  return role;
}

/** The reference's shape of an organization member. */
export function memberJson(row: MemberRow) {
  return { id: row.id, email: row.email, first_name: row.firstName, last_name: row.lastName, role: referenceRole(row.role) };
}

/**
 * `/organization/members`: the deployment's directory of people. Listing is the reference's operation;
 * creating, reading, updating and deleting one member are Roundhouse extensions for local accounts.
 * Every route needs the deployment admin's management key (the organization spans every workspace).
 * A SCIM-managed member cannot be deactivated or deleted here: its identity provider owns it.
 */
export function organizationApi(services: Services) {
  const detail = async (row: MemberRow) => ({
    ...memberJson(row),
    organization_role: row.role,
    active: row.active,
    scim_managed: row.scimManaged,
    workspaces: (await services.members.membershipsOf(row.id)).map((entry) => ({ workspace_id: entry.workspaceId, role: entry.role })),
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  });
  const find = async (principal: Principal, id: string) => {
    requireDeploymentAdmin(principal);
    const row = await services.members.get(id);
    if (!row) throw new GatewayError("not_found", "Member not found");
    return row;
  };
  /**
   * Ownership is the owners' to give and take: a signed-in admin (not an owner) may not change or delete
   * an owner, nor make anyone one. A deployment admin's management key may (it is the operator's own).
   */
  const guardOwnership = (principal: Principal, target: MemberRow | undefined, role: MemberRow["role"] | undefined) => {
    if (!principal.member || principal.member.role === "owner") return;
    if (target?.role === "owner" || role === "owner") throw new GatewayError("forbidden", "Only an organization owner can change or remove an owner, or make a member an owner");
  };
  const usage = async (row: MemberRow) => {
    const keys = await services.keys.createdBy(row.id);
    const byKey = await services.generations.usageByKey(keys.map((key) => key.hash));
    const sum = { total: 0, daily: 0, weekly: 0, monthly: 0 };
    for (const entry of byKey.values()) for (const field of ["total", "daily", "weekly", "monthly"] as const) sum[field] += entry[field];
    return { usage: sum.total, usage_daily: sum.daily, usage_weekly: sum.weekly, usage_monthly: sum.monthly };
  };
  return workspaceRoutes(services, { name: "organization-api", prefix: "/organization" })
    .get(
      "/members",
      async ({ query, principal }) => {
        requireDeploymentAdmin(principal);
        const page = parsePage(query, LIST_PAGE);
        const { rows, total } = await services.members.list(page);
        return { data: rows.map(memberJson), total_count: total };
      },
      { response: { 200: listOf(Member) }, detail: { summary: "The organization's members (an owner is listed as org:admin)" } },
    )
    .post(
      "/members",
      async ({ body, principal, set }) => {
        requireDeploymentAdmin(principal);
        guardOwnership(principal, undefined, organizationRole(body.role));
        const row = await services.members.create({ email: body.email, firstName: body.first_name ?? null, lastName: body.last_name ?? null, role: organizationRole(body.role) ?? "member" });
        set.status = 201;
        return { data: await detail(row) };
      },
      { body: CreateBody, response: { 201: t.Object({ data: MemberDetail }) }, detail: { summary: "Creates a local member", description: EXTENSION, "x-roundhouse-extension": true } },
    )
    .get(
      "/members/:id",
      async ({ params, principal }) => {
        const row = await find(principal, params.id);
        return { data: { ...(await detail(row)), ...(await usage(row)) } };
      },
      { response: { 200: t.Object({ data: MemberWithUsage }) }, detail: { summary: "A member, with the spend of every key it created", description: EXTENSION, "x-roundhouse-extension": true } },
    )
    .patch(
      "/members/:id",
      async ({ params, body, principal }) => {
        let row = await find(principal, params.id);
        guardOwnership(principal, row, organizationRole(body.role));
        if (body.active === false && row.active) {
          if (row.scimManaged) throw new GatewayError("conflict", SCIM_MANAGED);
          row = (await services.members.deactivate(row.id)) ?? row;
          services.logger.info("member deactivated: its sessions ended and its keys were disabled", { member_id: row.id });
        } else if (body.active === true && !row.active) {
          row = (await services.members.reactivate(row.id)) ?? row;
        }
        const patch = { firstName: body.first_name, lastName: body.last_name, role: organizationRole(body.role) };
        if (Object.values(patch).some((value) => value !== undefined)) row = (await services.members.update(row.id, patch)) ?? row;
        return { data: await detail(row) };
      },
      { body: UpdateBody, response: { 200: t.Object({ data: MemberDetail }) }, detail: { summary: "Updates a member; active: false deactivates it", description: EXTENSION, "x-roundhouse-extension": true } },
    )
    .delete(
      "/members/:id",
      async ({ params, principal }) => {
        const row = await find(principal, params.id);
        guardOwnership(principal, row, undefined);
        if (row.scimManaged) throw new GatewayError("conflict", SCIM_MANAGED);
        await services.members.delete(row.id);
        return { data: { deleted: true as const } };
      },
      { response: { 200: t.Object({ data: t.Object({ deleted: t.Literal(true) }) }) }, detail: { summary: "Deletes a member after disabling every key it created", description: EXTENSION, "x-roundhouse-extension": true } },
    );
}
