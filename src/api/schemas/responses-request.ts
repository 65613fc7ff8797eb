import { type Static, Type as T } from "@sinclair/typebox";
import { literals, nullable, union } from "../../core/schema-builders.ts";
import {
  CacheControl,
  Debug,
  FunctionName,
  ImageConfig,
  JsonSchemaObject,
  NullableMetadata,
  Penalty,
  Plugins,
  PromptCacheOptions,
  ProviderPreferences,
  Reasoning,
  Route,
  ServerTool,
  ServiceTier,
  SessionId,
  StopServerToolsWhen,
  Temperature,
  TopK,
  TopLogprobs,
  TopP,
  Trace,
  User,
} from "./common.ts";

export const RESPONSES_INCLUDES = [
  "file_search_call.results",
  "message.input_image.image_url",
  "computer_call_output.output.image_url",
  "reasoning.encrypted_content",
  "code_interpreter_call.outputs",
] as const;

export const InputItem = union(
  [T.Object({ type: T.String() }), T.Object({ role: T.String() })],
  "an input item object with a string type or a role",
);
export type InputItem = Static<typeof InputItem>;

export const ResponsesInput = union(
  [T.String(), T.Array(InputItem)],
  "a string or an array of input items",
);
export type ResponsesInput = Static<typeof ResponsesInput>;

export const ResponsesFunctionTool = T.Object({
  type: T.Literal("function"),
  name: FunctionName,
  description: T.Optional(nullable(T.String())),
  parameters: T.Optional(nullable(JsonSchemaObject, "a JSON Schema object or null")),
  strict: T.Optional(nullable(T.Boolean())),
});
export type ResponsesFunctionTool = Static<typeof ResponsesFunctionTool>;

/** Codex's client-run tool search (`execution: "client"`); a server-run one is a server tool. */
export const ResponsesToolSearchTool = T.Object({ type: T.Literal("tool_search") });

export const ResponsesTool = union(
  [ResponsesFunctionTool, ServerTool, ResponsesToolSearchTool],
  '{type: "function", name, description, parameters} or a server tool object with a supported type',
);
export type ResponsesTool = Static<typeof ResponsesTool>;

export const ResponsesToolChoice = union(
  [
    literals(["auto", "none", "required"]),
    T.Object({ type: literals(["function", "custom"]), name: T.String() }),
    T.Object({ type: literals(["web_search_preview", "web_search_preview_2025_03_11"]) }),
    T.Object({
      type: T.Literal("allowed_tools"),
      mode: literals(["auto", "required"]),
      tools: T.Array(T.Unknown()),
    }),
    T.Object({ type: T.Literal("apply_patch") }),
    T.Object({ type: T.Literal("shell") }),
  ],
  '"auto", "none", "required", {type: "function", name}, {type: "web_search_preview"}, {type: "allowed_tools", mode, tools}, {type: "apply_patch"}, or {type: "shell"}',
);
export type ResponsesToolChoice = Static<typeof ResponsesToolChoice>;

export const ResponsesText = T.Object({
  format: T.Optional(T.Object({ type: literals(["text", "json_object", "json_schema"]) })),
  verbosity: T.Optional(nullable(literals(["low", "medium", "high", "xhigh", "max"]))),
});
export type ResponsesText = Static<typeof ResponsesText>;

/** A prompt variable's value: a string, or an input text, input image or input file object. */
export const PromptVariable = union(
  [
    T.String(),
    T.Object({ type: T.Literal("input_text"), text: T.String() }),
    T.Object({ type: T.Literal("input_image") }),
    T.Object({ type: T.Literal("input_file") }),
  ],
  'a string or an {type: "input_text", text}, {type: "input_image"} or {type: "input_file"} object',
);

/**
 * A stored prompt template (`prompt`). Accepted and validated; the gateway is stateless and has no
 * prompt store, so the template cannot be applied: the field is dropped like any parameter no
 * endpoint supports (see responses/decode.ts).
 */
export const PromptTemplate = nullable(
  T.Object({ id: T.String({ minLength: 1 }), variables: T.Optional(nullable(T.Record(T.String(), PromptVariable))) }),
  "{id, variables} or null",
);
export type PromptTemplate = Static<typeof PromptTemplate>;

export const ResponsesRequest = T.Object(
  {
    model: T.Optional(T.String()),
    models: T.Optional(T.Array(T.String())),
    input: T.Optional(ResponsesInput),
    instructions: T.Optional(nullable(T.String())),
    max_output_tokens: T.Optional(nullable(T.Integer({ minimum: 1 }))),
    max_tool_calls: T.Optional(nullable(T.Integer({ minimum: 1, maximum: 30 }))),
    stop_server_tools_when: T.Optional(StopServerToolsWhen),
    temperature: T.Optional(Temperature),
    top_p: T.Optional(TopP),
    top_k: T.Optional(TopK),
    top_logprobs: T.Optional(TopLogprobs),
    frequency_penalty: T.Optional(Penalty),
    presence_penalty: T.Optional(Penalty),
    parallel_tool_calls: T.Optional(nullable(T.Boolean())),
    background: T.Optional(nullable(T.Boolean())),
    include: T.Optional(nullable(T.Array(literals([...RESPONSES_INCLUDES])), "an array of include values or null")),
    metadata: T.Optional(NullableMetadata),
    modalities: T.Optional(T.Array(literals(["text", "image"]))),
    image_config: T.Optional(ImageConfig),
    cache_control: T.Optional(CacheControl),
    prompt_cache_key: T.Optional(nullable(T.String())),
    prompt_cache_options: T.Optional(PromptCacheOptions),
    debug: T.Optional(Debug),
    previous_response_id: T.Optional(
      T.Null({ expected: "null (previous_response_id is not supported; send the full history in input)" }),
    ),
    prompt: T.Optional(PromptTemplate),
    provider: T.Optional(ProviderPreferences),
    plugins: T.Optional(Plugins),
    reasoning: T.Optional(Reasoning),
    route: T.Optional(Route),
    safety_identifier: T.Optional(nullable(T.String())),
    service_tier: T.Optional(ServiceTier),
    session_id: T.Optional(SessionId),
    store: T.Optional(T.Literal(false, { expected: "false (responses are never stored)" })),
    stream: T.Optional(T.Boolean()),
    text: T.Optional(ResponsesText),
    tool_choice: T.Optional(ResponsesToolChoice),
    tools: T.Optional(T.Array(ResponsesTool)),
    trace: T.Optional(Trace),
    truncation: T.Optional(nullable(literals(["auto", "disabled"]))),
    user: T.Optional(User),
  },
  { additionalProperties: true },
);
export type ResponsesRequest = Static<typeof ResponsesRequest>;
