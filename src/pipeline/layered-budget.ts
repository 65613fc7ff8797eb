import { guardrailSpendKey } from "../core/guardrails.ts";
import { countsByok, ledgerName, workspaceLedgerKey } from "../core/ledgers.ts";
import type { Budget, Reservation, SpendKey } from "../core/limits.ts";
import type { Caller } from "./generation-record.ts";

/** A key's spend limit with the budgets of its guardrails and its workspace, all checked independently. */
export interface LayeredSpendKey extends SpendKey {
  layers: SpendKey[];
}

/** The workspace's interval budgets of a caller as ledgers of their own, pooled across the workspace's keys. */
function workspaceLayers(caller: Caller): SpendKey[] {
  const budgets = caller.workspaceBudgets;
  if (!budgets) return [];
  return budgets.limits.map(({ interval, limitUsd }) => ({
    hash: ledgerName(workspaceLedgerKey(caller.workspaceId, interval), budgets.includeByok),
    limit: limitUsd,
    limitReset: interval === "lifetime" ? null : interval,
    workspaceBudget: { workspaceId: caller.workspaceId, interval },
  }));
}

/** What a caller's request is reserved against, or undefined when neither its key, a guardrail nor its workspace limits spend. */
export function spendKeyOf(caller: Caller): LayeredSpendKey | undefined {
  const guardrails = (caller.guardrails ?? []).flatMap((guardrail) => guardrailSpendKey(guardrail, caller.keyHash) ?? []);
  const layers = [...guardrails, ...workspaceLayers(caller)];
  const limit = caller.limit ?? null;
  if (limit === null && layers.length === 0) return undefined;
  return { hash: ledgerName(caller.keyHash, caller.includeByokInLimit ?? false), limit, limitReset: caller.limitReset ?? null, layers };
}

/**
 * Reserves a request's cost against every ledger of its spend key: the key's own limit, each
 * guardrail's budget for this key (one ledger per guardrail and key: guardrail budgets are never
 * pooled) and each of the workspace's interval budgets (one ledger per workspace and interval, pooled),
 * over the same Budget (in memory on one host, PostgreSQL in team mode). A refusal by any releases the
 * others, so the lowest remaining limit wins; settling or releasing does so for every part.
 *
 * Whether a request is served with a BYOK credential is known only once routing chose an attempt, after
 * the reservation: a BYOK generation settles with its cost only the ledgers that count BYOK spend
 * (`byok:` ones), and with 0 the others (whose spend, read from the records, leaves it out too).
 */
export class LayeredBudget implements Budget {
  constructor(private readonly inner: Budget) {}

  async reserve(key: SpendKey, amount: number, generationId: string): Promise<Reservation | undefined> {
    const layers = (key as Partial<LayeredSpendKey>).layers ?? [];
    if (layers.length === 0) return this.inner.reserve(key, amount, generationId);
    const parts: Reservation[] = [];
    try {
      for (const ledger of [key, ...layers]) {
        const part = await this.inner.reserve(ledger, amount, generationId);
        if (part) parts.push(part);
      }
    } catch (error) {
      for (const part of parts) this.inner.release(part);
      throw error;
    }
    return { key: key.hash, amount: Math.max(0, ...parts.map((part) => part.amount)), generationId, parts };
  }

  settle(reservation: Reservation | undefined, cost: number, byok = false): void {
    const counted = (part: Reservation) => (byok && !countsByok(part.key) ? 0 : cost);
    if (reservation?.parts) for (const part of reservation.parts) this.inner.settle(part, counted(part));
    else if (reservation) this.inner.settle(reservation, counted(reservation));
  }

  release(reservation: Reservation | undefined): void {
    if (reservation?.parts) for (const part of reservation.parts) this.inner.release(part);
    else this.inner.release(reservation);
  }
}
