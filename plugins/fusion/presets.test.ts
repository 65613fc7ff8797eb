/**
 * Panels: explicit models over the preset's, the operator's preset over the default, and the default
 * rule per preset drawn from the catalog (strength, price, measured latency).
 */
import { describe, expect, test } from "bun:test";
import { HealthStats } from "../../src/routing/health.ts";
import { catalogOf, ep, providers } from "../../test/helpers/routing.ts";
import { defaultPreset, resolvePanel } from "./presets.ts";

const catalog = catalogOf(providers("host"), [
  { id: "lab/strong", intelligence_index: 70, endpoints: [ep("host", 10, { pricing: { completion: 30 } })] },
  { id: "lab/good", intelligence_index: 60, endpoints: [ep("host", 3, { pricing: { completion: 6 } })] },
  { id: "lab/fair", intelligence_index: 40, endpoints: [ep("host", 1, { pricing: { completion: 2 } })] },
  { id: "lab/unrated", endpoints: [ep("host", 0.5, { pricing: { completion: 1 } })] },
  { id: "lab/old", intelligence_index: 90, deprecated: true, endpoints: [ep("host", 1)] },
  { id: "lab/off", intelligence_index: 95, endpoints: [ep("host", 1, { disabled: true })] },
  { id: "lab/embedder", intelligence_index: 99, endpoints: [ep("host", 0.1, { operations: ["embeddings"] })] },
]);

const endpointOf = (id: string) => catalog.model(id)!.endpoints[0]!.key;

describe("default presets", () => {
  test("general-high: the three strongest chat models (unrated last); deprecated, disabled and non-chat models never", () => {
    expect(defaultPreset("general-high", catalog, new HealthStats())).toEqual({ models: ["lab/strong", "lab/good", "lab/fair"], analyst: "lab/strong" });
  });

  test("general-budget: the three cheapest, with the strongest as analyst", () => {
    expect(defaultPreset("general-budget", catalog, new HealthStats())).toEqual({ models: ["lab/unrated", "lab/fair", "lab/good"], analyst: "lab/strong" });
  });

  test("general-fast: measured latency first, fastest first; unmeasured models after, cheapest first", () => {
    const health = new HealthStats();
    for (let index = 0; index < 5; index++) {
      health.recordSuccess(endpointOf("lab/strong"), { latencyMs: 100 });
      health.recordSuccess(endpointOf("lab/good"), { latencyMs: 900 });
    }
    expect(defaultPreset("general-fast", catalog, health)).toEqual({ models: ["lab/strong", "lab/good", "lab/unrated"], analyst: "lab/strong" });
  });

  test("a catalog without chat models has no panel", () => {
    const empty = catalogOf(providers("host"), [{ id: "lab/embedder", endpoints: [ep("host", 1, { operations: ["embeddings"] })] }]);
    expect(defaultPreset("general-high", empty, new HealthStats())).toEqual({ models: [], analyst: undefined });
  });
});

describe("resolvePanel", () => {
  const settings = { presets: { "general-budget": { analysis_models: ["op/a", "op/b"], model: "op/judge" }, "general-high": { analysis_models: ["op/c"] } } };

  test("the operator's preset, general-high when the request names none; a preset without analyst gets the default one", () => {
    expect(resolvePanel({ preset: "general-budget" }, settings, catalog, new HealthStats())).toEqual({ models: ["op/a", "op/b"], analyst: "op/judge" });
    expect(resolvePanel({}, settings, catalog, new HealthStats())).toEqual({ models: ["op/c"], analyst: "lab/strong" });
  });

  test("explicit analysis_models and model win over any preset", () => {
    const panel = resolvePanel({ preset: "general-budget", analysis_models: ["x/one"], model: "x/judge" }, settings, catalog, new HealthStats());
    expect(panel).toEqual({ models: ["x/one"], analyst: "x/judge" });
    expect(resolvePanel({ analysis_models: ["x/one"] }, {}, catalog, new HealthStats())).toEqual({ models: ["x/one"], analyst: "lab/strong" });
  });
});
