import { type Static, type TProperties, Type as T } from "@sinclair/typebox";
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
  ReasoningEffort,
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

export const ContentPart = T.Object({ type: T.String() });
export type ContentPart = Static<typeof ContentPart>;

export const ChatContent = union(
  [T.String(), T.Array(ContentPart)],
  "a string or an array of content parts with a string type",
);
export type ChatContent = Static<typeof ChatContent>;

const message = <const Role extends string, P extends TProperties>(role: Role, properties: P) =>
  T.Object({ role: T.Literal(role), name: T.Optional(T.String()), ...properties });

const ToolCall = T.Object({});

export const ChatAssistantMessage = union(
  [
    message("assistant", { content: ChatContent, tool_calls: T.Optional(T.Array(ToolCall)) }),
    message("assistant", { content: T.Optional(T.Null()), tool_calls: T.Array(ToolCall, { minItems: 1 }) }),
  ],
  "an assistant message with content, or with tool_calls and null content",
);
export type ChatAssistantMessage = Static<typeof ChatAssistantMessage>;

export const ChatMessage = union(
  [
    message("system", { content: ChatContent }),
    message("developer", { content: ChatContent }),
    message("user", { content: ChatContent }),
    ChatAssistantMessage,
    message("tool", { content: ChatContent, tool_call_id: T.String() }),
  ],
  'a message object whose role is "system", "developer", "user", "assistant", or "tool"',
);
export type ChatMessage = Static<typeof ChatMessage>;

export const ChatFunctionTool = T.Object({
  type: T.Literal("function"),
  function: T.Object({
    name: FunctionName,
    description: T.Optional(T.String()),
    parameters: T.Optional(JsonSchemaObject),
    strict: T.Optional(nullable(T.Boolean())),
  }),
});
export type ChatFunctionTool = Static<typeof ChatFunctionTool>;

export const ChatTool = union(
  [ChatFunctionTool, ServerTool],
  '{type: "function", function: {name, description, parameters}} or a server tool object with a supported type',
);
export type ChatTool = Static<typeof ChatTool>;

export const ChatToolChoice = union(
  [
    literals(["none", "auto", "required"]),
    T.Object({ type: T.Literal("function"), function: T.Object({ name: T.String() }) }),
  ],
  '"none", "auto", "required", or {type: "function", function: {name}}',
);
export type ChatToolChoice = Static<typeof ChatToolChoice>;

export const ResponseFormat = union(
  [
    T.Object({ type: T.Literal("text") }),
    T.Object({ type: T.Literal("json_object") }),
    T.Object({
      type: T.Literal("json_schema"),
      json_schema: T.Object({
        name: T.String({ minLength: 1 }),
        description: T.Optional(T.String()),
        schema: T.Optional(JsonSchemaObject),
        strict: T.Optional(nullable(T.Boolean())),
      }),
    }),
    T.Object({ type: T.Literal("grammar"), grammar: T.String() }),
    T.Object({ type: T.Literal("python") }),
  ],
  '{type: "text"}, {type: "json_object"}, {type: "json_schema", json_schema}, {type: "grammar", grammar}, or {type: "python"}',
);
export type ResponseFormat = Static<typeof ResponseFormat>;

export const ChatStop = nullable(
  union([T.String(), T.Array(T.String(), { maxItems: 4 })]),
  "a string, an array of at most 4 strings, or null",
);
export type ChatStop = Static<typeof ChatStop>;

const TokenLimit = nullable(T.Integer({ minimum: 1 }));
const UnitInterval = nullable(T.Number({ minimum: 0, maximum: 1 }));

export const ChatRequest = T.Object(
  {
    messages: T.Array(ChatMessage, { minItems: 1 }),
    model: T.Optional(T.String()),
    models: T.Optional(T.Array(T.String())),
    cache_control: T.Optional(CacheControl),
    debug: T.Optional(Debug),
    frequency_penalty: T.Optional(Penalty),
    presence_penalty: T.Optional(Penalty),
    repetition_penalty: T.Optional(nullable(T.Number({ exclusiveMinimum: 0, maximum: 2 }))),
    image_config: T.Optional(ImageConfig),
    logit_bias: T.Optional(nullable(T.Record(T.String(), T.Number({ minimum: -100, maximum: 100 })))),
    logprobs: T.Optional(nullable(T.Boolean())),
    top_logprobs: T.Optional(TopLogprobs),
    max_completion_tokens: T.Optional(TokenLimit),
    max_tokens: T.Optional(TokenLimit),
    metadata: T.Optional(NullableMetadata),
    min_p: T.Optional(UnitInterval),
    top_a: T.Optional(UnitInterval),
    modalities: T.Optional(T.Array(literals(["text", "image", "audio"]))),
    parallel_tool_calls: T.Optional(nullable(T.Boolean())),
    plugins: T.Optional(Plugins),
    prediction: T.Optional(T.Object({ type: T.Literal("content"), content: ChatContent })),
    prompt_cache_key: T.Optional(nullable(T.String())),
    prompt_cache_options: T.Optional(PromptCacheOptions),
    provider: T.Optional(ProviderPreferences),
    reasoning: T.Optional(Reasoning),
    reasoning_effort: T.Optional(ReasoningEffort),
    response_format: T.Optional(ResponseFormat),
    route: T.Optional(Route),
    seed: T.Optional(nullable(T.Integer())),
    service_tier: T.Optional(ServiceTier),
    session_id: T.Optional(SessionId),
    stop: T.Optional(ChatStop),
    stop_server_tools_when: T.Optional(StopServerToolsWhen),
    stream: T.Optional(T.Boolean()),
    stream_options: T.Optional(nullable(T.Object({ include_usage: T.Optional(T.Boolean()) }))),
    temperature: T.Optional(Temperature),
    top_p: T.Optional(TopP),
    top_k: T.Optional(TopK),
    tool_choice: T.Optional(ChatToolChoice),
    tools: T.Optional(T.Array(ChatTool)),
    trace: T.Optional(Trace),
    user: T.Optional(User),
  },
  { additionalProperties: true },
);
export type ChatRequest = Static<typeof ChatRequest>;
