import { type Budget, type RateLimits, type RateLimitSettings, type Reservation, rateLimitError, type SpendKey, spendLimitError } from "../core/limits.ts";

export { type Budget, type RateLimits, type RateLimitSettings, type Reservation, rateLimitError, type SpendKey, spendLimitError } from "../core/limits.ts";

/**
 * Per-key limits. Rate limits count requests and tokens over a sliding minute in one-second buckets.
 * Spend limits reserve an upper bound of a request's cost before it runs and settle the actual cost
 * after, so concurrent requests never together overshoot a key's limit while each stays within what
 * it reserved. The pipeline sees two ports, `RateLimits` and `Budget` (core/limits.ts): the classes
 * here keep their state in memory (one host; spend already recorded is read once per key and period),
 * team mode's implementations keep it in PostgreSQL (src/db/team-limits.ts).
 */

const BUCKETS = 60;

interface Window {
  seconds: Int32Array;
  requests: Float64Array;
  tokens: Float64Array;
}

/** Rate limits in memory, for one host. */
export class RateLimiter implements RateLimits {
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

  /** Admits one request or rejects with 429 with the seconds until it would be admitted. */
  async admit(key: string, limits: RateLimitSettings): Promise<void> {
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
        throw rateLimitError(limit, what, Math.max(1, oldest + BUCKETS - second));
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
import { periodStart } from "../core/periods.ts";

interface Ledger {
  period: number;
  spent: number;
  /** Reserved by requests in flight, whatever period they started in: they settle into the current one. */
  reserved: number;
}

/**
 * Spend limits in memory, for one host. `spentSince` reads what the records already hold (once per key
 * and period; concurrent reservations of a key wait for the same read).
 */
export class SpendLedger implements Budget {
  readonly #ledgers = new Map<string, Ledger>();
  readonly #loading = new Map<string, Promise<void>>();

  constructor(
    private readonly spentSince: (keyHash: string, since: Date) => number | Promise<number>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The key's ledger for the current period. A new period (a reset passed, or the key's `limit_reset`
   * changed) reads the spend recorded since its start again; what is reserved stays, so a change of the
   * key never forgets spend in flight. The limit itself is read from the key on every reservation.
   */
  async #ledger(key: SpendKey): Promise<Ledger> {
    for (;;) {
      const period = periodStart(key.limitReset, this.now()).getTime();
      const ledger = this.#ledgers.get(key.hash);
      if (ledger && ledger.period === period) return ledger;
      await this.#load(key.hash, period);
    }
  }

  #load(hash: string, period: number): Promise<void> {
    const name = `${hash}\u0000${period}`;
    let loading = this.#loading.get(name);
    if (!loading) {
      loading = (async () => {
        try {
          const spent = await this.spentSince(hash, new Date(period));
          const ledger = this.#ledgers.get(hash);
          if (!ledger) this.#ledgers.set(hash, { period, spent, reserved: 0 });
          else Object.assign(ledger, { period, spent });
        } finally {
          this.#loading.delete(name);
        }
      })();
      this.#loading.set(name, loading);
    }
    return loading;
  }

  /**
   * Reserves `amount` USD or rejects with 402 when the key's limit would be exceeded. The check and the
   * reservation run in one synchronous step once the ledger is read: no race.
   * An unbounded amount (Infinity: nothing bounds what the request may cost) reserves all that remains,
   * so such a request runs alone against the key's limit.
   */
  async reserve(key: SpendKey, amount: number): Promise<Reservation | undefined> {
    const limit = key.limit;
    if (limit === null) return undefined;
    const ledger = await this.#ledger(key);
    const remaining = Math.max(0, limit - ledger.spent - ledger.reserved);
    const reserved = Number.isFinite(amount) ? amount : remaining;
    if ((!Number.isFinite(amount) && remaining <= 0) || ledger.spent + ledger.reserved + reserved > limit) {
      throw spendLimitError(key, limit, amount, remaining);
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
