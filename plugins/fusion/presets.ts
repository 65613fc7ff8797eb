/**
 * Which models form the panel and which one analyses: the request's `analysis_models` and `model`,
 * else the preset's (`preset`, `general-high` when none is named), where a preset is what the operator
 * set under `tools.fusion.presets.<name>`, else a default drawn from the catalog:
 *
 * - candidates: chat models that are not deprecated, produce text and have an enabled chat endpoint;
 * - the analyst of every default preset: the strongest candidate (highest `intelligence_index`; models
 *   without one rank last; ties by id), as the reference gives each preset a frontier analyst;
 * - `general-high`: the three strongest candidates;
 * - `general-budget`: the three cheapest (prompt plus completion price of the model's cheapest chat
 *   endpoint), ties broken by strength;
 * - `general-fast`: the three with the lowest median latency (of their fastest chat endpoint, from
 *   this gateway's health statistics), models without measurements after those with, cheapest first.
 */
import type { CatalogModel, CatalogView, Endpoint, HealthView } from "../../src/plugins/api.ts";
import type { FusionParameters, FusionSettings, PresetName } from "./schemas.ts";

/** How many models a default panel has (the reference's default panel is three). */
export const DEFAULT_PANEL_SIZE = 3;

/** The preset a request without `preset` gets: the reference's "Quality" panel. */
export const DEFAULT_PRESET: PresetName = "general-high";

/** The models of one fusion run; `analyst` is undefined only when the catalog has no chat model. */
export interface Panel {
  models: string[];
  analyst: string | undefined;
}

function chatEndpoints(model: CatalogModel): Endpoint[] {
  return model.endpoints.filter((endpoint) => !endpoint.disabled && endpoint.operations.has("chat"));
}

function candidates(catalog: CatalogView): CatalogModel[] {
  return [...catalog.models.values()].filter((model) => !model.deprecated && model.outputModalities.includes("text") && chatEndpoints(model).length > 0);
}

function byStrength(a: CatalogModel, b: CatalogModel): number {
  return (b.intelligenceIndex ?? -Infinity) - (a.intelligenceIndex ?? -Infinity) || a.id.localeCompare(b.id);
}

function price(model: CatalogModel): number {
  return Math.min(...chatEndpoints(model).map((endpoint) => endpoint.pricing.prompt + endpoint.pricing.completion));
}

function byPrice(a: CatalogModel, b: CatalogModel): number {
  return price(a) - price(b) || byStrength(a, b);
}

function medianLatency(model: CatalogModel, health: HealthView): number {
  const measured = chatEndpoints(model).flatMap((endpoint) => {
    const latency = health.latency(endpoint.key);
    return latency ? [latency.p50] : [];
  });
  return measured.length > 0 ? Math.min(...measured) : Infinity;
}

/** The default panel and analyst of a preset, from the catalog (the rule in this file's comment). */
export function defaultPreset(preset: PresetName, catalog: CatalogView, health: HealthView): Panel {
  const models = candidates(catalog);
  const strongest = [...models].sort(byStrength);
  let panel: CatalogModel[];
  switch (preset) {
    case "general-high":
      panel = strongest;
      break;
    case "general-budget":
      panel = [...models].sort(byPrice);
      break;
    case "general-fast": {
      const latency = new Map(models.map((model) => [model.id, medianLatency(model, health)]));
      panel = [...models].sort((a, b) => {
        const [left, right] = [latency.get(a.id)!, latency.get(b.id)!];
        if (left !== right) return left === Infinity ? 1 : right === Infinity ? -1 : left - right;
        return byPrice(a, b);
      });
      break;
    }
  }
  return { models: panel.slice(0, DEFAULT_PANEL_SIZE).map((model) => model.id), analyst: strongest[0]?.id };
}

/** The panel and analyst of a request: explicit models over the preset's, the operator's preset over the default one. */
export function resolvePanel(parameters: FusionParameters, settings: FusionSettings, catalog: CatalogView, health: HealthView): Panel {
  const preset = parameters.preset ?? DEFAULT_PRESET;
  const configured = settings.presets?.[preset];
  let fallback: Panel | undefined;
  const defaults = () => (fallback ??= defaultPreset(preset, catalog, health));
  return {
    models: parameters.analysis_models ?? configured?.analysis_models ?? defaults().models,
    analyst: parameters.model ?? configured?.model ?? defaults().analyst,
  };
}
