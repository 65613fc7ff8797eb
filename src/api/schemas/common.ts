import { type Static, type TProperties, Type as T } from "@sinclair/typebox";
import { literals, nullable, union } from "../../core/schema-builders.ts";

export * from "../../plugins/schemas.ts";
export * from "./provider.ts";

export const METADATA_LIMITS = { pairs: 16, keyCharacters: 64, valueCharacters: 512 } as const;

export const Metadata = T.Record(
  T.String({ pattern: `^[^\\[\\]]{1,${METADATA_LIMITS.keyCharacters}}$` }),
  T.String({ maxLength: METADATA_LIMITS.valueCharacters }),
  {
    maxProperties: METADATA_LIMITS.pairs,
    additionalProperties: false,
    expected: `an object of at most ${METADATA_LIMITS.pairs} string values whose keys are 1 to ${METADATA_LIMITS.keyCharacters} characters without "[" or "]"`,
  },
);
export type Metadata = Static<typeof Metadata>;

export const NullableMetadata = nullable(Metadata, "a metadata object of string values, or null");
export type NullableMetadata = Static<typeof NullableMetadata>;

const condition = <const Name extends string, P extends TProperties>(type: Name, properties: P) =>
  T.Object({ type: T.Literal(type), ...properties }, { additionalProperties: false });

export const StopCondition = union(
  [
    condition("step_count_is", { step_count: T.Integer({ minimum: 1 }) }),
    condition("has_tool_call", { tool_name: T.String({ minLength: 1 }) }),
    condition("max_tokens_used", { max_tokens: T.Integer({ minimum: 1 }) }),
    condition("max_cost", { max_cost_in_dollars: T.Number({ minimum: 0 }) }),
    condition("finish_reason_is", { reason: T.String({ minLength: 1 }) }),
  ],
  '{type: "step_count_is", step_count}, {type: "has_tool_call", tool_name}, {type: "max_tokens_used", max_tokens}, ' +
    '{type: "max_cost", max_cost_in_dollars}, or {type: "finish_reason_is", reason}',
);
export type StopCondition = Static<typeof StopCondition>;

export const StopServerToolsWhen = T.Array(StopCondition, { minItems: 1 });
export type StopServerToolsWhen = Static<typeof StopServerToolsWhen>;

export const CacheControl = T.Object({ type: T.Literal("ephemeral"), ttl: T.Optional(T.String()) });
export type CacheControl = Static<typeof CacheControl>;

export const Debug = T.Object({ echo_upstream_body: T.Optional(T.Boolean()) }, { additionalProperties: false });
export type Debug = Static<typeof Debug>;

export const Trace = T.Object({
  trace_id: T.Optional(T.String()),
  trace_name: T.Optional(T.String()),
  span_name: T.Optional(T.String()),
  generation_name: T.Optional(T.String()),
  parent_span_id: T.Optional(T.String()),
});
export type Trace = Static<typeof Trace>;

export const SessionId = T.String({ maxLength: 256 });
export type SessionId = Static<typeof SessionId>;
export const User = T.String({ maxLength: 256 });
export type User = Static<typeof User>;

export const ServiceTier = nullable(literals(["auto", "default", "fast", "flex", "priority", "scale"]));
export type ServiceTier = Static<typeof ServiceTier>;

export const Route = nullable(literals(["fallback", "sort"]));
export type Route = Static<typeof Route>;

export const REASONING_EFFORTS = ["max", "xhigh", "high", "medium", "low", "minimal", "none"] as const;
export const ReasoningEffort = nullable(literals([...REASONING_EFFORTS]));
export type ReasoningEffort = Static<typeof ReasoningEffort>;

export const Reasoning = nullable(
  T.Object({
    enabled: T.Optional(nullable(T.Boolean())),
    max_tokens: T.Optional(nullable(T.Integer({ minimum: 0 }))),
    effort: T.Optional(ReasoningEffort),
    summary: T.Optional(nullable(literals(["auto", "concise", "detailed"]))),
    exclude: T.Optional(T.Boolean()),
  }),
  "a reasoning object {enabled, max_tokens, effort, summary, exclude} or null",
);
export type Reasoning = Static<typeof Reasoning>;

export const PromptCacheOptions = nullable(
  T.Object({ mode: T.Literal("explicit"), ttl: T.Optional(nullable(T.String())) }),
  '{mode: "explicit", ttl} or null',
);
export type PromptCacheOptions = Static<typeof PromptCacheOptions>;

export const ImageConfig = T.Record(
  T.String(),
  union([T.String(), T.Number(), T.Array(T.Unknown())], "a string, a number, or an array"),
);
export type ImageConfig = Static<typeof ImageConfig>;

export const Temperature = nullable(T.Number({ minimum: 0, maximum: 2 }));
export type Temperature = Static<typeof Temperature>;
export const TopP = nullable(T.Number({ minimum: 0, maximum: 1 }));
export type TopP = Static<typeof TopP>;
export const TopK = T.Integer({ minimum: 0 });
export type TopK = Static<typeof TopK>;
export const Penalty = nullable(T.Number({ minimum: -2, maximum: 2 }));
export type Penalty = Static<typeof Penalty>;
export const TopLogprobs = nullable(T.Integer({ minimum: 0, maximum: 20 }));
export type TopLogprobs = Static<typeof TopLogprobs>;

export const FunctionName = T.String({
  minLength: 1,
  maxLength: 64,
  pattern: "^[a-zA-Z0-9_-]+$",
  expected: "a name of 1 to 64 letters, digits, underscores or hyphens",
});
export type FunctionName = Static<typeof FunctionName>;
export const JsonSchemaObject = T.Record(T.String(), T.Unknown());
export type JsonSchemaObject = Static<typeof JsonSchemaObject>;

export const SERVER_TOOL_TYPES = [
  "web_search_preview",
  "web_search_preview_2025_03_11",
  "web_search",
  "web_search_2025_08_26",
  "file_search",
  "computer_use_preview",
  "code_interpreter",
  "mcp",
  "image_generation",
  "local_shell",
  "shell",
  "apply_patch",
  "custom",
  "namespace",
  "openrouter:advisor",
  "openrouter:subagent",
  "openrouter:datetime",
  "openrouter:files",
  "openrouter:fusion",
  "openrouter:image_generation",
  "openrouter:experimental__search_models",
  "openrouter:web_fetch",
  "openrouter:web_search",
  "openrouter:apply_patch",
  "openrouter:bash",
  "openrouter:shell",
  "openrouter:tool_search",
] as const;

export const ServerToolType = union(
  [
    literals([...SERVER_TOOL_TYPES]),
    T.String({ pattern: "^service:[a-z0-9_]+$" }),
    T.String({ pattern: "^openrouter:[a-z0-9_]+$" }),
  ],
  'a server tool type such as "web_search", "mcp", "openrouter:web_search", or "service:<tool>"',
);
export type ServerToolType = Static<typeof ServerToolType>;

export const ServerTool = T.Object({ type: ServerToolType });
export type ServerTool = Static<typeof ServerTool>;
