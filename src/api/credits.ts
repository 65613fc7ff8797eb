import { periodStart } from "../core/periods.ts";
import type { WorkspaceRow } from "../db/schema.ts";
import type { Services } from "./services.ts";

/** What `GET /credits` answers (USD). */
export interface Credits {
  total_credits: number;
  total_usage: number;
}

/**
 * The governing budget of a workspace, as `GET /credits` reports it (there are no purchases on-prem).
 * With interval budgets (`/workspaces/{id}/budgets`): the one with the least headroom left, the one
 * the next request would hit first — `total_credits` is its limit and `total_usage` the workspace's
 * spend in its current period (a lifetime budget: all time), counting BYOK spend only when the
 * workspace includes it; so `total_credits - total_usage` is what the workspace can still spend.
 * Without budgets nothing caps the workspace as a whole: `total_credits` is the sum of the limits of
 * its enabled inference keys (a key without a limit adds nothing) and `total_usage` its recorded
 * spend of all time.
 */
export async function governingCredits(services: Services, workspace: WorkspaceRow): Promise<Credits> {
  await services.generations.flush();
  const budgets = await services.workspaceBudgets.list(workspace.id);
  if (budgets.length === 0) {
    const [limits, usage] = await Promise.all([services.analytics.workspaceBudget(workspace.id), services.analytics.workspaceSpend(workspace.id)]);
    return { total_credits: limits, total_usage: usage };
  }
  const now = new Date();
  const owner = { workspaceId: workspace.id, includeByok: workspace.includeByokInBudgets };
  const states = await Promise.all(
    budgets.map(async (budget) => ({
      total_credits: budget.limitUsd,
      total_usage: await services.generations.spentSince(owner, periodStart(budget.resetInterval === "lifetime" ? null : budget.resetInterval, now)),
    })),
  );
  return states.reduce((governing, next) => (next.total_credits - next.total_usage < governing.total_credits - governing.total_usage ? next : governing));
}
