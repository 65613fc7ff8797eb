/**
 * What a preset keeps of an inference request body, defined once for the three request styles.
 *
 * A preset's `config` is style-neutral, in chat-completions vocabulary, so that a preset made from a
 * Responses or Messages body applies to a request of any style: `max_output_tokens` and Anthropic's
 * `max_tokens` become `max_tokens`, tools and tool_choice take the chat form, `text.format` becomes
 * `response_format`, `stop_sequences` becomes `stop`, `thinking` becomes `reasoning`. The system prompt is
 * kept apart as `system_prompt`. Everything else in a body (messages, input, stream, prompt, metadata,
 * user, session ids, ...) is per request and silently dropped.
 */

export type RequestStyle = "chat" | "responses" | "messages";

/** Fields copied as they are, when present, from a body of any style. */
export const PRESET_CONFIG_FIELDS = [
  "model",
  "models",
  "provider",
  "plugins",
  "route",
  "temperature",
  "top_p",
  "top_k",
  "top_a",
  "min_p",
  "frequency_penalty",
  "presence_penalty",
  "repetition_penalty",
  "seed",
  "logit_bias",
  "logprobs",
  "top_logprobs",
  "max_tokens",
  "stop",
  "reasoning",
  "response_format",
  "verbosity",
  "parallel_tool_calls",
  "modalities",
  "image_config",
  "cache_control",
  "prompt_cache_options",
  "service_tier",
  "max_tool_calls",
  "stop_server_tools_when",
  "include",
  "truncation",
  "tool_choice",
  "tools",
] as const;

export interface PresetContent {
  config: Record<string, unknown>;
  systemPrompt: string | null;
}

type Body = Record<string, unknown>;

function isObject(value: unknown): value is Body {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function textOf(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const parts = content
    .filter(isObject)
    .map((part) => (typeof part.text === "string" ? part.text : null))
    .filter((text): text is string => text !== null);
  return parts.length > 0 ? parts.join("\n") : null;
}

/** A chat function tool from a Responses (`{type, name, ...}`) or Messages (`{name, input_schema}`) tool. */
function toChatTool(style: RequestStyle, tool: unknown): unknown {
  if (!isObject(tool)) return tool;
  if (style === "responses" && tool.type === "function") {
    const { type: _type, name, description, parameters, strict } = tool;
    const fn: Body = { name };
    if (description !== undefined) fn.description = description;
    if (parameters !== undefined) fn.parameters = parameters;
    if (strict !== undefined && strict !== null) fn.strict = strict;
    return { type: "function", function: fn };
  }
  if (style === "messages" && "input_schema" in tool && (tool.type === undefined || tool.type === "custom")) {
    const fn: Body = { name: tool.name, parameters: tool.input_schema };
    if (tool.description !== undefined) fn.description = tool.description;
    return { type: "function", function: fn, ...(tool.cache_control ? { cache_control: tool.cache_control } : {}) };
  }
  return tool;
}

function toChatToolChoice(style: RequestStyle, choice: unknown): unknown {
  if (style === "responses" && isObject(choice) && choice.type === "function" && typeof choice.name === "string") {
    return { type: "function", function: { name: choice.name } };
  }
  if (style === "messages" && isObject(choice)) {
    if (choice.type === "auto" || choice.type === "none") return choice.type;
    if (choice.type === "any") return "required";
    if (choice.type === "tool") return { type: "function", function: { name: choice.name } };
  }
  return choice;
}

function responseFormatFromText(text: unknown): unknown {
  if (!isObject(text) || !isObject(text.format)) return undefined;
  const { type, name, schema, strict, description } = text.format;
  if (type !== "json_schema") return { type };
  const jsonSchema: Body = { name, schema };
  if (strict !== undefined) jsonSchema.strict = strict;
  if (description !== undefined) jsonSchema.description = description;
  return { type: "json_schema", json_schema: jsonSchema };
}

function systemPromptOf(style: RequestStyle, body: Body): string | null {
  if (style === "responses") return typeof body.instructions === "string" ? body.instructions : null;
  if (style === "messages") return textOf(body.system);
  const messages = Array.isArray(body.messages) ? body.messages.filter(isObject) : [];
  const system = messages
    .filter((message) => message.role === "system" || message.role === "developer")
    .map((message) => textOf(message.content))
    .filter((text): text is string => text !== null);
  return system.length > 0 ? system.join("\n\n") : null;
}

/** The preset config and system prompt persisted from an inference body of the given style. */
export function extractPresetContent(style: RequestStyle, body: Body): PresetContent {
  const source: Body = { ...body };
  if (style === "responses") {
    if (source.max_output_tokens !== undefined) source.max_tokens = source.max_output_tokens;
    const format = responseFormatFromText(source.text);
    if (format !== undefined) source.response_format = format;
    if (isObject(source.text) && source.text.verbosity !== undefined) source.verbosity = source.text.verbosity;
  } else if (style === "chat") {
    if (source.max_tokens === undefined && source.max_completion_tokens !== undefined) {
      source.max_tokens = source.max_completion_tokens;
    }
    if (source.reasoning_effort !== undefined && source.reasoning === undefined) {
      source.reasoning = { effort: source.reasoning_effort };
    }
  } else {
    if (source.stop_sequences !== undefined) source.stop = source.stop_sequences;
    if (isObject(source.thinking)) {
      source.reasoning =
        source.thinking.type === "enabled"
          ? { enabled: true, max_tokens: source.thinking.budget_tokens }
          : { enabled: source.thinking.type !== "disabled" };
    }
  }
  const config: Body = {};
  for (const field of PRESET_CONFIG_FIELDS) {
    const value = source[field];
    if (value === undefined) continue;
    if (field === "tools" && Array.isArray(value)) config.tools = value.map((tool) => toChatTool(style, tool));
    else if (field === "tool_choice") config.tool_choice = toChatToolChoice(style, value);
    else config[field] = value;
  }
  return { config, systemPrompt: systemPromptOf(style, body) };
}
