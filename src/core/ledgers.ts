/**
 * Names of spend ledgers. A ledger counts the spend of one owner in one period: a key (its own limit,
 * named by its hash), a key under a guardrail (`guardrail:<guardrail id>:<key hash>`, see
 * core/guardrails.ts) or a whole workspace under one of its interval budgets
 * (`workspace:<workspace id>:<interval>`, pooled across its keys). A ledger that counts the cost of
 * generations served with a BYOK credential is named with the prefix `byok:`; one without it leaves
 * them out. The name changes when that choice does, so the ledger is read afresh from the records
 * (the in-memory ledger and team mode's SQL functions parse the same names).
 */

/** The prefix of a ledger that counts BYOK spend. */
export const BYOK_LEDGER_PREFIX = "byok:";

/** A workspace budget's interval; `lifetime` never resets. */
export type BudgetInterval = "daily" | "weekly" | "monthly" | "lifetime";

/** A workspace's budgets as enforcement sees them: a limit per interval, and whether they count BYOK spend. */
export interface WorkspaceBudgets {
  limits: Array<{ interval: BudgetInterval; limitUsd: number }>;
  includeByok: boolean;
}

/** The intervals from the widest to the narrowest: their limits must strictly decrease in this order. */
export const BUDGET_INTERVALS: readonly BudgetInterval[] = ["lifetime", "monthly", "weekly", "daily"];

/** A ledger's name, with the BYOK prefix when it counts BYOK spend. */
export function ledgerName(name: string, countsByok: boolean): string {
  return countsByok ? `${BYOK_LEDGER_PREFIX}${name}` : name;
}

/** Whether a ledger counts the cost of generations served with a BYOK credential. */
export function countsByok(ledger: string): boolean {
  return ledger.startsWith(BYOK_LEDGER_PREFIX);
}

/** The ledger of a workspace's budget for one interval: one for all of the workspace's keys. */
export function workspaceLedgerKey(workspaceId: string, interval: BudgetInterval): string {
  return `workspace:${workspaceId}:${interval}`;
}

/** Whose spend a ledger counts: one key's, or a whole workspace's; and whether BYOK spend is in it. */
export type LedgerOwner = { keyHash: string; includeByok: boolean } | { workspaceId: string; includeByok: boolean };

/** The owner of a ledger, from its name. */
export function ledgerOwner(ledger: string): LedgerOwner {
  const includeByok = countsByok(ledger);
  const name = includeByok ? ledger.slice(BYOK_LEDGER_PREFIX.length) : ledger;
  if (name.startsWith("workspace:")) return { workspaceId: name.slice("workspace:".length, name.lastIndexOf(":")), includeByok };
  const keyHash = name.startsWith("guardrail:") ? name.slice(name.lastIndexOf(":") + 1) : name;
  return { keyHash, includeByok };
}
