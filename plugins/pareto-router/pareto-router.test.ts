/**
 * The Pareto router: min_coding_score tiers by price, a primary and two fallbacks, empty tiers stepping
 * to a neighbour, the max_price frontier mode with price_source prompt or weighted_avg, the 404s, and
 * its 5-minute stickiness.
 */
import { describe, expect, test } from "bun:test";
import { emptyUsage } from "../../src/plugins/api.ts";
import { PluginHost } from "../../src/plugins/host.ts";
import { paretoFrontier, tierOf } from "./pareto.ts";
import { promptPrice } from "../auto-router/model-selection.ts";
import { catalogOf, ep, type Json, providers, req, routerContext, thrown } from "../../test/helpers/routing.ts";
import paretoRouter from "./index.ts";

/**
 * Ten models c/m0 … c/m9 with coding 10 … 100: coding percentiles i/9, so low = m0–m2, medium =
 * m3–m5 (0.333 ≥ 0.33), high = m6–m9 (0.667 ≥ 0.66). The Pareto frontier (coding up, price down) is
 * m1, m2, m4, m5, m8, m9. c/nocode has no coding score and is never a candidate.
 */
const PRICES = [0.3, 0.1, 0.2, 2, 1, 1.5, 8, 5, 3, 10];
const catalog = catalogOf(providers("sim"), [
  ...PRICES.map((price, i) => ({
    id: `c/m${i}`,
    coding_index: (i + 1) * 10,
    endpoints: [ep("sim", price, { pricing: { cache_read: i === 9 ? 1 : i === 8 ? 0.3 : price } })],
  })),
  { id: "c/nocode", endpoints: [ep("sim", 0.01)] },
]);
const route = (config: Json = {}, context = routerContext(catalog)) =>
  paretoRouter.selectCandidates!(req("openrouter/pareto-code"), config, context) as { model: string; models: string[] };

describe("tiers", () => {
  test("min_coding_score: >= 0.66 high, >= 0.33 medium, else low; omitted = high", () => {
    expect([tierOf(undefined), tierOf(1), tierOf(0.66), tierOf(0.659), tierOf(0.33), tierOf(0.329), tierOf(0)]).toEqual([
      "high",
      "high",
      "high",
      "medium",
      "medium",
      "low",
      "low",
    ]);
  });
  test("within the tier, price ascending: the primary and the next two as fallbacks", () => {
    expect(route()).toEqual({ model: "c/m8", models: ["c/m8", "c/m7", "c/m6"] });
    expect(route({ min_coding_score: 0.66 }).models).toEqual(["c/m8", "c/m7", "c/m6"]);
    expect(route({ min_coding_score: 0.5 }).models).toEqual(["c/m4", "c/m5", "c/m3"]);
    expect(route({ min_coding_score: 0.33 }).models).toEqual(["c/m4", "c/m5", "c/m3"]);
    expect(route({ min_coding_score: 0.1 }).models).toEqual(["c/m1", "c/m2", "c/m0"]);
  });
  test("an empty tier steps to a neighbouring one", () => {
    const two = catalogOf(providers("sim"), [
      { id: "c/weak", coding_index: 10, endpoints: [ep("sim", 1)] },
      { id: "c/strong", coding_index: 90, endpoints: [ep("sim", 5)] },
    ]);
    expect(route({ min_coding_score: 0.5 }, routerContext(two)).models).toEqual(["c/weak"]);
    const tied = catalogOf(providers("sim"), [
      { id: "c/b", coding_index: 50, endpoints: [ep("sim", 2)] },
      { id: "c/a", coding_index: 50, endpoints: [ep("sim", 1)] },
    ]);
    expect(route({}, routerContext(tied)).models).toEqual(["c/a", "c/b"]);
  });
  test("no model with a coding score: 404", () => {
    const none = catalogOf(providers("sim"), [{ id: "c/x", endpoints: [ep("sim")] }]);
    expect(thrown(() => route({}, routerContext(none))).status).toBe(404);
  });
});

