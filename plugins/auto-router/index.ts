import { Type as T } from "@sinclair/typebox";
import { definePlugin } from "../../src/plugins/api.ts";
import { type AutoRouterConfig, autoRoute, taskScore } from "./auto-routing.ts";

const Patterns = T.Array(T.String({ maxLength: 1024 }), { maxItems: 1024 });

export const AutoRouterConfigSchema = T.Object(
  {
    allowed_models: T.Optional(Patterns),
    excluded_models: T.Optional(Patterns),
    cost_tier: T.Optional(T.Union([T.Literal("low"), T.Literal("medium"), T.Literal("high"), T.Literal("xhigh"), T.Literal("max")])),
    cost_quality_tradeoff: T.Optional(T.Integer({ minimum: 0, maximum: 10 })),
    pin_model: T.Optional(T.Boolean()),
  },
  { additionalProperties: false },
);

const STICKY_MS = 10 * 60_000;
const ALIASES = ["openrouter/auto", "roundhouse/auto"];

/**
 * `auto-router`: a local task classifier picks the task type; models are ranked for it from catalog
 * metadata within the requested cost band; the top one is the primary and the next two are fallbacks.
 */
export default definePlugin<AutoRouterConfig>({
  apiVersion: 1,
  id: "auto-router",
  description: "Picks a model for the task from the catalog's quality indices within a cost band.",
  configSchema: AutoRouterConfigSchema,
  models: ALIASES,
  selectCandidates(request, config, context) {
    const memoryKey = `auto-router\u0000${context.workspaceId}\u0000${context.conversation}`;
    const routed = autoRoute({
      catalog: context.catalog,
      request,
      config,
      remembered: context.memory.get(memoryKey),
      score: taskScore,
      aliases: ALIASES,
    });
    context.memory.set(memoryKey, routed.model, STICKY_MS);
    return { model: routed.model, models: routed.models, task: routed.task };
  },
});
