import type { Pricing } from "./catalog-types.ts";
import type { Usage } from "./usage.ts";

/** Rounds to a nano-dollar so sums stay stable and JSON stays short. */
function nano(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}

/**
 * USD cost of one answer by meter: uncached prompt tokens, cache reads and cache writes each at their
 * own price, completion tokens (reasoning included) at the completion price, input images, generated
 * images, audio seconds, characters, search units and video seconds at theirs, plus the per-request
 * price. Token prices are per million tokens; the others per unit. Meters at zero are left out.
 */
export function costBreakdown(usage: Usage, pricing: Pricing, inputImages = 0): Record<string, number> {
  const uncached = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
  const costs: Record<string, number> = {};
  const add = (meter: string, usd: number) => {
    if (usd > 0) costs[meter] = nano(usd);
  };
  add("prompt", (uncached * pricing.prompt) / 1_000_000);
  add("cache_read", (usage.cacheReadTokens * pricing.cacheRead) / 1_000_000);
  add("cache_write", (usage.cacheWriteTokens * pricing.cacheWrite) / 1_000_000);
  add("completion", (usage.outputTokens * pricing.completion) / 1_000_000);
  add("request", pricing.request);
  add("image", inputImages * pricing.image);
  add("image_output", (usage.images ?? 0) * pricing.imageOutput);
  add("audio_second", (usage.audioSeconds ?? 0) * pricing.audioSecond);
  add("character", (usage.characters ?? 0) * pricing.character);
  add("search_unit", (usage.searchUnits ?? 0) * pricing.searchUnit);
  add("video_second", (usage.videoSeconds ?? 0) * pricing.videoSecond);
  return costs;
}

/** USD cost of one answer: the sum of its meters' costs (see costBreakdown). */
export function costOf(usage: Usage, pricing: Pricing, inputImages = 0): number {
  const uncached = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
  const tokens =
    uncached * pricing.prompt + usage.cacheReadTokens * pricing.cacheRead + usage.cacheWriteTokens * pricing.cacheWrite + usage.outputTokens * pricing.completion;
  let total = tokens / 1_000_000 + pricing.request + inputImages * pricing.image;
  if (usage.images) total += usage.images * pricing.imageOutput;
  if (usage.audioSeconds) total += usage.audioSeconds * pricing.audioSecond;
  if (usage.characters) total += usage.characters * pricing.character;
  if (usage.searchUnits) total += usage.searchUnits * pricing.searchUnit;
  if (usage.videoSeconds) total += usage.videoSeconds * pricing.videoSecond;
  return nano(total);
}

/** The meters a generation used, zero ones left out (for the record). */
export function nonZeroMeters(usage: Usage): Partial<Usage> {
  const meters: Partial<Usage> = {};
  // Field by field: this runs for every record.
  if (usage.inputTokens) meters.inputTokens = usage.inputTokens;
  if (usage.outputTokens) meters.outputTokens = usage.outputTokens;
  if (usage.cacheReadTokens) meters.cacheReadTokens = usage.cacheReadTokens;
  if (usage.cacheWriteTokens) meters.cacheWriteTokens = usage.cacheWriteTokens;
  if (usage.reasoningTokens) meters.reasoningTokens = usage.reasoningTokens;
  if (usage.images) meters.images = usage.images;
  if (usage.audioSeconds) meters.audioSeconds = usage.audioSeconds;
  if (usage.characters) meters.characters = usage.characters;
  if (usage.searchUnits) meters.searchUnits = usage.searchUnits;
  if (usage.videoSeconds) meters.videoSeconds = usage.videoSeconds;
  return meters;
}

/** How an endpoint charges one request: the total and the cost per meter of a usage. */
export interface Charge {
  total(usage: Usage): number;
  byMeter(usage: Usage): Record<string, number>;
}

/** The charge of an endpoint for a request with `inputImages` images in its input. */
export function chargeFor(pricing: Pricing, inputImages = 0): Charge {
  return {
    total: (usage) => costOf(usage, pricing, inputImages),
    byMeter: (usage) => costBreakdown(usage, pricing, inputImages),
  };
}
