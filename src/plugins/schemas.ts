import { type Static, type TProperties, Type as T } from "@sinclair/typebox";
import { joinAlternatives, literals, nullable, union } from "../core/schema-builders.ts";

export const MODEL_PATTERN_LIMITS = { items: 1024, itemCharacters: 1024, totalCharacters: 65536 } as const;

const ModelPatterns = T.Array(T.String({ maxLength: MODEL_PATTERN_LIMITS.itemCharacters }), {
  maxItems: MODEL_PATTERN_LIMITS.items,
});

const Enabled = T.Optional(T.Boolean());

function plugin<const Id extends string, P extends TProperties>(id: Id, properties: P) {
  return T.Object({ id: T.Literal(id), ...properties }, { additionalProperties: false });
}

const routerProperties = {
  enabled: Enabled,
  allowed_models: T.Optional(ModelPatterns),
  excluded_models: T.Optional(ModelPatterns),
  cost_tier: T.Optional(literals(["low", "medium", "high", "xhigh", "max"])),
  cost_quality_tradeoff: T.Optional(T.Integer({ minimum: 0, maximum: 10 })),
};

export const AutoRouterPlugin = plugin("auto-router", { ...routerProperties, pin_model: T.Optional(T.Boolean()) });
export type AutoRouterPlugin = Static<typeof AutoRouterPlugin>;
export const AutoBetaRouterPlugin = plugin("auto-beta-router", routerProperties);
export type AutoBetaRouterPlugin = Static<typeof AutoBetaRouterPlugin>;

export const ParetoRouterPlugin = plugin("pareto-router", {
  enabled: Enabled,
  max_price: T.Optional(T.Number({ minimum: 0 })),
  min_coding_score: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
  price_source: T.Optional(literals(["prompt", "weighted_avg"])),
});
export type ParetoRouterPlugin = Static<typeof ParetoRouterPlugin>;

export const FusionTool = T.Object(
  {
    type: T.String({ minLength: 1 }),
    parameters: T.Optional(T.Record(T.String(), T.Unknown())),
  },
  { additionalProperties: false },
);
export type FusionTool = Static<typeof FusionTool>;

export const FusionPlugin = plugin("fusion", {
  enabled: Enabled,
  analysis_models: T.Optional(T.Array(T.String({ minLength: 1 }), { minItems: 1, maxItems: 8 })),
  model: T.Optional(T.String({ minLength: 1 })),
  preset: T.Optional(literals(["general-high", "general-budget", "general-fast"])),
  max_tool_calls: T.Optional(T.Integer({ minimum: 1, maximum: 16 })),
  tools: T.Optional(T.Array(FusionTool, { maxItems: 8 })),
});
export type FusionPlugin = Static<typeof FusionPlugin>;

export const WEB_MODES = [
  "instant",
  "fast",
  "auto",
  "deep-lite",
  "deep",
  "deep-reasoning",
  "turbo",
  "basic",
  "advanced",
] as const;

export const UserLocation = T.Object(
  {
    type: T.Literal("approximate"),
    city: T.Optional(T.String()),
    country: T.Optional(T.String()),
    region: T.Optional(T.String()),
    timezone: T.Optional(T.String()),
  },
  { additionalProperties: false },
);
export type UserLocation = Static<typeof UserLocation>;

export const WebPlugin = plugin("web", {
  enabled: Enabled,
  // The reference's engines, or any an installed plugin contributes (`searxng`, an intranet search).
  engine: T.Optional(T.String({ minLength: 1, maxLength: 64 })),
  mode: T.Optional(literals([...WEB_MODES])),
  search_prompt: T.Optional(T.String()),
  max_results: T.Optional(T.Integer({ minimum: 1 })),
  max_uses: T.Optional(T.Integer({ minimum: 1 })),
  include_domains: T.Optional(T.Array(T.String())),
  exclude_domains: T.Optional(T.Array(T.String())),
  user_location: T.Optional(nullable(UserLocation, '{type: "approximate", city, country, region, timezone} or null')),
});
export type WebPlugin = Static<typeof WebPlugin>;

