import { and, eq } from "drizzle-orm";
import { GatewayError } from "../core/errors.ts";
import { newId, nowIso } from "../core/ids.ts";
import { BUDGET_INTERVALS, type BudgetInterval } from "../core/ledgers.ts";
import type { Backend } from "./backend.ts";
import type { WorkspaceBudgetRow } from "./schema.ts";

/** Widest interval first, as the strict-decrease rule reads them. */
function byWidth(rows: WorkspaceBudgetRow[]): WorkspaceBudgetRow[] {
  return [...rows].sort((a, b) => BUDGET_INTERVALS.indexOf(a.resetInterval) - BUDGET_INTERVALS.indexOf(b.resetInterval));
}

/**
 * Refuses (400) budgets whose limits do not strictly decrease as the interval narrows
 * (lifetime > monthly > weekly > daily), naming both budgets of the first pair that breaks the rule.
 */
function checkDecreasing(rows: WorkspaceBudgetRow[]): void {
  const ordered = byWidth(rows);
  for (let index = 1; index < ordered.length; index++) {
    const [wider, narrower] = [ordered[index - 1]!, ordered[index]!];
    if (narrower.limitUsd >= wider.limitUsd) {
      throw new GatewayError(
        "bad_request",
        `limit_usd: the ${narrower.resetInterval} budget (${narrower.limitUsd} USD) must be less than the ${wider.resetInterval} budget (${wider.limitUsd} USD): limits strictly decrease as the interval narrows (lifetime > monthly > weekly > daily)`,
      );
    }
  }
}

/**
 * A workspace's interval budgets. Every inference request reads its workspace's (`list`): they are read
 * once per workspace and kept until a write here or by another process or replica (the backend's change
 * feed) drops them, so a change is enforced on the next request.
 */
export class WorkspaceBudgetStore {
  readonly #cache = new Map<string, WorkspaceBudgetRow[]>();

  constructor(private readonly backend: Backend) {
    backend.changes.onChange(() => this.#cache.clear());
  }

  /** The workspace's budgets when they are held in memory (no read), widest interval first. */
  cachedList(workspaceId: string): WorkspaceBudgetRow[] | undefined {
    this.backend.changes.check();
    return this.#cache.get(workspaceId);
  }

  /** The workspace's budgets, widest interval first. */
  async list(workspaceId: string): Promise<WorkspaceBudgetRow[]> {
    const cached = this.cachedList(workspaceId);
    if (cached) return cached;
    const { workspaceBudgets } = this.backend.tables;
    const rows = byWidth(await this.backend.db.select().from(workspaceBudgets).where(eq(workspaceBudgets.workspaceId, workspaceId)));
    this.#cache.set(workspaceId, rows);
    return rows;
  }

  /** The workspace's budget for one interval. */
  async get(workspaceId: string, interval: BudgetInterval): Promise<WorkspaceBudgetRow | undefined> {
    return (await this.list(workspaceId)).find((row) => row.resetInterval === interval);
  }

  /** Sets the limit of one interval's budget (created when absent); 400 when the limits would no longer strictly decrease. */
  async put(workspaceId: string, interval: BudgetInterval, limitUsd: number): Promise<WorkspaceBudgetRow> {
    const { workspaceBudgets } = this.backend.tables;
    const row = await this.backend.transaction(async (tx) => {
      const rows = await tx.select().from(workspaceBudgets).where(eq(workspaceBudgets.workspaceId, workspaceId));
      const existing = rows.find((candidate) => candidate.resetInterval === interval);
      const now = nowIso();
      const next: WorkspaceBudgetRow = existing ? { ...existing, limitUsd, updatedAt: now } : { id: newId(), workspaceId, resetInterval: interval, limitUsd, createdAt: now, updatedAt: now };
      checkDecreasing([...rows.filter((candidate) => candidate !== existing), next]);
      if (existing) await tx.update(workspaceBudgets).set({ limitUsd, updatedAt: now }).where(eq(workspaceBudgets.id, existing.id));
      else await tx.insert(workspaceBudgets).values(next);
      return next;
    });
    this.#cache.delete(workspaceId);
    return row;
  }

  /** Removes one interval's budget; whether there was one. */
  async delete(workspaceId: string, interval: BudgetInterval): Promise<boolean> {
    const { workspaceBudgets } = this.backend.tables;
    const removed = await this.backend.write((db) =>
      db.delete(workspaceBudgets).where(and(eq(workspaceBudgets.workspaceId, workspaceId), eq(workspaceBudgets.resetInterval, interval))).returning({ id: workspaceBudgets.id }),
    );
    this.#cache.delete(workspaceId);
    return removed.length > 0;
  }
}