describe("max_price (frontier mode)", () => {
  test("the frontier", () => {
    const models = [...catalog.models.values()].filter((model) => model.codingIndex !== null);
    expect([...paretoFrontier(models, promptPrice)].toSorted()).toEqual(["c/m1", "c/m2", "c/m4", "c/m5", "c/m8", "c/m9"]);
  });
  test("the best frontier model under the cap first, then cheaper frontier ones, then non-frontier", () => {
    expect(route({ max_price: 2 }).models).toEqual(["c/m5", "c/m4", "c/m2"]);
    expect(route({ max_price: 0.3 }).models).toEqual(["c/m2", "c/m1", "c/m0"]);
    expect(route({ max_price: 0.3, min_coding_score: 1 }).models).toEqual(["c/m2", "c/m1", "c/m0"]);
    expect(route({ max_price: 100 }).models).toEqual(["c/m9", "c/m8", "c/m5"]);
  });
  test("nothing at or below the cap: 404", () => {
    const error = thrown(() => route({ max_price: 0.05 }));
    expect(error.status).toBe(404);
    expect(error.message).toBe("No model fits the Pareto router's max_price of 0.05 USD per million input tokens");
  });
  test("price_source weighted_avg uses what our traffic paid, the list price without traffic data", () => {
    const context = routerContext(catalog);
    const m9 = catalog.model("c/m9")!.endpoints[0]!;
    // 900 of 1000 input tokens read from cache at $1: (100 × 10 + 900 × 1) / 1000 = $1.9 per million.
    context.traffic.record("c/m9", { ...emptyUsage(), inputTokens: 1000, cacheReadTokens: 900 }, m9.pricing);
    expect(context.traffic.weightedInputPrice("c/m9")).toBeCloseTo(1.9, 10);
    expect(route({ max_price: 2, price_source: "weighted_avg" }, context).models).toEqual(["c/m9", "c/m5", "c/m4"]);
    expect(route({ max_price: 2, price_source: "prompt" }, context).models).toEqual(["c/m5", "c/m4", "c/m2"]);
    expect(route({ price_source: "weighted_avg" }, context).models).toEqual(["c/m9", "c/m8", "c/m7"]);
  });
});

describe("plugin", () => {
  test("stickiness: the chosen model stays first for 5 minutes while it is among the choices", () => {
    const context = routerContext(catalog);
    const m9 = catalog.model("c/m9")!.endpoints[0]!;
    expect(route({ price_source: "weighted_avg" }, context).models).toEqual(["c/m8", "c/m7", "c/m6"]);
    context.traffic.record("c/m9", { ...emptyUsage(), inputTokens: 1000, cacheReadTokens: 900 }, m9.pricing);
    context.clock.now += 60_000;
    expect(route({ price_source: "weighted_avg" }, context).models).toEqual(["c/m8", "c/m9", "c/m7"]);
    context.clock.now += 5 * 60_000;
    expect(route({ price_source: "weighted_avg" }, context).models).toEqual(["c/m9", "c/m8", "c/m7"]);
    expect(route({ price_source: "weighted_avg" }, { ...context, conversation: "other" }).models).toEqual(["c/m9", "c/m8", "c/m7"]);
  });
  test("a remembered model that is no longer a choice is dropped", () => {
    const context = routerContext(catalog);
    const cached = (id: string) =>
      context.traffic.record(id, { ...emptyUsage(), inputTokens: 1000, cacheReadTokens: 900 }, catalog.model(id)!.endpoints[0]!.pricing);
    const config = { max_price: 2, price_source: "weighted_avg" };
    expect(route(config, context).models).toEqual(["c/m5", "c/m4", "c/m2"]);
    cached("c/m9"); // $1.9: now on the frontier under the cap
    expect(route(config, context).models).toEqual(["c/m5", "c/m9", "c/m4"]);
    cached("c/m8"); // $0.57: dominates m5 and m4
    expect(route(config, context).models).toEqual(["c/m9", "c/m8", "c/m2"]);
  });
  test("config schema and aliases", () => {
    const host = new PluginHost(new Map([["pareto-router", paretoRouter]]));
    expect(thrown(() => host.resolve([{ id: "pareto-router", min_coding_score: 1.5 }])).message).toBe("plugins[0].min_coding_score: must be at most 1");
    expect(thrown(() => host.resolve([{ id: "pareto-router", max_price: -1 }])).message).toBe("plugins[0].max_price: must be at least 0");
    expect(thrown(() => host.resolve([{ id: "pareto-router", price_source: "average" }])).message).toStartWith("plugins[0].price_source: expected");
    expect(host.resolve([], "openrouter/pareto-code").map((plugin) => plugin.definition.id)).toEqual(["pareto-router"]);
  });
});
