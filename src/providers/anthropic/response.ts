import type { CanonicalResponse, FinishReason, OutputBlock, Usage } from "../../core/canonical.ts";
import type { Endpoint } from "../../core/catalog-types.ts";
import { anthropicTypedError, invalidResponseError, readErrorBody } from "./errors.ts";
import { type AnthropicUsage, isRecord } from "./wire.ts";

const FINISH_BY_STOP_REASON: Record<string, FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
};

/**
 * No stop reason (a whole message with `stop_reason: null`, or a stream's `message_stop` without one)
 * is an answer that did not finish: `error`, with its content kept. An unknown reason is a normal end.
 */
export function mapStopReason(reason: string | null | undefined): FinishReason {
  if (reason == null || reason === "") return "error";
  return FINISH_BY_STOP_REASON[reason] ?? "stop";
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/** Anthropic's `input_tokens` excludes cached tokens; canonical `inputTokens` counts all prompt tokens. */
export function toUsage(usage: AnthropicUsage): Usage {
  const cacheReadTokens = count(usage.cache_read_input_tokens);
  const cacheWriteTokens = count(usage.cache_creation_input_tokens);
  return {
    inputTokens: count(usage.input_tokens) + cacheReadTokens + cacheWriteTokens,
    outputTokens: count(usage.output_tokens),
    cacheReadTokens,
    cacheWriteTokens,
    // Anthropic does not report thinking tokens separately; they are inside output_tokens.
    reasoningTokens: 0,
  };
}

/** An Anthropic message → CanonicalResponse; anything else is an invalid upstream response. */
export function parseAnthropicMessage(body: unknown, endpoint: Endpoint): CanonicalResponse {
  if (isRecord(body) && body.type === "error") {
    const error = readErrorBody(body);
    throw anthropicTypedError(error?.type, error?.message, endpoint);
  }
  if (!isRecord(body) || !Array.isArray(body.content) || (body.type !== undefined && body.type !== "message")) {
    throw invalidResponseError(endpoint);
  }
  const output: OutputBlock[] = [];
  for (const block of body.content) {
    if (!isRecord(block)) throw invalidResponseError(endpoint);
    const last = output.at(-1);
    switch (block.type) {
      case "text": {
        if (typeof block.text !== "string") throw invalidResponseError(endpoint);
        // Citations split one answer into several text blocks: adjacent ones are one text.
        if (last?.type === "text") last.text += block.text;
        else output.push({ type: "text", text: block.text });
        break;
      }
      case "thinking":
        if (typeof block.thinking !== "string") throw invalidResponseError(endpoint);
        output.push({
          type: "reasoning",
          part: { text: block.thinking, ...(typeof block.signature === "string" ? { signature: block.signature } : {}) },
        });
        break;
      case "redacted_thinking":
        if (typeof block.data !== "string") throw invalidResponseError(endpoint);
        output.push({ type: "reasoning", part: { text: "", redacted: block.data } });
        break;
      case "tool_use":
        if (typeof block.id !== "string" || typeof block.name !== "string") throw invalidResponseError(endpoint);
        output.push({ type: "tool-call", call: { id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
        break;
      default:
      // Server tool blocks (web search and the like) have no canonical form yet.
    }
  }
  const stopReason = typeof body.stop_reason === "string" && body.stop_reason !== "" ? body.stop_reason : undefined;
  const response: CanonicalResponse = { output, finishReason: mapStopReason(stopReason) };
  if (typeof body.id === "string") response.upstreamId = body.id;
  if (typeof body.model === "string") response.upstreamModel = body.model;
  if (stopReason !== undefined) response.nativeFinishReason = stopReason;
  if (isRecord(body.usage)) response.usage = toUsage(body.usage);
  return response;
}
