import type { CanonicalResponse, FinishReason, OutputBlock, Usage } from "../../../core/canonical.ts";
import type { GatewayError } from "../../../core/errors.ts";
import { anthropicErrorType, type EncodeContext } from "../codec.ts";

export type AnthropicStopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "refusal";

/**
 * Anthropic `stop_reason` of a finish. A `stop` that ended a turn with tool calls is `tool_use`:
 * clients (Claude Code) run tools only on `tool_use`, and OpenAI-style upstreams sometimes say `stop`.
 * An `error` finish (the upstream said `error` or gave no finish reason) is an answer that did not
 * finish. Anthropic has no stop reason for that, and `null` means "still generating" to its clients;
 * `max_tokens` is the one every Anthropic client reads as "cut short, not a complete turn" (the SDKs
 * and Claude Code surface it, tool runners stop), so an unfinished answer never passes for `end_turn`.
 */
export function anthropicStopReason(reason: FinishReason, nativeReason?: string, hasToolCalls = false): AnthropicStopReason {
  switch (reason) {
    case "length":
      return "max_tokens";
    case "tool_calls":
      return "tool_use";
    case "content_filter":
      return "refusal";
    case "stop":
      if (hasToolCalls) return "tool_use";
      return nativeReason === "stop_sequence" ? "stop_sequence" : "end_turn";
    case "error":
      return "max_tokens";
  }
}

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

/** Anthropic counts `input_tokens` without the cached ones; canonical `inputTokens` includes them. */
export function anthropicUsage(usage: Usage | undefined): AnthropicUsage {
  if (usage === undefined) {
    return { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  }
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
    output_tokens: usage.outputTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
  };
}

function parseInput(args: string): unknown {
  if (args.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(args);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** A generated image has no place in Anthropic's assistant output (no such content block): it is left out. */
type MessagesBlock = Exclude<OutputBlock, { type: "image" | "server-tool-call" | "citations" }>;

function contentBlock(block: MessagesBlock): Record<string, unknown> {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "reasoning":
      if (block.part.redacted !== undefined) return { type: "redacted_thinking", data: block.part.redacted };
      return { type: "thinking", thinking: block.part.text, signature: block.part.signature ?? "" };
    case "tool-call":
      return { type: "tool_use", id: block.call.id, name: block.call.name, input: parseInput(block.call.arguments) };
  }
}

export function encodeMessagesResponse(response: CanonicalResponse, context: EncodeContext): Record<string, unknown> {
  const hasToolCalls = response.output.some((block) => block.type === "tool-call");
  return {
    id: context.id,
    type: "message",
    role: "assistant",
    model: context.model,
    content: response.output.filter((block): block is MessagesBlock => block.type !== "image").map(contentBlock),
    stop_reason: anthropicStopReason(response.finishReason, response.nativeFinishReason, hasToolCalls),
    stop_sequence: null,
    usage: anthropicUsage(response.usage),
    provider: context.provider,
    ...(context.metadata ? { openrouter_metadata: context.metadata } : {}),
  };
}

/**
 * One body for both readers: Anthropic clients read `type` and `error.type`; the spec's envelope needs
 * `error.code` (the HTTP status), `error.message`, `service_metadata` and `user_id`.
 */
export function encodeMessagesError(error: GatewayError): Record<string, unknown> {
  const inner: Record<string, unknown> = {
    type: anthropicErrorType(error.status),
    code: error.status,
    message: error.message,
    error_type: error.errorType,
  };
  if (error.metadata !== undefined) inner.metadata = error.metadata;
  if (error.availability !== undefined) {
    inner.availability = error.availability;
    inner.metadata = { ...error.metadata, availability: error.availability };
  }
  return { type: "error", error: inner, service_metadata: null, user_id: null, request_id: null };
}
