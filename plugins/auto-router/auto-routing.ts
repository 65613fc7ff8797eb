import type { CanonicalRequest, CatalogModel, CatalogView } from "../../src/plugins/api.ts";
import { blendedModelPrice, candidateModels, noModels, pricePercentiles, selection, taskScore } from "./model-selection.ts";
import { classifyTask, type TaskFamily } from "./task-classifier.ts";

export type CostTier = "low" | "medium" | "high" | "xhigh" | "max";

export interface AutoRouterConfig {
  allowed_models?: string[];
  excluded_models?: string[];
  cost_tier?: CostTier;
  cost_quality_tradeoff?: number;
  pin_model?: boolean;
}

/** Cost-percentile bands: low [0,20), medium [20,40), high [40,60), xhigh [60,80), max [80,100]. */
export const BANDS: Record<CostTier, [number, number]> = {
  low: [0, 20],
  medium: [20, 40],
  high: [40, 60],
  xhigh: [60, 80],
  max: [80, 100.0001],
};

/**
 * The band a request asks for: `cost_tier` wins; otherwise the deprecated `cost_quality_tradeoff`
 * (0 = quality, 10 = cost; default 9) maps to the percentile (10 - t) × 10.
 */
export function requestedBand(config: AutoRouterConfig): [number, number] {
  if (config.cost_tier) return BANDS[config.cost_tier];
  const tradeoff = config.cost_quality_tradeoff ?? 9;
  const percentile = Math.min(100, (10 - tradeoff) * 10);
  const tier = (Object.keys(BANDS) as CostTier[]).find((name) => percentile >= BANDS[name][0] && percentile < BANDS[name][1]) ?? "max";
  return BANDS[tier];
}

/** Candidates in the band; when the band is empty, those of the nearest non-empty band. */
export function inBand(models: CatalogModel[], band: [number, number]): CatalogModel[] {
  const percentiles = pricePercentiles(models, blendedModelPrice);
  const inside = models.filter((model) => {
    const value = percentiles.get(model.id)!;
    return value >= band[0] && value < band[1];
  });
  if (inside.length > 0 || models.length === 0) return inside;
  const distance = (model: CatalogModel) => {
    const value = percentiles.get(model.id)!;
    return value < band[0] ? band[0] - value : value - band[1];
  };
  const nearest = Math.min(...models.map(distance));
  return models.filter((model) => distance(model) === nearest);
}

export interface AutoRoutingInput {
  catalog: CatalogView;
  request: CanonicalRequest;
  config: AutoRouterConfig;
  /** The model this conversation used last, if remembered. */
  remembered: string | undefined;
  score: (model: CatalogModel, family: TaskFamily) => number;
  /** The router's own model aliases, never candidates themselves. */
  aliases: string[];
}

/**
 * Classifies the task, keeps the eligible models in the requested cost band, ranks them by the
 * task's score, and returns the primary with two fallbacks. A remembered model still in the ranked
 * set is kept first (router stickiness); with `pin_model` it is kept whenever it is still allowed.
 */
export function autoRoute(input: AutoRoutingInput): { model: string; models: string[]; task: string } {
  const { catalog, request, config } = input;
  const eligible = candidateModels(catalog, request, {
    allowed: config.allowed_models,
    excluded: config.excluded_models,
    excludeIds: input.aliases,
  });
  if (eligible.length === 0) throw noModels();
  const { task, family } = classifyTask(request);
  const ranked = inBand(eligible, requestedBand(config)).sort((a, b) => input.score(b, family) - input.score(a, family));
  const pinned = input.remembered
    ? (config.pin_model ? eligible : ranked).find((model) => model.id === input.remembered)
    : undefined;
  const ordered = pinned ? [pinned, ...ranked.filter((model) => model !== pinned)] : ranked;
  return { ...selection(ordered), task };
}

export { taskScore };
