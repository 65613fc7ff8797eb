import { type Static, Type as T } from "@sinclair/typebox";
import { literals, nullable, union } from "../../core/schema-builders.ts";
import {
  CacheControl,
  JsonSchemaObject,
  Plugins,
  ProviderPreferences,
  Route,
  ServiceTier,
  SessionId,
  StopServerToolsWhen,
  TopK,
  Trace,
  User,
} from "./common.ts";

export const MessagesContentBlock = T.Object({ type: T.String() });
export type MessagesContentBlock = Static<typeof MessagesContentBlock>;

/**
 * `system` turns may sit anywhere in the conversation (Claude Code sends them for models it does not
 * know); their content is text only, checked by the decoder.
 */
export const MessagesMessage = T.Object({
  role: literals(["user", "assistant", "system"]),
  content: union(
    [T.String(), T.Array(MessagesContentBlock)],
    "a string or an array of content blocks with a string type",
  ),
});
export type MessagesMessage = Static<typeof MessagesMessage>;

export const SystemTextBlock = T.Object({
  type: T.Literal("text"),
  text: T.String(),
  cache_control: T.Optional(CacheControl),
});
export type SystemTextBlock = Static<typeof SystemTextBlock>;

export const MessagesSystem = union(
  [T.String(), T.Array(SystemTextBlock)],
  'a string or an array of {type: "text", text} blocks',
);
export type MessagesSystem = Static<typeof MessagesSystem>;

/** `display` (Claude Code sends `"updates"`) says how thinking is shown; it does not change what is asked. */
const ThinkingDisplay = T.Optional(T.String());

export const Thinking = union(
  [
    T.Object({ type: T.Literal("enabled"), budget_tokens: T.Integer({ minimum: 1024 }), display: ThinkingDisplay }),
    T.Object({ type: T.Literal("disabled") }),
    T.Object({ type: T.Literal("adaptive"), display: ThinkingDisplay }),
  ],
  '{type: "enabled", budget_tokens}, {type: "disabled"}, or {type: "adaptive"}',
);
export type Thinking = Static<typeof Thinking>;

export const MessagesCustomTool = T.Object({
  type: T.Optional(T.Literal("custom")),
  name: T.String({ minLength: 1 }),
  description: T.Optional(T.String()),
  input_schema: JsonSchemaObject,
  cache_control: T.Optional(CacheControl),
});
export type MessagesCustomTool = Static<typeof MessagesCustomTool>;

export const MessagesServerTool = T.Object({ type: T.String({ pattern: "^(?!custom$).+$" }) });
export type MessagesServerTool = Static<typeof MessagesServerTool>;

export const MessagesTool = union(
  [MessagesCustomTool, MessagesServerTool],
  "{name, description, input_schema} or a server tool object with a string type",
);
export type MessagesTool = Static<typeof MessagesTool>;

export const MessagesToolChoice = union(
  [
    T.Object({ type: literals(["auto", "any", "none"]), disable_parallel_tool_use: T.Optional(T.Boolean()) }),
    T.Object({ type: T.Literal("tool"), name: T.String(), disable_parallel_tool_use: T.Optional(T.Boolean()) }),
  ],
  '{type: "auto"}, {type: "any"}, {type: "none"}, or {type: "tool", name}',
);
export type MessagesToolChoice = Static<typeof MessagesToolChoice>;

export const Fallbacks = T.Array(T.Object({ model: T.String({ minLength: 1 }) }, { additionalProperties: false }), {
  maxItems: 3,
});
export type Fallbacks = Static<typeof Fallbacks>;

export const MessagesRequest = T.Object(
  {
    model: T.String(),
    models: T.Optional(T.Array(T.String())),
    messages: T.Array(MessagesMessage, { minItems: 1 }),
    max_tokens: T.Optional(T.Integer({ minimum: 1 })),
    system: T.Optional(MessagesSystem),
    stop_sequences: T.Optional(T.Array(T.String())),
    thinking: T.Optional(Thinking),
    tools: T.Optional(T.Array(MessagesTool)),
    tool_choice: T.Optional(MessagesToolChoice),
    fallbacks: T.Optional(Fallbacks),
    metadata: T.Optional(T.Object({ user_id: T.Optional(nullable(T.String())) })),
    context_management: T.Optional(T.Object({ edits: T.Optional(T.Array(T.Object({ type: T.String({ minLength: 1 }) }))) })),
    output_config: T.Optional(
      T.Object({ effort: T.Optional(literals(["max", "xhigh", "high", "medium", "low", "minimal", "none"])) }),
    ),
    speed: T.Optional(T.String()),
    provider: T.Optional(ProviderPreferences),
    plugins: T.Optional(Plugins),
    session_id: T.Optional(SessionId),
    user: T.Optional(User),
    service_tier: T.Optional(ServiceTier),
    route: T.Optional(Route),
    stop_server_tools_when: T.Optional(StopServerToolsWhen),
    trace: T.Optional(Trace),
    cache_control: T.Optional(CacheControl),
    temperature: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
    top_p: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
    top_k: T.Optional(TopK),
    stream: T.Optional(T.Boolean()),
  },
  { additionalProperties: true },
);
export type MessagesRequest = Static<typeof MessagesRequest>;

/** Rules across fields; `root` prefixes the path (none on the messages route, which names paths as Anthropic does). */
export function checkMessagesRules(body: { fallbacks?: unknown; models?: unknown }, root = "body"): string | null {
  if (body.fallbacks !== undefined && body.models !== undefined) {
    return `${root === "" ? "" : `${root}.`}fallbacks: cannot be combined with models`;
  }
  return null;
}
