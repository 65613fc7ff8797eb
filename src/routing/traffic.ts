import type { Usage } from "../core/canonical.ts";
import type { Pricing } from "./catalog.ts";

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

/** Remembered router choices per conversation, each with its own time to live. */
export class RouterMemory {
  readonly #entries = new Map<string, { value: string; expires: number }>();
  #writes = 0;

  constructor(private readonly now: () => number = Date.now) {}

  get(key: string): string | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: string, ttlMs: number): void {
    this.#entries.set(key, { value, expires: this.now() + ttlMs });
    if (++this.#writes % 1024 === 0) {
      const now = this.now();
      for (const [entryKey, entry] of this.#entries) if (entry.expires <= now) this.#entries.delete(entryKey);
    }
  }
}
