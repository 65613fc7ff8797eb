/**
 * What fusion accepts: the plugin's config (`plugins: [{id: "fusion", ...}]`), the server tool's
 * `parameters` (`tools: [{type: "service:fusion", parameters}]`) and the operator's settings
 * (`tools.fusion` in the config), with the reference's limits (1–8 panel models, 1–16 tool calls per
 * inner call, at most 8 tools).
 */
import { type Static, Type as T } from "@sinclair/typebox";

/** The preset names a request may ask for. */
export const PRESET_NAMES = ["general-high", "general-budget", "general-fast"] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

const EFFORTS = ["max", "xhigh", "high", "medium", "low", "minimal", "none"] as const;
const Preset = T.Union(PRESET_NAMES.map((name) => T.Literal(name)));
const AnalysisModels = T.Array(T.String({ minLength: 1 }), { minItems: 1, maxItems: 8 });

/** A tool the panelists and the analyst may use: a server tool's type and its parameters. */
const PanelTool = T.Object(
  {
    type: T.String({ minLength: 1 }),
    parameters: T.Optional(T.Record(T.String(), T.Unknown())),
  },
  { additionalProperties: false },
);

const shared = {
  /** The panel: models that answer in parallel. */
  analysis_models: T.Optional(AnalysisModels),
  /** The analyst, which compares the panel's answers. */
  model: T.Optional(T.String({ minLength: 1 })),
  preset: T.Optional(Preset),
  /** The server-tool steps of each panelist and of the analyst (default 4). */
  max_tool_calls: T.Optional(T.Integer({ minimum: 1, maximum: 16 })),
  /** The panel's and the analyst's tools; web search and web fetch when absent; `[]` for none. */
  tools: T.Optional(T.Array(PanelTool, { maxItems: 8 })),
};

/** The plugin's config: the request's plugin object without `id` and `enabled`. */
export const FusionConfig = T.Object(shared, { additionalProperties: false });
export type FusionConfig = Static<typeof FusionConfig>;

/**
 * The server tool's `parameters`: the plugin's fields (the plugin form passes its config) and the
 * per-call settings of the inner calls.
 */
export const FusionParameters = T.Object(
  {
    ...shared,
    /** The most tokens each inner call may produce, reasoning included. */
    max_completion_tokens: T.Optional(T.Integer({ minimum: 1 })),
    reasoning: T.Optional(
      T.Object(
        {
          effort: T.Optional(T.Union(EFFORTS.map((effort) => T.Literal(effort)))),
          max_tokens: T.Optional(T.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** The panel's temperature; the analyst always runs at 0. */
    temperature: T.Optional(T.Number({ minimum: 0, maximum: 2 })),
    cache_control: T.Optional(T.Object({ type: T.Literal("ephemeral"), ttl: T.Optional(T.String()) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type FusionParameters = Static<typeof FusionParameters>;

/** One preset as the operator defines it: its panel and, optionally, its analyst. */
const PresetSettings = T.Object({ analysis_models: AnalysisModels, model: T.Optional(T.String({ minLength: 1 })) }, { additionalProperties: false });

/** The operator's settings (config `tools.fusion`): the panels the preset names stand for. */
export const FusionSettings = T.Object(
  {
    presets: T.Optional(
      T.Object(
        {
          "general-high": T.Optional(PresetSettings),
          "general-budget": T.Optional(PresetSettings),
          "general-fast": T.Optional(PresetSettings),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type FusionSettings = Static<typeof FusionSettings>;
