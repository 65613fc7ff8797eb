import type { CanonicalResponse, FinishReason, OutputBlock, Usage } from "../../../core/canonical.ts";
import type { GatewayError } from "../../../core/errors.ts";
import type { ServerToolCall, ServerToolResult, ServerToolUsage } from "../../../core/server-tools.ts";
import { anthropicErrorType, type EncodeContext } from "../codec.ts";
import { citationTitle } from "../server-tool-output.ts";

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
  /** The server-tool loop's searches, when one ran. */
  server_tool_use?: { web_search_requests: number };
}

/** Anthropic counts `input_tokens` without the cached ones; canonical `inputTokens` includes them. */
export function anthropicUsage(usage: Usage | undefined, serverToolUse?: ServerToolUsage): AnthropicUsage {
  const encoded =
    usage === undefined
      ? { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
      : {
          input_tokens: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
          output_tokens: usage.outputTokens,
          cache_read_input_tokens: usage.cacheReadTokens,
          cache_creation_input_tokens: usage.cacheWriteTokens,
        };
  return serverToolUse === undefined ? encoded : { ...encoded, server_tool_use: anthropicServerToolUse(serverToolUse) };
}

/** Anthropic's `usage.server_tool_use`: the searches the loop ran. */
export function anthropicServerToolUse(counts: ServerToolUsage): { web_search_requests: number } {
  return { web_search_requests: counts.webSearchRequests };
}

/** A tool call's `input`: its JSON arguments as an object (`{}` when they are not one). */
function parseInput(args: string): unknown {
  if (args.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(args);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** The `server_tool_use` block of a server tool call the gateway ran. */
export function serverToolUseBlock(call: ServerToolCall): Record<string, unknown> {
  return { type: "server_tool_use", id: call.id, name: call.name, input: parseInput(call.arguments) };
}

/** A string field of the call's display (what the client sees) or, failing that, of its content. */
function resultField(result: ServerToolResult, name: string): string | undefined {
  for (const source of [result.display, result.content]) {
    const value = typeof source === "object" && source !== null ? (source as Record<string, unknown>)[name] : undefined;
    if (typeof value === "string") return value;
  }
  return undefined;
}

/**
 * The result block after a call's `server_tool_use`, in Anthropic's shapes: a web search's sources as
 * `web_search_result`s, a fetched page as a `web_fetch_result` document, a failed search or fetch as
 * its `…_error` (error code `unavailable`: the result says no more); any other tool's result as
 * `<name>_tool_result` with the content the model read (`is_error` when it failed).
 */
export function serverToolResultBlock(call: ServerToolCall, result: ServerToolResult): Record<string, unknown> {
  const failed = result.isError === true;
  const block = { type: `${call.name}_tool_result`, tool_use_id: call.id };
  if (call.name === "web_search") {
    const content = failed
      ? { type: "web_search_tool_result_error", error_code: "unavailable" }
      : (result.citations ?? []).map((citation) => ({ type: "web_search_result", url: citation.url, title: citationTitle(citation) }));
    return { ...block, content };
  }
  if (call.name === "web_fetch") {
    if (failed) return { ...block, content: { type: "web_fetch_tool_result_error", error_code: "unavailable" } };
    const document = {
      type: "document",
      source: { type: "text", media_type: "text/plain", data: resultField(result, "content") ?? "" },
      title: resultField(result, "title") ?? null,
      citations: null,
    };
    const fetched = {
      type: "web_fetch_result",
      url: resultField(result, "url") ?? "",
      content: document,
      retrieved_at: resultField(result, "retrieved_at") ?? null,
    };
    return { ...block, content: fetched };
  }
  return failed ? { ...block, content: result.content, is_error: true } : { ...block, content: result.content };
}

/**
 * The content blocks of one output block. A generated image has no place in Anthropic's assistant output
 * (no such content block) and citations have none either: they are left out.
 */
function contentBlocks(block: OutputBlock): Record<string, unknown>[] {
  switch (block.type) {
    case "text":
      return [{ type: "text", text: block.text }];
    case "reasoning":
      if (block.part.redacted !== undefined) return [{ type: "redacted_thinking", data: block.part.redacted }];
      return [{ type: "thinking", thinking: block.part.text, signature: block.part.signature ?? "" }];
    case "tool-call":
      return [{ type: "tool_use", id: block.call.id, name: block.call.name, input: parseInput(block.call.arguments) }];
    case "server-tool-call":
      return [serverToolUseBlock(block.call), serverToolResultBlock(block.call, block.result)];
    case "image":
    case "citations":
      return [];
  }
}

export function encodeMessagesResponse(response: CanonicalResponse, context: EncodeContext): Record<string, unknown> {
  const hasToolCalls = response.output.some((block) => block.type === "tool-call");
  return {
    id: context.id,
    type: "message",
    role: "assistant",
    model: context.model,
    content: response.output.flatMap(contentBlocks),
    stop_reason: anthropicStopReason(response.finishReason, response.nativeFinishReason, hasToolCalls),
    stop_sequence: null,
    usage: anthropicUsage(response.usage, response.serverToolUse),
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
