import type { Pricing } from "./catalog-types.ts";
import type { Usage } from "./canonical.ts";

/**
 * USD cost of one answer: uncached prompt tokens, cache reads and cache writes each at their own price,
 * completion tokens (reasoning included) at the completion price, plus the per-request and per-image
 * prices. Prices are per million tokens.
 */
export function costOf(usage: Usage, pricing: Pricing, images = 0): number {
  const uncached = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
  const tokens =
    uncached * pricing.prompt +
    usage.cacheReadTokens * pricing.cacheRead +
    usage.cacheWriteTokens * pricing.cacheWrite +
    usage.outputTokens * pricing.completion;
  const total = tokens / 1_000_000 + pricing.request + images * pricing.image;
  // Round to a nano-dollar so sums stay stable and JSON stays short.
  return Math.round(total * 1e9) / 1e9;
}
