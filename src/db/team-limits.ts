import { FlushTimer } from "./flush-timer.ts";
import type { SQL } from "bun";
import { GatewayError } from "../core/errors.ts";
import { describeError, type Logger } from "../core/log.ts";
import { periodStart } from "../core/periods.ts";
import { type Budget, type RateLimits, type RateLimitSettings, type Reservation, rateLimitError, type SpendKey, spendLimitError } from "../core/limits.ts";

/**
 * Team mode's rate and spend limits: exact across every replica on one PostgreSQL. Each check is ONE
 * call of a SQL function (migrations-pg/0001_team_functions.sql; roundhouse_admit as 0030 redefines
 * it) that serializes the key's checks across replicas; what only counts afterwards (tokens used,
 * reservations settled) is written behind, gathered in memory and sent in one statement every
 * `flushMs`. A key with both a rate limit and a spend limit costs two round trips per request: the
 * admission (at the edge, before the request is read) and the reservation (once the router's plan
 * bounds the cost).
 *
 * When the database cannot be reached, a limited key's request fails with 503: it is never admitted
 * unchecked. A key without limits never waits for the database here.
 */

/** How long a check may wait for the database before the request fails with 503. */
const QUERY_TIMEOUT_MS = 5_000;

/** Tokens count only within the sliding minute; older ones still unsent are dropped. */
const WINDOW_MS = 60_000;

/** A settled reservation waiting to be deleted (see WriteBehind). */
interface Settled {
  id: string;
  /** The generation whose record carries the cost; null when nothing was spent (released). */
  generationId: string | null;
  /** After this (the reservation has expired anyway) it is no longer waited for. */
  giveUpAt: number;
}

/** What `TeamRateLimits` and `TeamBudget` share: the database, the clock and the write-behind batch. */
export interface TeamLimitsOptions {
  pg: SQL;
  logger: Logger;
  /** Default 100 ms. */
  flushMs?: number;
  now?: () => number;
}

/** Runs one check against the database; any failure (down, unreachable, too slow) becomes a 503. */
async function checked<T>(work: Promise<T>, what: string, logger: Logger): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${QUERY_TIMEOUT_MS} ms`)), QUERY_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work, timeout]);
  } catch (error) {
    logger.error(`${what} cannot be checked: the database failed`, { error: describeError(error) });
    throw new GatewayError("unavailable", `The key's ${what} cannot be checked: the database (PostgreSQL) cannot be reached. Retry later.`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The write-behind batch: tokens used per (key, second), added to `rate_windows`, and settled
 * reservations, deleted from `spend_reservations`, both in one statement every `flushMs` while there
 * is anything to send. A failed statement keeps everything for the next one.
 *
 * The order of a settlement: a generation's cost reaches `spend_ledgers` by the trigger on its record's
 * INSERT, and records are themselves written behind, in batches (src/db/generations.ts); the pipeline
 * settles BEFORE it queues the record. Deleting the reservation at once would leave a moment in which
 * neither the reservation nor the cost counts against the key, and a burst of reservations then could
 * overshoot its limit. So a reservation settled with a cost is deleted only by a statement that finds
 * its generation's record committed (`EXISTS` on generations: the same transaction as the trigger's
 * ledger update, so the cost is in the ledger); until then it stays, still holding its amount, and is
 * tried again on the next flush. For a short while the key holds both (too strict, never too lax).
 * A record that never arrives leaves the reservation to expire. A released reservation (nothing spent)
 * is deleted at once.
 */
class WriteBehind {
  readonly #tokens = new Map<string, { key: string; second: number; tokens: number }>();
  #settled: Settled[] = [];
  #running: Promise<void> = Promise.resolve();
  #failing = false;
  readonly #timer: FlushTimer;

  constructor(private readonly options: Required<TeamLimitsOptions>) {
    this.#timer = new FlushTimer(options.flushMs, () => this.flush());
  }

  addTokens(key: string, second: number, tokens: number): void {
    const name = `${key}\u0000${second}`;
    const entry = this.#tokens.get(name);
    if (entry) entry.tokens += tokens;
    else this.#tokens.set(name, { key, second, tokens });
    this.#timer.schedule();
  }

  settle(settled: Settled): void {
    this.#settled.push(settled);
    this.#timer.schedule();
  }

  /** Sends what is gathered now (one statement at a time). */
  flush(): Promise<void> {
    this.#running = this.#running.then(() => this.#send());
    return this.#running;
  }

