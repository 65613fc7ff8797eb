import { t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { BUDGET_INTERVALS, type BudgetInterval } from "../core/ledgers.ts";
import type { WorkspaceBudgetRow, WorkspaceRow } from "../db/schema.ts";
import { isDeploymentAdmin, type Principal } from "./auth.ts";
import type { Services } from "./services.ts";
import { workspaceRoutes } from "./workspace-routes.ts";

const Budget = t.Object({
  id: t.String(),
  workspace_id: t.String(),
  limit_usd: t.Number(),
  reset_interval: t.Union([t.Literal("daily"), t.Literal("weekly"), t.Literal("monthly"), t.Null()], { description: "null: lifetime (never resets)" }),
  created_at: t.String(),
  updated_at: t.String(),
});

const PutBudgetBody = t.Object({
  limit_usd: t.Number({ exclusiveMinimum: 0, description: "USD; limits strictly decrease as the interval narrows (lifetime > monthly > weekly > daily)" }),
  include_byok_in_budgets: t.Optional(t.Boolean({ description: "Workspace-wide: every budget of the workspace counts BYOK spend" })),
});

/** The wire shape of a budget: a lifetime budget's `reset_interval` is null. */
function budgetJson(row: WorkspaceBudgetRow) {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    limit_usd: row.limitUsd,
    reset_interval: row.resetInterval === "lifetime" ? null : row.resetInterval,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

/** The interval of a path, or 400 naming those allowed. */
function intervalOf(value: string): BudgetInterval {
  if (!(BUDGET_INTERVALS as readonly string[]).includes(value)) throw new GatewayError("bad_request", `interval: expected daily, weekly, monthly or lifetime, got "${value}"`);
  return value as BudgetInterval;
}

/**
 * `/workspaces/{id}/budgets`: a workspace's spend budgets, one per interval, each one ledger pooled over
 * all of the workspace's keys and enforced from the next request on (see LayeredBudget). A management
 * key manages its own workspace's (another workspace is not found); the deployment admin any workspace's.
 */
export function workspaceBudgetsApi(services: Services) {
  const find = async (principal: Principal, idOrSlug: string): Promise<WorkspaceRow> => {
    const row = await services.workspaces.find(idOrSlug);
    if (!row || (row.id !== principal.workspace.id && !isDeploymentAdmin(principal))) throw new GatewayError("not_found", "Workspace not found");
    return row;
  };
  return workspaceRoutes(services, { name: "workspace-budgets-api", prefix: "/workspaces" })
    .get(
      "/:id/budgets",
      async ({ params, principal }) => {
        const workspace = await find(principal, params.id);
        const rows = await services.workspaceBudgets.list(workspace.id);
        return { data: rows.map(budgetJson), include_byok_in_budgets: workspace.includeByokInBudgets };
      },
      { response: { 200: t.Object({ data: t.Array(Budget), include_byok_in_budgets: t.Boolean() }) } },
    )
    .get(
      "/:id/budgets/:interval",
      async ({ params, principal }) => {
        const interval = intervalOf(params.interval);
        const workspace = await find(principal, params.id);
        const row = await services.workspaceBudgets.get(workspace.id, interval);
        if (!row) throw new GatewayError("not_found", `Workspace has no ${interval} budget`);
        return { data: budgetJson(row) };
      },
      { response: { 200: t.Object({ data: Budget }) } },
    )
    .put(
      "/:id/budgets/:interval",
      async ({ params, body, principal }) => {
        const interval = intervalOf(params.interval);
        const workspace = await find(principal, params.id);
        const row = await services.workspaceBudgets.put(workspace.id, interval, body.limit_usd);
        if (body.include_byok_in_budgets !== undefined && body.include_byok_in_budgets !== workspace.includeByokInBudgets) {
          await services.workspaces.update(workspace.id, { includeByokInBudgets: body.include_byok_in_budgets });
        }
        return { data: budgetJson(row) };
      },
      { body: PutBudgetBody, response: { 200: t.Object({ data: Budget }) } },
    )
    .delete(
      "/:id/budgets/:interval",
      async ({ params, principal }) => {
        const interval = intervalOf(params.interval);
        const workspace = await find(principal, params.id);
        await services.workspaceBudgets.delete(workspace.id, interval);
        return { deleted: true as const };
      },
      { response: { 200: t.Object({ deleted: t.Literal(true) }) } },
    );
}
