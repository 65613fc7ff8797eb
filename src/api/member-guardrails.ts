import { t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { defaultGuardrailId } from "../core/guardrails.ts";
import type { GuardrailMemberAssignmentRow } from "../db/schema-people.ts";
import type { Principal } from "./auth.ts";
import { parsePage } from "./http.ts";
import { ORGANIZATION_ID } from "./organization.ts";
import type { Services } from "./services.ts";
import { LIST_PAGE, listOf, workspaceRoutes } from "./workspace-routes.ts";

const MemberIds = t.Object({ member_user_ids: t.Array(t.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems: 1000, expected: "1 to 1000 member ids" }) });
const Assignment = t.Object({
  id: t.String(),
  guardrail_id: t.String(),
  user_id: t.String(),
  organization_id: t.String(),
  assigned_by: t.Union([t.String(), t.Null()]),
  created_at: t.String(),
});

function assignmentJson(row: GuardrailMemberAssignmentRow) {
  return { id: row.id, guardrail_id: row.guardrailId, user_id: row.memberId, organization_id: ORGANIZATION_ID, assigned_by: row.assignedBy, created_at: row.createdAt };
}

/**
 * `/guardrails/{id}/assignments/members` and `/guardrails/assignments/members`: a guardrail assigned to
 * a member of the workspace applies to every key the member created there, and its budget is one
 * ledger per member (not pooled across members). A member holds at most one guardrail per workspace.
 * Another workspace's guardrail is not found; the workspace's default guardrail cannot be assigned.
 */
export function memberGuardrailsApi(services: Services) {
  const find = async (principal: Principal, id: string) => {
    const row = await services.guardrails.get(principal.workspace.id, id);
    if (!row) throw new GatewayError("not_found", "Guardrail not found");
    return row;
  };
  return workspaceRoutes(services, { name: "member-guardrails-api", prefix: "/guardrails" })
    .get(
      "/assignments/members",
      async ({ query, principal }) => {
        const page = parsePage(query, LIST_PAGE);
        const { rows, total } = await services.memberGuardrails.list(principal.workspace.id, undefined, page.offset, page.limit);
        return { data: rows.map(assignmentJson), total_count: total };
      },
      { response: { 200: listOf(Assignment) }, detail: { summary: "Every member assignment of the workspace's guardrails" } },
    )
    .get(
      "/:id/assignments/members",
      async ({ params, query, principal }) => {
        const page = parsePage(query, LIST_PAGE);
        const row = await find(principal, params.id);
        const { rows, total } = await services.memberGuardrails.list(principal.workspace.id, row.id, page.offset, page.limit);
        return { data: rows.map(assignmentJson), total_count: total };
      },
      { response: { 200: listOf(Assignment) }, detail: { summary: "The members a guardrail is assigned to" } },
    )
    .post(
      "/:id/assignments/members",
      async ({ params, body, principal }) => {
        const row = await find(principal, params.id);
        if (row.id === defaultGuardrailId(principal.workspace.id)) {
          throw new GatewayError("bad_request", "id: the workspace's default guardrail applies to every key of the workspace and cannot be assigned");
        }
        const assignedBy = principal.member?.id ?? principal.key.creatorUserId ?? principal.key.hash;
        return { assigned_count: await services.memberGuardrails.assign(principal.workspace.id, row.id, body.member_user_ids, assignedBy) };
      },
      { body: MemberIds, response: { 200: t.Object({ assigned_count: t.Integer() }) }, detail: { summary: "Assigns a guardrail to members (replacing what each held in the workspace)" } },
    )
    .post(
      "/:id/assignments/members/remove",
      async ({ params, body, principal }) => {
        const row = await find(principal, params.id);
        return { unassigned_count: await services.memberGuardrails.unassign(principal.workspace.id, row.id, body.member_user_ids) };
      },
      { body: MemberIds, response: { 200: t.Object({ unassigned_count: t.Integer() }) }, detail: { summary: "Removes a guardrail from members" } },
    );
}
