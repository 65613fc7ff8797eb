import { GatewayError } from "./errors.ts";
import type { LimitReset } from "./periods.ts";

/**
 * The ports of per-key limits, as the pipeline uses them: rate limits (requests and tokens per minute)
 * and spend limits (reserve → settle → release), and the errors a refusal gives. Implemented in memory
 * for one host (pipeline/limits.ts) and over PostgreSQL for team mode (db/team-limits.ts), with the
 * same refusals.
 */

/** A key's per-minute limits (null: none). */
export interface RateLimitSettings {
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
}

/** Admits requests against per-key rate limits and counts the tokens they used. */
export interface RateLimits {
  /** Admits one request or rejects with 429 (`rateLimitError`). */
  admit(key: string, limits: RateLimitSettings): Promise<void>;
  /** Tokens a request of the key used, counted against its tokens-per-minute limit. */
  recordTokens(key: string, tokens: number): void;
}

/** Spend limits by reserve → settle → release. */
export interface Budget {
  /**
   * Reserves up to `amount` USD (Infinity: all that remains) for the generation `generationId`, or
   * rejects with 402 (`spendLimitError`); undefined for a key without a limit. The generation's record
   * is what carries the settled cost into the ledger.
   */
  reserve(key: SpendKey, amount: number, generationId: string): Promise<Reservation | undefined>;
  /**
   * The request ended costing `cost` (its generation record holds it); `byok`: it was served with a
   * BYOK credential, which counts only in ledgers that count BYOK spend (core/ledgers.ts).
   */
  settle(reservation: Reservation | undefined, cost: number, byok?: boolean): void;
  /** The reservation is no longer needed and nothing was spent against it. */
  release(reservation: Reservation | undefined): void;
}

/** The 429 of a refused request: `limit` of `kind` per minute, free again in `retryAfter` seconds. */
export function rateLimitError(limit: number, kind: "requests" | "tokens", retryAfter: number): GatewayError {
  return new GatewayError("rate_limited", `Rate limit exceeded: this key may use ${limit} ${kind} per minute. Retry after ${retryAfter} seconds.`, {
    retryAfter,
    metadata: { limit, window: "1m", kind },
  });
}

/** A key as its spend limit sees it: its hash, its limit in USD (null: none) and when the limit resets. */
export interface SpendKey {
  hash: string;
  limit: number | null;
  limitReset: LimitReset;
  /** Set when the ledger is a guardrail's budget for the key (per key, never pooled), not the key's own limit. */
  guardrail?: { id: string; name: string };
  /** Set when the ledger is one of a workspace's interval budgets (pooled across its keys). */
  workspaceBudget?: { workspaceId: string; interval: string };
}

/** What a request holds of its key's limit until it settles. */
export interface Reservation {
  key: string;
  amount: number;
  /** Team mode: the stored reservation's id (none when nothing was stored) and the generation it is for. */
  id?: string | undefined;
  generationId?: string | undefined;
  /** A reservation over several ledgers (the key's and its guardrails'): each part settles with the same cost. */
  parts?: Reservation[];
}

/** The 402 of a reservation of `amount` USD (Infinity: unbounded) the key's limit does not cover. */
export function spendLimitError(key: SpendKey, limit: number, amount: number, remaining: number): GatewayError {
  const most = Number.isFinite(amount) ? `${amount.toFixed(6)} USD` : "an unbounded amount (without max_tokens, or with images or files, at an endpoint that states no max_output or context_length)";
  const budget = key.workspaceBudget;
  const owner = key.guardrail
    ? `Guardrail "${key.guardrail.name}" (${key.guardrail.id}): its budget`
    : budget ? `Workspace ${budget.workspaceId}: its ${budget.interval} budget` : "This key's spend limit";
  const owned = key.guardrail
    ? { guardrail_id: key.guardrail.id, guardrail_name: key.guardrail.name, rule: "limit_usd" }
    : budget ? { workspace_id: budget.workspaceId, budget_interval: budget.interval } : {};
  return new GatewayError(
    "payment_required",
    `${owner} of ${limit} USD${key.limitReset ? ` per ${key.limitReset.replace(/ly$/, "").replace("dai", "day")}` : ""} would be exceeded (remaining ${remaining.toFixed(6)} USD, this request may cost up to ${most})`,
    { metadata: { limit, limit_remaining: remaining, ...owned } },
  );
}