  async #send(): Promise<void> {
    const now = this.options.now();
    const oldest = Math.floor((now - WINDOW_MS) / 1000);
    const tokens = [...this.#tokens.values()].filter((entry) => entry.second > oldest).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.second - b.second));
    const settled = this.#settled.filter((entry) => entry.giveUpAt > now);
    this.#tokens.clear();
    this.#settled = [];
    if (tokens.length === 0 && settled.length === 0) return;
    try {
      const deleted = await this.options.pg`
        WITH added AS (
          INSERT INTO rate_windows (key_hash, second, tokens)
          SELECT t.key, t.second, t.tokens FROM jsonb_to_recordset(${JSON.stringify(tokens)}::text::jsonb) AS t(key text, second integer, tokens double precision)
          ORDER BY t.key, t.second
          ON CONFLICT (key_hash, second) DO UPDATE SET tokens = rate_windows.tokens + excluded.tokens
          RETURNING 1
        ), settled AS (
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(settled)}::text::jsonb) AS s(id text, "generationId" text)
        )
        DELETE FROM spend_reservations r USING settled s
        WHERE r.id = s.id AND (s."generationId" IS NULL OR EXISTS (SELECT 1 FROM generations g WHERE g.id = s."generationId"))
        RETURNING r.id`;
      const gone = new Set((deleted as { id: string }[]).map((row) => row.id));
      // Waiting for their generation's record: tried again on the next flush.
      for (const entry of settled) if (entry.generationId !== null && !gone.has(entry.id)) this.#settled.push(entry);
      this.#failing = false;
    } catch (error) {
      if (!this.#failing) this.options.logger.warn("team limits: writing tokens and settled reservations failed; will retry", { error: describeError(error) });
      this.#failing = true;
      for (const entry of tokens) this.addTokens(entry.key, entry.second, entry.tokens);
      this.#settled.push(...settled);
    }
    if (this.#settled.length > 0) this.#timer.schedule();
  }

  /** Sends what is gathered and stops. */
  async close(): Promise<void> {
    this.#timer.stop();
    await this.flush();
  }
}

/** Rate limits over `rate_windows`: one `roundhouse_admit` call per admission. */
export class TeamRateLimits implements RateLimits {
  /** Keys admitted with a token limit (their last admission): only their tokens are worth writing. */
  readonly #tokenKeys = new Map<string, number>();

  constructor(
    private readonly options: Required<TeamLimitsOptions>,
    private readonly batch: WriteBehind,
  ) {}

  async admit(key: string, limits: RateLimitSettings): Promise<void> {
    const { requestsPerMinute: rpm, tokensPerMinute: tpm } = limits;
    if (rpm === null && tpm === null) return;
    const now = this.options.now();
    if (tpm !== null) this.#tokenKeys.set(key, now);
    const second = Math.floor(now / 1000);
    const rows = (await checked(
      this.options.pg`SELECT refused, refused_limit, retry_after FROM roundhouse_admit(${key}, ${second}::integer, ${rpm}::integer, ${tpm}::integer)`,
      "rate limit",
      this.options.logger,
    )) as { refused: "requests" | "tokens" | null; refused_limit: number | null; retry_after: number | null }[];
    const row = rows[0];
    if (row?.refused) throw rateLimitError(Number(row.refused_limit), row.refused, Number(row.retry_after));
  }

  recordTokens(key: string, tokens: number): void {
    if (tokens <= 0) return;
    const admitted = this.#tokenKeys.get(key);
    if (admitted === undefined) return;
    const now = this.options.now();
    // A key not admitted for a minute has no request left that could use tokens in its window.
    if (now - admitted > 2 * WINDOW_MS) {
      this.#tokenKeys.delete(key);
      return;
    }
    this.batch.addTokens(key, Math.floor(now / 1000), tokens);
  }
}

/** Spend limits over `spend_ledgers` and `spend_reservations`: one `roundhouse_reserve` call per reservation. */
export class TeamBudget implements Budget {
  constructor(
    private readonly options: Required<TeamLimitsOptions>,
    private readonly batch: WriteBehind,
    /** How long a reservation lives: a killed replica's reservations stop counting after it. */
    private readonly ttlMs: number,
  ) {}

  async reserve(key: SpendKey, amount: number, generationId: string): Promise<Reservation | undefined> {
    const limit = key.limit;
    if (limit === null) return undefined;
    const now = this.options.now();
    const id = crypto.randomUUID();
    const period = periodStart(key.limitReset, new Date(now)).toISOString();
    const bounded = Number.isFinite(amount) ? amount : null;
    const rows = (await checked(
      this.options.pg`SELECT reserved, remaining FROM roundhouse_reserve(${key.hash}, ${period}, ${limit}::float8, ${bounded}::float8, ${id}, ${now}::float8, ${now + this.ttlMs}::float8)`,
      "spend limit",
      this.options.logger,
    )) as { reserved: number | null; remaining: number }[];
    const row = rows[0];
    if (!row || row.reserved === null) throw spendLimitError(key, limit, amount, Number(row?.remaining ?? 0));
    const reserved = Number(row.reserved);
    // Nothing is stored for a reservation of nothing.
    return { key: key.hash, amount: reserved, id: reserved > 0 ? id : undefined, generationId };
  }

  settle(reservation: Reservation | undefined, cost: number): void {
    if (!reservation?.id) return;
    this.batch.settle({
      id: reservation.id,
      generationId: cost > 0 ? (reservation.generationId ?? null) : null,
      giveUpAt: this.options.now() + this.ttlMs,
    });
  }

  release(reservation: Reservation | undefined): void {
    this.settle(reservation, 0);
  }
}

/** Both limits over one write-behind batch; `close` sends what it holds. */
export function teamLimits(options: TeamLimitsOptions & { reservationTtlMs: number }): { rateLimits: TeamRateLimits; budget: TeamBudget; close(): Promise<void> } {
  const resolved: Required<TeamLimitsOptions> = { pg: options.pg, logger: options.logger, flushMs: options.flushMs ?? 100, now: options.now ?? Date.now };
  const batch = new WriteBehind(resolved);
  return {
    rateLimits: new TeamRateLimits(resolved, batch),
    budget: new TeamBudget(resolved, batch, options.reservationTtlMs),
    close: () => batch.close(),
  };
}
