import { describeError, type Logger } from "../core/log.ts";

/** A store whose rows end (expire, are revoked): `prune` deletes those that ended before `before` (ISO 8601) and says how many. */
export interface Prunable {
  prune(before: string): Promise<number>;
}

/** What housekeeping prunes and how often. */
export interface HousekeepingOptions {
  /** The stores to prune, by the name their count is logged under. */
  targets: Record<string, Prunable>;
  logger: Logger;
  /** Between two runs; default one hour. */
  intervalMs?: number;
  /**
   * How long an ended row is kept before it is pruned; default one day, so a replay soon after the end
   * is still recognised as one (a reused OAuth code still disables the key its first exchange issued).
   */
  retentionMs?: number;
  now?: () => number;
}

/** One hour between runs. */
export const HOUSEKEEPING_INTERVAL_MS = 60 * 60_000;
/** Ended rows are kept one day. */
export const HOUSEKEEPING_RETENTION_MS = 24 * 60 * 60_000;

/**
 * The periodic pruning of rows nothing will read again: expired or revoked sign-in sessions and
 * expired OAuth codes. Started with the server (a run at once, then every interval, on a timer that
 * never keeps the process alive) and stopped before the database closes. Each store is pruned on its
 * own: one failing is logged and the others still run.
 */
export class Housekeeping {
  readonly #options: HousekeepingOptions;
  readonly #intervalMs: number;
  readonly #retentionMs: number;
  readonly #now: () => number;
  #timer: ReturnType<typeof setInterval> | undefined;
  #run: Promise<unknown> | undefined;

  constructor(options: HousekeepingOptions) {
    this.#options = options;
    this.#intervalMs = options.intervalMs ?? HOUSEKEEPING_INTERVAL_MS;
    this.#retentionMs = options.retentionMs ?? HOUSEKEEPING_RETENTION_MS;
    this.#now = options.now ?? Date.now;
  }

  /** Runs once now and then every interval; calling it again while started does nothing. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#runBehind(), this.#intervalMs);
    this.#timer.unref?.();
    this.#runBehind();
  }

  /** Stops the timer and waits for a run in flight (so the database can close after it). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#run;
  }

  /** One run: prunes every store of the rows that ended more than the retention ago; returns the counts (-1: failed). */
  async runOnce(): Promise<Record<string, number>> {
    const before = new Date(this.#now() - this.#retentionMs).toISOString();
    const counts: Record<string, number> = {};
    for (const [name, target] of Object.entries(this.#options.targets)) {
      try {
        counts[name] = await target.prune(before);
      } catch (error) {
        counts[name] = -1;
        this.#options.logger.error("housekeeping failed", { target: name, error: describeError(error) });
      }
    }
    if (Object.values(counts).some((count) => count > 0)) this.#options.logger.info("housekeeping pruned", { before, ...counts });
    return counts;
  }

  /** Starts a run unless one is in flight. */
  #runBehind(): void {
    if (this.#run !== undefined) return;
    this.#run = this.runOnce().finally(() => (this.#run = undefined));
  }
}
