import { type CanonicalRequest, type CatalogModel, type CatalogView, GatewayError } from "../../src/plugins/api.ts";
import type { TaskFamily } from "./task-classifier.ts";

/** Shared pieces of the router plugins: candidate sets, globs, price percentiles, ranking scores. */

export const NO_MODELS_MESSAGE = "No models match your request and model restrictions";

/** `*` matches any run of characters; everything else is literal; matching is case-insensitive. */
export function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${escaped}$`, "i");
}

export function matchesAny(id: string, patterns: RegExp[]): boolean {
  return patterns.some((pattern) => pattern.test(id));
}

/** The cheapest prompt price over a model's enabled endpoints (USD per million input tokens). */
export function promptPrice(model: CatalogModel): number {
  const prices = model.endpoints.filter((endpoint) => !endpoint.disabled).map((endpoint) => endpoint.pricing.prompt);
  return prices.length > 0 ? Math.min(...prices) : Number.POSITIVE_INFINITY;
}

/** Blended price for cost bands: the cheapest prompt plus completion price of the model. */
export function blendedModelPrice(model: CatalogModel): number {
  const prices = model.endpoints
    .filter((endpoint) => !endpoint.disabled)
    .map((endpoint) => endpoint.pricing.prompt + endpoint.pricing.completion);
  return prices.length > 0 ? Math.min(...prices) : Number.POSITIVE_INFINITY;
}

/**
 * Models a router may choose: not deprecated, with an enabled endpoint, able to take the request's
 * input (images), and allowed by the allow and exclude globs (exclusions applied after the allow list).
 */
export function candidateModels(
  catalog: CatalogView,
  request: CanonicalRequest,
  options: { allowed?: string[] | undefined; excluded?: string[] | undefined; excludeIds?: string[] },
): CatalogModel[] {
  const allowed = options.allowed?.length ? options.allowed.map(globToRegExp) : undefined;
  const excluded = (options.excluded ?? []).map(globToRegExp);
  const needsImages = request.messages.some((message) => message.content.some((part) => part.type === "image"));
  return [...catalog.models.values()].filter((model) => {
    if (options.excludeIds?.includes(model.id)) return false;
    if (model.deprecated || !model.endpoints.some((endpoint) => !endpoint.disabled)) return false;
    if (needsImages && !model.inputModalities.includes("image")) return false;
    if (allowed && !matchesAny(model.id, allowed)) return false;
    return !matchesAny(model.id, excluded);
  });
}

/** Each model's price percentile (0–100) among the candidates; ties share the lower rank. */
export function pricePercentiles(models: CatalogModel[], price: (model: CatalogModel) => number): Map<string, number> {
  const sorted = [...models].sort((a, b) => price(a) - price(b));
  const result = new Map<string, number>();
  sorted.forEach((model, index) => {
    const first = sorted.findIndex((other) => price(other) === price(model));
    result.set(model.id, sorted.length === 1 ? 0 : (Math.min(index, first) / (sorted.length - 1)) * 100);
  });
  return result;
}

/** The score a router ranks by for a task family: the index that matters, newer models winning ties. */
export function taskScore(model: CatalogModel, family: TaskFamily): number {
  const intelligence = model.intelligenceIndex ?? 0;
  let score: number;
  switch (family) {
    case "code":
      score = model.codingIndex ?? intelligence * 0.8;
      break;
    case "agentic":
      score = (model.agenticIndex ?? intelligence * 0.8) * (0.5 + 0.5 * (model.toolSuccessRate ?? 0.8));
      break;
    default:
      score = intelligence;
  }
  return score + (model.created ?? 0) / 1e12;
}

export function noModels(): GatewayError {
  return new GatewayError("not_found", NO_MODELS_MESSAGE);
}

/** The primary model and up to `fallbacks` more, as a router's selection. */
export function selection(models: CatalogModel[], fallbacks = 2): { model: string; models: string[] } {
  const chosen = models.slice(0, fallbacks + 1).map((model) => model.id);
  return { model: chosen[0]!, models: chosen };
}
