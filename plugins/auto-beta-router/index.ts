import { Type as T } from "@sinclair/typebox";
import { type CatalogModel, definePlugin } from "../../src/plugins/api.ts";
import { type AutoRouterConfig, autoRoute } from "../auto-router/auto-routing.ts";
import type { TaskFamily } from "../auto-router/task-classifier.ts";
import { AutoRouterConfigSchema } from "../auto-router/index.ts";

const { pin_model: _pin, ...fields } = AutoRouterConfigSchema.properties;
const ConfigSchema = T.Object(fields, { additionalProperties: false });

const STICKY_MS = 10 * 60_000;
const ALIASES = ["openrouter/auto-beta", "roundhouse/auto-beta"];
const YEAR_SECONDS = 365 * 24 * 3600;

/**
 * The beta ranking blends all three indices, weighting the task's own index most, adds tool success
 * for agentic tasks, and favours models released in the last year.
 */
function betaScore(model: CatalogModel, family: TaskFamily): number {
  const intelligence = model.intelligenceIndex ?? 0;
  const coding = model.codingIndex ?? intelligence * 0.8;
  const agentic = model.agenticIndex ?? intelligence * 0.8;
  const main = family === "code" ? coding : family === "agentic" ? agentic : intelligence;
  const blend = 0.6 * main + 0.4 * ((intelligence + coding + agentic) / 3);
  const tools = family === "agentic" ? 10 * (model.toolSuccessRate ?? 0.8) : 0;
  const age = model.created === null ? YEAR_SECONDS : Date.now() / 1000 - model.created;
  const freshness = age < YEAR_SECONDS ? 2 * (1 - age / YEAR_SECONDS) : 0;
  return blend + tools + freshness;
}

/** `auto-beta-router`: the auto router with the beta ranking, without `pin_model`. */
export default definePlugin<AutoRouterConfig>({
  apiVersion: 1,
  id: "auto-beta-router",
  description: "The auto router with a blended, recency-aware ranking.",
  configSchema: ConfigSchema,
  models: ALIASES,
  selectCandidates(request, config, context) {
    const memoryKey = `auto-beta-router\u0000${context.workspaceId}\u0000${context.conversation}`;
    const routed = autoRoute({
      catalog: context.catalog,
      request,
      config: { ...config, pin_model: false },
      remembered: context.memory.get(memoryKey),
      score: betaScore,
      aliases: ALIASES,
    });
    context.memory.set(memoryKey, routed.model, STICKY_MS);
    return { model: routed.model, models: routed.models };
  },
});
