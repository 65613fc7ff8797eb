import { guardrailSpendKey } from "../core/guardrails.ts";
import type { Budget, Reservation, SpendKey } from "../core/limits.ts";
import type { Caller } from "./generation-record.ts";

/** A key's spend limit with the budgets of the guardrails that apply to it, all checked independently. */
export interface LayeredSpendKey extends SpendKey {
  layers: SpendKey[];
}

/** What a caller's request is reserved against, or undefined when neither its key nor a guardrail limits spend. */
export function spendKeyOf(caller: Caller): LayeredSpendKey | undefined {
  const layers = (caller.guardrails ?? []).flatMap((guardrail) => guardrailSpendKey(guardrail, caller.keyHash) ?? []);
  const limit = caller.limit ?? null;
  if (limit === null && layers.length === 0) return undefined;
  return { hash: caller.keyHash, limit, limitReset: caller.limitReset ?? null, layers };
}

/**
 * Reserves a request's cost against every ledger of its spend key: the key's own limit and each
 * guardrail's budget for this key (one ledger per guardrail and key: budgets are never pooled), over the same
 * Budget (in memory on one host, PostgreSQL in team mode). A refusal by any releases the others, so
 * the lowest remaining limit wins; settling or releasing does so for every part.
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

  settle(reservation: Reservation | undefined, cost: number): void {
    if (reservation?.parts) for (const part of reservation.parts) this.inner.settle(part, cost);
    else this.inner.settle(reservation, cost);
  }

  release(reservation: Reservation | undefined): void {
    if (reservation?.parts) for (const part of reservation.parts) this.inner.release(part);
    else this.inner.release(reservation);
  }
}
