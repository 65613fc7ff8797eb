/**
 * What our own traffic says about each endpoint: latency (time to first token) and throughput (output
 * tokens per second) over a rolling window, recent failures, Retry-After cool-downs, and a bench for
 * endpoints that keep cutting their streams. Everything is in memory and bounded.
 */

export interface Percentiles {
  p50: number;
  p75: number;
  p90: number;
  p99: number;
}

interface Sample {
  at: number;
  latencyMs: number;
  throughput: number | undefined;
}

interface EndpointHealth {
  /** The window's samples are samples[first…]: dropping old ones moves `first`, compacted now and then. */
  samples: Sample[];
  first: number;
  lastFailureAt: number | undefined;
  coolUntil: number | undefined;
  truncations: number;
  benchedUntil: number | undefined;
  successes: number;
  failures: number;
}

/**
 * What one replica saw of an endpoint, for the others (team mode's routing bus): attempts that succeeded
 * and failed, and how long from now the endpoint cools down (a Retry-After or a bench), if it does.
 */
export interface HealthObservation {
  successes: number;
  failures: number;
  coolForMs?: number | undefined;
}

/** Hears each observation this replica makes itself (never those applied with `applyRemote`). */
export type HealthObserver = (key: string, observation: HealthObservation) => void;

/** Why routing tries an endpoint last (null: it does not), and until when (ms since the epoch). */
export interface Avoidance {
  reason: "benched" | "cooling_down" | "recent_failure" | null;
  until: number | undefined;
}

export interface HealthOptions {
  windowMs?: number;
  /** An endpoint with a failure this recent is "unstable" for balancing. */
  failureWindowMs?: number;
  /** Consecutive truncated streams that bench an endpoint, and for how long. */
  truncationLimit?: number;
  benchMs?: number;
  maxSamples?: number;
  now?: () => number;
}

function percentile(sorted: number[], fraction: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index]!;
}

function percentiles(values: number[]): Percentiles | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p75: percentile(sorted, 0.75), p90: percentile(sorted, 0.9), p99: percentile(sorted, 0.99) };
}

export class HealthStats {
  readonly #endpoints = new Map<string, EndpointHealth>();
  readonly #windowMs: number;
  readonly #failureWindowMs: number;
  readonly #truncationLimit: number;
  readonly #benchMs: number;
  readonly #maxSamples: number;
  readonly now: () => number;
  #observer: HealthObserver | undefined;

  constructor(options: HealthOptions = {}) {
    this.#windowMs = options.windowMs ?? 5 * 60_000;
    this.#failureWindowMs = options.failureWindowMs ?? 30_000;
    this.#truncationLimit = options.truncationLimit ?? 3;
    this.#benchMs = options.benchMs ?? 5 * 60_000;
    this.#maxSamples = options.maxSamples ?? 2_000;
    this.now = options.now ?? Date.now;
  }

