import { Type as T } from "@sinclair/typebox";
import { definePlugin } from "../../src/plugins/api.ts";
import { type ParetoConfig, paretoRoute } from "./pareto.ts";

const STICKY_MS = 5 * 60_000;
const ALIASES = ["openrouter/pareto-code", "roundhouse/pareto-code"];

/** `pareto-router`: coding-quality tiers by price, or the price/quality frontier under a cap. */
export default definePlugin<ParetoConfig>({
  apiVersion: 1,
  id: "pareto-router",
  description: "Routes coding work along the price/quality Pareto frontier.",
  configSchema: T.Object(
    {
      max_price: T.Optional(T.Number({ minimum: 0 })),
      min_coding_score: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
      price_source: T.Optional(T.Union([T.Literal("prompt"), T.Literal("weighted_avg")])),
    },
    { additionalProperties: false },
  ),
  models: ALIASES,
  selectCandidates(request, config, context) {
    const memoryKey = `pareto-router\u0000${context.workspaceId}\u0000${context.conversation}\u0000${JSON.stringify(config)}`;
    const routed = paretoRoute(context.catalog, request, config, {
      aliases: ALIASES,
      weightedPrice: (modelId) => context.traffic.weightedInputPrice(modelId),
    });
    // Router stickiness: a remembered model stays first while it is still among the choices.
    const remembered = context.memory.get(memoryKey);
    const models = remembered && routed.models.includes(remembered) ? [remembered, ...routed.models.filter((id) => id !== remembered)] : routed.models;
    context.memory.set(memoryKey, models[0]!, STICKY_MS);
    return { model: models[0]!, models };
  },
});
