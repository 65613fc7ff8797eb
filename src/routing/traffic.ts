import type { Usage } from "../core/canonical.ts";
import type { Pricing } from "../core/catalog-types.ts";
import { ExpiringMap, type ExpiringMapStats } from "./expiring-map.ts";

/**
 * Traffic-weighted effective input price per model, from our own traffic: what the input tokens of
 * served requests actually cost (cache reads and writes at their own prices), per million tokens.
 */
export class TrafficStats {
  readonly #totals = new Map<string, { cost: number; tokens: number }>();

  record(modelId: string, usage: Usage, pricing: Pricing): void {
    if (usage.inputTokens <= 0) return;
    const uncached = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
    const cost = uncached * pricing.prompt + usage.cacheReadTokens * pricing.cacheRead + usage.cacheWriteTokens * pricing.cacheWrite;
    const total = this.#totals.get(modelId) ?? { cost: 0, tokens: 0 };
    total.cost += cost;
    total.tokens += usage.inputTokens;
    this.#totals.set(modelId, total);
  }

  weightedInputPrice(modelId: string): number | undefined {
    const total = this.#totals.get(modelId);
    return total && total.tokens > 0 ? total.cost / total.tokens : undefined;
  }
}

/**
 * Remembered router choices per conversation, each with its own time to live (at most `maxTtlMs`).
 * Conversations are chosen by clients, so the entries are bounded: past `maxEntries` the least recently
 * written one is dropped.
 */
export class RouterMemory {
  readonly #entries: ExpiringMap<string>;

  constructor(
    private readonly options: { maxEntries: number; maxTtlMs: number } = { maxEntries: 100_000, maxTtlMs: 24 * 3_600_000 },
    now: () => number = Date.now,
  ) {
    this.#entries = new ExpiringMap(options.maxEntries, now);
  }

  get(key: string): string | undefined {
    return this.#entries.get(key);
  }

  set(key: string, value: string, ttlMs: number): void {
    this.#entries.set(key, value, Math.min(ttlMs, this.options.maxTtlMs));
  }

  get stats(): ExpiringMapStats {
    return this.#entries.stats;
  }
}