  #get(key: string): EndpointHealth {
    let health = this.#endpoints.get(key);
    if (!health) {
      health = { samples: [], first: 0, lastFailureAt: undefined, coolUntil: undefined, truncations: 0, benchedUntil: undefined, successes: 0, failures: 0 };
      this.#endpoints.set(key, health);
    }
    return health;
  }

  #prune(health: EndpointHealth): void {
    const oldest = this.now() - this.#windowMs;
    const { samples } = health;
    let first = health.first;
    while (first < samples.length && samples[first]!.at < oldest) first++;
    if (samples.length - first > this.#maxSamples) first = samples.length - this.#maxSamples;
    // Compacting only once the dropped part is as large as the kept one keeps each call O(1) amortised.
    if (first > 0 && first * 2 >= samples.length) {
      health.samples = samples.slice(first);
      first = 0;
    }
    health.first = first;
  }

  #window(health: EndpointHealth): Sample[] {
    this.#prune(health);
    return health.first === 0 ? health.samples : health.samples.slice(health.first);
  }

  /** Tells `observer` of every success, failure and cool-down this replica records from now on. */
  observe(observer: HealthObserver): void {
    this.#observer = observer;
  }

  /**
   * What another replica saw: counted like our own observations (its failures make the endpoint
   * unstable here, its cool-down cools it here) but not told to the observer again.
   */
  applyRemote(key: string, observation: HealthObservation): void {
    const health = this.#get(key);
    health.successes += observation.successes;
    if (observation.failures > 0) {
      health.failures += observation.failures;
      health.lastFailureAt = this.now();
    }
    if (observation.coolForMs !== undefined && observation.coolForMs > 0) {
      health.coolUntil = Math.max(health.coolUntil ?? 0, this.now() + observation.coolForMs);
    }
  }

  /** Forgets everything (an operator's reset, and tests). */
  reset(): void {
    this.#endpoints.clear();
  }

  /** A served request: time to first token, and output tokens per second when known. */
  recordSuccess(key: string, sample: { latencyMs: number; throughput?: number | undefined }): void {
    const health = this.#get(key);
    health.samples.push({ at: this.now(), latencyMs: sample.latencyMs, throughput: sample.throughput });
    health.successes++;
    health.truncations = 0;
    this.#prune(health);
    this.#observer?.(key, { successes: 1, failures: 0 });
  }

  /** A failed attempt; a Retry-After hint cools the endpoint down until it passes. */
  recordFailure(key: string, retryAfterSeconds?: number): void {
    const health = this.#get(key);
    health.lastFailureAt = this.now();
    health.failures++;
    if (retryAfterSeconds !== undefined && retryAfterSeconds > 0) {
      const until = this.now() + retryAfterSeconds * 1000;
      health.coolUntil = Math.max(health.coolUntil ?? 0, until);
    }
    this.#observer?.(key, { successes: 0, failures: 1, coolForMs: retryAfterSeconds !== undefined && retryAfterSeconds > 0 ? retryAfterSeconds * 1000 : undefined });
  }

  /**
   * A stream the endpoint cut after it started. From the third consecutive cut on (a success resets
   * the count), every cut benches the endpoint.
   */
  recordTruncation(key: string): void {
    const health = this.#get(key);
    health.lastFailureAt = this.now();
    health.failures++;
    health.truncations++;
    const benched = health.truncations >= this.#truncationLimit;
    if (benched) health.benchedUntil = this.now() + this.#benchMs;
    this.#observer?.(key, { successes: 0, failures: 1, coolForMs: benched ? this.#benchMs : undefined });
  }

  /** No failure within the last 30 seconds, not cooling down after a Retry-After, not benched. */
  isStable(key: string): boolean {
    const health = this.#endpoints.get(key);
    if (!health) return true;
    const now = this.now();
    if (health.lastFailureAt !== undefined && now - health.lastFailureAt < this.#failureWindowMs) return false;
    return !this.isCoolingDown(key);
  }

  isCoolingDown(key: string): boolean {
    const health = this.#endpoints.get(key);
    if (!health) return false;
    const now = this.now();
    return (health.coolUntil !== undefined && health.coolUntil > now) || (health.benchedUntil !== undefined && health.benchedUntil > now);
  }

  /**
   * Whether routing avoids an endpoint and why, most binding reason first: benched after cut streams,
   * cooling down after a Retry-After, or failed within the failure window; and until when (ms epoch).
   */
  avoidance(key: string): Avoidance {
    const health = this.#endpoints.get(key);
    const now = this.now();
    if (!health) return { reason: null, until: undefined };
    if (health.benchedUntil !== undefined && health.benchedUntil > now) return { reason: "benched", until: Math.max(health.benchedUntil, health.coolUntil ?? 0) };
    if (health.coolUntil !== undefined && health.coolUntil > now) return { reason: "cooling_down", until: health.coolUntil };
    if (health.lastFailureAt !== undefined && now - health.lastFailureAt < this.#failureWindowMs) return { reason: "recent_failure", until: health.lastFailureAt + this.#failureWindowMs };
    return { reason: null, until: undefined };
  }

  lastFailureAt(key: string): number | undefined {
    return this.#endpoints.get(key)?.lastFailureAt;
  }

  /** Seconds until a cooling (or benched) endpoint may be tried again. */
  retryAfter(key: string): number | undefined {
    const health = this.#endpoints.get(key);
    if (!health) return undefined;
    const until = Math.max(health.coolUntil ?? 0, health.benchedUntil ?? 0);
    const now = this.now();
    return until > now ? Math.ceil((until - now) / 1000) : undefined;
  }

  latency(key: string): Percentiles | null {
    const health = this.#endpoints.get(key);
    if (!health) return null;
    return percentiles(this.#window(health).map((sample) => sample.latencyMs / 1000));
  }

  throughput(key: string): Percentiles | null {
    const health = this.#endpoints.get(key);
    if (!health) return null;
    return percentiles(this.#window(health).flatMap((sample) => (sample.throughput === undefined ? [] : [sample.throughput])));
  }

  /** Attempts seen since the start (or the last reset), successful or not. */
  attempts(key: string): number {
    const health = this.#endpoints.get(key);
    return health ? health.successes + health.failures : 0;
  }

  /** Share of attempts that succeeded (1 for an endpoint never tried). */
  successRate(key: string): number {
    const health = this.#endpoints.get(key);
    if (!health || health.successes + health.failures === 0) return 1;
    return health.successes / (health.successes + health.failures);
  }
}
