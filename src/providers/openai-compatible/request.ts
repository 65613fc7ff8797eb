import type { CanonicalRequest, ContentPart, Message, ReasoningConfig, ReasoningEffort } from "../../core/canonical.ts";
import type { Endpoint } from "../../core/catalog-types.ts";
import type { BuildOptions, JsonUpstreamRequest } from "../adapter.ts";

type Json = Record<string, unknown>;

/** Parameters outside OpenAI's own set, sent only to endpoints that declare them. */
const EXTENDED = ["top_k", "min_p", "top_a", "repetition_penalty", "reasoning_effort", "verbosity", "service_tier"] as const;

function supports(endpoint: Endpoint, parameter: string): boolean {
  const list = endpoint.supportedParameters;
  if (!list) return !(EXTENDED as readonly string[]).includes(parameter);
  if (parameter === "reasoning_effort") return list.includes("reasoning") || list.includes("reasoning_effort");
  return list.includes(parameter);
}

/**
 * Text-only content as one string, which every server takes (Ollama turns each part of an array into a
 * message of its own). Parts join with a newline, as vLLM joins them, so words never run together.
 */
function textOnly(parts: ContentPart[]): string | null {
  if (parts.every((part) => part.type === "text")) return parts.map((part) => (part as { text: string }).text).join("\n");
  return null;
}

function contentParts(parts: ContentPart[]): Json[] {
  return parts.map((part) => {
    if (part.type === "text") return { type: "text", text: part.text };
    if (part.type === "image") return { type: "image_url", image_url: { url: part.url, ...(part.detail ? { detail: part.detail } : {}) } };
    return { type: "file", file: { file_data: part.url, ...(part.filename ? { filename: part.filename } : {}) } };
  });
}

function userContent(parts: ContentPart[]): string | Json[] {
  return textOnly(parts) ?? contentParts(parts);
}

function message(entry: Message): Json {
  switch (entry.role) {
    case "system":
      return { role: "system", content: userContent(entry.content) };
    case "user":
      return { role: "user", content: userContent(entry.content) };
    case "tool":
      return { role: "tool", tool_call_id: entry.toolCallId, content: textOnly(entry.content) ?? contentParts(entry.content) };
    case "assistant": {
      const text = entry.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
      const result: Json = { role: "assistant", content: text.length > 0 || !entry.toolCalls?.length ? text : null };
      if (entry.toolCalls?.length) {
        result.tool_calls = entry.toolCalls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        }));
      }
      return result;
    }
  }
}

/** Parameters sent as they are (when the endpoint takes them), in this order: the body's name and the request's field. */
const PLAIN: ReadonlyArray<readonly [string, keyof CanonicalRequest]> = [
  ["temperature", "temperature"],
  ["top_p", "topP"],
  ["frequency_penalty", "frequencyPenalty"],
  ["presence_penalty", "presencePenalty"],
  ["seed", "seed"],
  ["stop", "stop"],
  ["logit_bias", "logitBias"],
  ["logprobs", "logprobs"],
  ["top_logprobs", "topLogprobs"],
  ["user", "user"],
  ["top_k", "topK"],
  ["min_p", "minP"],
  ["top_a", "topA"],
  ["repetition_penalty", "repetitionPenalty"],
  ["verbosity", "verbosity"],
  ["service_tier", "serviceTier"],
];

/** Chat Completions body for any OpenAI-compatible server; differences between servers are `quirks`. */
export function buildChatRequest(request: CanonicalRequest, endpoint: Endpoint, options: BuildOptions): JsonUpstreamRequest {
  const provider = endpoint.provider;
  const body: Json = { model: endpoint.upstreamModel, messages: request.messages.map(message) };
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: tool.parameters ?? { type: "object", properties: {} },
        ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
      },
    }));
    if (request.toolChoice !== undefined) {
      body.tool_choice =
        typeof request.toolChoice === "string" ? request.toolChoice : { type: "function", function: { name: request.toolChoice.name } };
    }
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.maxTokens !== undefined) body[provider.quirks.maxTokensField] = request.maxTokens;
  for (const [name, field] of PLAIN) {
    const value = request[field];
    if (value !== undefined && supports(endpoint, name)) body[name] = value;
  }
  // Image output (OpenRouter's wire): asked for with `modalities`, shaped by the provider's own `image_config`.
  if (request.modalities !== undefined) body.modalities = request.modalities;
  if (request.imageConfig !== undefined) body.image_config = request.imageConfig;
  if (request.responseFormat) {
    const format = request.responseFormat;
    body.response_format =
      format.type === "json_schema"
        ? {
            type: "json_schema",
            json_schema: {
              name: format.name,
              schema: format.schema,
              ...(format.strict !== undefined ? { strict: format.strict } : {}),
              ...(format.description !== undefined ? { description: format.description } : {}),
            },
          }
        : { type: format.type };
  }
  const warnings: string[] = [];
  const effort = reasoningEffort(request.reasoning);
  if (effort !== undefined) {
    if (provider.quirks.reasoningEffort && supports(endpoint, "reasoning_effort")) body.reasoning_effort = effort;
    else warnings.push(`reasoning: ${endpoint.key} takes no reasoning effort; effort ${effort} was not sent`);
  }
  // Chat Completions never replays reasoning, so edits that clear old thinking hold by themselves.
  const edits = request.contextManagement?.edits?.filter((edit) => !edit.type.startsWith("clear_thinking")) ?? [];
  if (edits.length > 0) warnings.push(`context_management: edits ${edits.map((edit) => edit.type).join(", ")} are not applied by ${endpoint.key}`);
  if (options.stream) {
    body.stream = true;
    if (provider.quirks.streamUsage) body.stream_options = { include_usage: true };
  }
  const headers: Record<string, string> = { "content-type": "application/json", ...provider.headers };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const upstream: JsonUpstreamRequest = { url: `${provider.baseUrl}/chat/completions`, headers, body };
  if (warnings.length > 0) upstream.warnings = warnings;
  return upstream;
}

/**
 * Thinking budgets below these become `low` and `medium` efforts, above them `high`: the midpoints
 * between the budgets the Anthropic adapter gives those efforts (low 2048, medium 8192, high 16384),
 * so that an effort sent across both wires comes back as itself.
 */
const LOW_EFFORT_BELOW = 4096;
const MEDIUM_EFFORT_BELOW = 12288;

/**
 * The `reasoning_effort` a request asks for. An effort is sent as is. A thinking budget (Anthropic
 * `thinking.budget_tokens`, `reasoning.max_tokens`) becomes one of the efforts every OpenAI-wire
 * reasoning server takes: under 4096 tokens `low`, under 12288 `medium`, else `high`. Reasoning
 * switched on without either (adaptive thinking) is `medium`, the servers' own default.
 */
export function reasoningEffort(reasoning: ReasoningConfig | undefined): ReasoningEffort | undefined {
  if (reasoning === undefined || reasoning.enabled === false) return undefined;
  if (reasoning.effort !== undefined) return reasoning.effort;
  if (reasoning.maxTokens !== undefined) {
    if (reasoning.maxTokens < LOW_EFFORT_BELOW) return "low";
    return reasoning.maxTokens < MEDIUM_EFFORT_BELOW ? "medium" : "high";
  }
  return reasoning.enabled === true ? "medium" : undefined;
}
