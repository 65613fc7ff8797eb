import { GatewayError } from "../core/errors.ts";

/**
 * Per-key limits. Rate limits count requests and tokens over a sliding minute in one-second buckets.
 * Spend limits reserve an upper bound of a request's cost before it runs and settle the actual cost
 * after, so concurrent requests never together overshoot a key's limit while each stays within what
 * it reserved. All state is in memory; spend already recorded is read once per key and period.
 */

const BUCKETS = 60;

interface Window {
  seconds: Int32Array;
  requests: Float64Array;
  tokens: Float64Array;
}

export interface RateLimits {
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
}

export class RateLimiter {
  readonly #windows = new Map<string, Window>();

  constructor(private readonly now: () => number = Date.now) {}

  #window(key: string): Window {
    let window = this.#windows.get(key);
    if (!window) {
      window = { seconds: new Int32Array(BUCKETS).fill(-1), requests: new Float64Array(BUCKETS), tokens: new Float64Array(BUCKETS) };
      this.#windows.set(key, window);
    }
    return window;
  }

  #bucket(window: Window, second: number): number {
    const index = second % BUCKETS;
    if (window.seconds[index] !== second) {
      window.seconds[index] = second;
      window.requests[index] = 0;
      window.tokens[index] = 0;
    }
    return index;
  }

  /** Sum over the last minute, and the seconds until the oldest counted bucket leaves the window. */
  #sum(window: Window, field: "requests" | "tokens", second: number): { total: number; oldest: number } {
    let total = 0;
    let oldest = second;
    for (let index = 0; index < BUCKETS; index++) {
      const at = window.seconds[index]!;
      if (at > second - BUCKETS && at <= second && window[field][index]! > 0) {
        total += window[field][index]!;
        oldest = Math.min(oldest, at);
      }
    }
    return { total, oldest };
  }

  /** Admits one request or throws 429 with the seconds until it would be admitted. */
  admit(key: string, limits: RateLimits): void {
    if (limits.requestsPerMinute === null && limits.tokensPerMinute === null) return;
    const second = Math.floor(this.now() / 1000);
    const window = this.#window(key);
    for (const [field, limit, what] of [
      ["requests", limits.requestsPerMinute, "requests"],
      ["tokens", limits.tokensPerMinute, "tokens"],
    ] as const) {
      if (limit === null) continue;
      const { total, oldest } = this.#sum(window, field, second);
      if (total >= limit) {
        const retryAfter = Math.max(1, oldest + BUCKETS - second);
        throw new GatewayError("rate_limited", `Rate limit exceeded: this key may use ${limit} ${what} per minute. Retry after ${retryAfter} seconds.`, {
          retryAfter,
          metadata: { limit, window: "1m", kind: what },
        });
      }
    }
    window.requests[this.#bucket(window, second)]! += 1;
  }

  recordTokens(key: string, tokens: number): void {
    if (tokens <= 0) return;
    const window = this.#windows.get(key);
    if (!window) return;
    const second = Math.floor(this.now() / 1000);
    window.tokens[this.#bucket(window, second)]! += tokens;
  }
}

export { type LimitReset, periodStart } from "../core/periods.ts";
import { type LimitReset, periodStart } from "../core/periods.ts";

export interface SpendKey {
  hash: string;
  limit: number | null;
  limitReset: LimitReset;
}

export interface Reservation {
  key: string;
  amount: number;
}

interface Ledger {
  period: number;
  spent: number;
  /** Reserved by requests in flight, whatever period they started in: they settle into the current one. */
  reserved: number;
}

/** Spend limits by reserve → settle → release. `spentSince` reads what the records already hold. */
export class SpendLedger {
  readonly #ledgers = new Map<string, Ledger>();

  constructor(
    private readonly spentSince: (keyHash: string, since: Date) => number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The key's ledger for the current period. A new period (a reset passed, or the key's `limit_reset`
   * changed) reads the spend recorded since its start again; what is reserved stays, so a change of the
   * key never forgets spend in flight. The limit itself is read from the key on every reservation.
   */
  #ledger(key: SpendKey): Ledger {
    const period = periodStart(key.limitReset, this.now()).getTime();
    let ledger = this.#ledgers.get(key.hash);
    if (!ledger) {
      ledger = { period, spent: this.spentSince(key.hash, new Date(period)), reserved: 0 };
      this.#ledgers.set(key.hash, ledger);
    } else if (ledger.period !== period) {
      ledger.period = period;
      ledger.spent = this.spentSince(key.hash, new Date(period));
    }
    return ledger;
  }

  /**
   * Reserves `amount` USD or throws 402 when the key's limit would be exceeded. Synchronous: no race.
   * An unbounded amount (Infinity: nothing bounds what the request may cost) reserves all that remains,
   * so such a request runs alone against the key's limit.
   */
  reserve(key: SpendKey, amount: number): Reservation | undefined {
    if (key.limit === null) return undefined;
    const ledger = this.#ledger(key);
    const remaining = Math.max(0, key.limit - ledger.spent - ledger.reserved);
    const reserved = Number.isFinite(amount) ? amount : remaining;
    if ((!Number.isFinite(amount) && remaining <= 0) || ledger.spent + ledger.reserved + reserved > key.limit) {
      const most = Number.isFinite(amount) ? `${amount.toFixed(6)} USD` : "an unbounded amount (without max_tokens, or with images or files, at an endpoint that states no max_output or context_length)";
      throw new GatewayError(
        "payment_required",
        `This key's spend limit of ${key.limit} USD${key.limitReset ? ` per ${key.limitReset.replace(/ly$/, "").replace("dai", "day")}` : ""} would be exceeded (remaining ${remaining.toFixed(6)} USD, this request may cost up to ${most})`,
        { metadata: { limit: key.limit, limit_remaining: remaining } },
      );
    }
    ledger.reserved += reserved;
    return { key: key.hash, amount: reserved };
  }

  settle(reservation: Reservation | undefined, cost: number): void {
    if (!reservation) return;
    const ledger = this.#ledgers.get(reservation.key);
    if (!ledger) return;
    ledger.reserved = Math.max(0, ledger.reserved - reservation.amount);
    ledger.spent += cost;
  }

  release(reservation: Reservation | undefined): void {
    this.settle(reservation, 0);
  }
}