export const WebFetchPlugin = plugin("web-fetch", {
  allowed_domains: T.Optional(T.Array(T.String())),
  blocked_domains: T.Optional(T.Array(T.String())),
  max_content_tokens: T.Optional(T.Integer({ minimum: 1 })),
  max_uses: T.Optional(T.Integer({ minimum: 1 })),
});
export type WebFetchPlugin = Static<typeof WebFetchPlugin>;

export const ModerationPlugin = plugin("moderation", {});
export type ModerationPlugin = Static<typeof ModerationPlugin>;

export const ResponseHealingPlugin = plugin("response-healing", { enabled: Enabled });
export type ResponseHealingPlugin = Static<typeof ResponseHealingPlugin>;

export const ContextCompressionPlugin = plugin("context-compression", {
  enabled: Enabled,
  engine: T.Optional(literals(["middle-out"])),
});
export type ContextCompressionPlugin = Static<typeof ContextCompressionPlugin>;

export const FileParserPlugin = plugin("file-parser", {
  enabled: Enabled,
  pdf: T.Optional(
    T.Object(
      { engine: T.Optional(literals(["mistral-ocr", "native", "cloudflare-ai", "pdf-text"])) },
      { additionalProperties: false },
    ),
  ),
});
export type FileParserPlugin = Static<typeof FileParserPlugin>;

export const PLUGIN_IDS = [
  "auto-router",
  "auto-beta-router",
  "pareto-router",
  "fusion",
  "web",
  "web-fetch",
  "moderation",
  "response-healing",
  "context-compression",
  "file-parser",
] as const;
export type PluginId = (typeof PLUGIN_IDS)[number];

/**
 * A plugin the spec does not list (an operator's own). Its config is checked by the plugin host
 * against that plugin's schema; an id no installed plugin has is refused there, naming it.
 */
export const ExternalPlugin = T.Object(
  {
    id: T.String({ pattern: `^(?!(${PLUGIN_IDS.join("|")})$)[a-z0-9][a-z0-9._-]{0,63}$`, expected: "a plugin id" }),
    enabled: T.Optional(T.Boolean()),
  },
  { additionalProperties: true, catchAll: true },
);

export const Plugin = union(
  [
    AutoRouterPlugin,
    AutoBetaRouterPlugin,
    ParetoRouterPlugin,
    FusionPlugin,
    WebPlugin,
    WebFetchPlugin,
    ModerationPlugin,
    ResponseHealingPlugin,
    ContextCompressionPlugin,
    FileParserPlugin,
    ExternalPlugin,
  ],
  `a plugin object whose id is ${joinAlternatives(PLUGIN_IDS.map((id) => JSON.stringify(id)))} or an installed plugin's id`,
);
export type Plugin = Static<typeof Plugin>;

export const Plugins = T.Array(Plugin);
export type Plugins = Static<typeof Plugins>;

/** The total-length rule on model patterns, which JSON Schema cannot express. */
export function checkPluginLimits(plugins: unknown, root = "plugins"): string | null {
  if (!Array.isArray(plugins)) return null;
  for (const [index, entry] of plugins.entries()) {
    if (typeof entry !== "object" || entry === null) continue;
    for (const field of ["allowed_models", "excluded_models"] as const) {
      const patterns: unknown = (entry as Record<string, unknown>)[field];
      if (!Array.isArray(patterns)) continue;
      const total = patterns.reduce<number>((sum, item) => sum + (typeof item === "string" ? item.length : 0), 0);
      if (total > MODEL_PATTERN_LIMITS.totalCharacters) {
        return `${root}[${index}].${field}: at most ${MODEL_PATTERN_LIMITS.totalCharacters} characters in total`;
      }
    }
  }
  return null;
}
