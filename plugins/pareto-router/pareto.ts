import { type CanonicalRequest, type CatalogModel, type CatalogView, GatewayError } from "../../src/plugins/api.ts";
import { candidateModels, promptPrice, selection } from "../auto-router/model-selection.ts";

export interface ParetoConfig {
  max_price?: number;
  min_coding_score?: number;
  price_source?: "prompt" | "weighted_avg";
}

export type Tier = "high" | "medium" | "low";
const TIERS: Tier[] = ["high", "medium", "low"];

export function tierOf(score: number | undefined): Tier {
  if (score === undefined) return "high";
  return score >= 0.66 ? "high" : score >= 0.33 ? "medium" : "low";
}

/** Each model's coding percentile (0–1) among the candidates, ties sharing the lower rank. */
export function codingPercentiles(models: CatalogModel[]): Map<string, number> {
  const sorted = [...models].sort((a, b) => (a.codingIndex ?? 0) - (b.codingIndex ?? 0));
  return new Map(
    sorted.map((model, index) => {
      const first = sorted.findIndex((other) => (other.codingIndex ?? 0) === (model.codingIndex ?? 0));
      return [model.id, sorted.length === 1 ? 1 : Math.min(index, first) / (sorted.length - 1)];
    }),
  );
}

/** Models no other model beats on both coding index (higher) and price (lower). */
export function paretoFrontier(models: CatalogModel[], price: (model: CatalogModel) => number): Set<string> {
  const frontier = new Set<string>();
  for (const model of models) {
    const dominated = models.some(
      (other) =>
        other !== model &&
        (other.codingIndex ?? 0) >= (model.codingIndex ?? 0) &&
        price(other) <= price(model) &&
        ((other.codingIndex ?? 0) > (model.codingIndex ?? 0) || price(other) < price(model)),
    );
    if (!dominated) frontier.add(model.id);
  }
  return frontier;
}

/**
 * The Pareto router. With `max_price`: the best frontier model at or below the cap, then cheaper
 * frontier models, then non-frontier ones (404 when none fits). Otherwise: the coding tier of
 * `min_coding_score` (≥ 0.66 high, ≥ 0.33 medium, else low; default high) by price ascending, stepping
 * to a neighbouring tier when empty. The first is the primary; the next two are fallbacks.
 */
export function paretoRoute(
  catalog: CatalogView,
  request: CanonicalRequest,
  config: ParetoConfig,
  options: { aliases: string[]; weightedPrice: (modelId: string) => number | undefined },
): { model: string; models: string[] } {
  const candidates = candidateModels(catalog, request, { excludeIds: options.aliases }).filter((model) => model.codingIndex !== null);
  if (candidates.length === 0) throw new GatewayError("not_found", "No models with a coding score are available to the Pareto router");
  const price = (model: CatalogModel) =>
    config.price_source === "weighted_avg" ? (options.weightedPrice(model.id) ?? promptPrice(model)) : promptPrice(model);
  const byCoding = (a: CatalogModel, b: CatalogModel) => (b.codingIndex ?? 0) - (a.codingIndex ?? 0) || price(a) - price(b);

  if (config.max_price !== undefined) {
    const cap = config.max_price;
    const affordable = candidates.filter((model) => price(model) <= cap);
    if (affordable.length === 0) {
      throw new GatewayError("not_found", `No model fits the Pareto router's max_price of ${cap} USD per million input tokens`);
    }
    const frontier = paretoFrontier(candidates, price);
    const onFrontier = affordable.filter((model) => frontier.has(model.id)).sort(byCoding);
    const rest = affordable.filter((model) => !frontier.has(model.id)).sort(byCoding);
    return selection([...onFrontier, ...rest]);
  }

  const percentiles = codingPercentiles(candidates);
  const wanted = tierOf(config.min_coding_score);
  const inTier = (tier: Tier) =>
    candidates.filter((model) => tierOf(percentiles.get(model.id)) === tier).sort((a, b) => price(a) - price(b) || byCoding(a, b));
  const index = TIERS.indexOf(wanted);
  const order = [index, index + 1, index - 1, index + 2, index - 2].filter((position) => position >= 0 && position < TIERS.length);
  for (const position of order) {
    const models = inTier(TIERS[position]!);
    if (models.length > 0) return selection(models);
  }
  throw new GatewayError("not_found", "No models are available to the Pareto router");
}
