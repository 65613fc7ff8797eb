import type { CanonicalResponse, FinishReason, OutputBlock, StreamPart, Usage } from "../../core/canonical.ts";
import { GatewayError } from "../../core/errors.ts";
import type { Endpoint } from "../../routing/catalog.ts";
import type { SseEvent, StreamParser } from "../adapter.ts";
import { invalidUpstreamResponse, upstreamError } from "../upstream-errors.ts";

type Json = Record<string, any>;

export function mapFinishReason(reason: unknown): FinishReason {
  switch (reason) {
    case "length":
      return "length";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "content_filter":
      return "content_filter";
    case "error":
      return "error";
    default:
      return "stop";
  }
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** OpenAI usage (prompt_tokens includes cached tokens) in canonical terms. */
export function mapUsage(usage: Json): Usage {
  return {
    inputTokens: count(usage.prompt_tokens),
    outputTokens: count(usage.completion_tokens),
    cacheReadTokens: count(usage.prompt_tokens_details?.cached_tokens),
    cacheWriteTokens: count(usage.prompt_tokens_details?.cache_write_tokens),
    reasoningTokens: count(usage.completion_tokens_details?.reasoning_tokens),
  };
}

/** Reasoning text as servers name it: `reasoning_content` (vLLM, DeepSeek) or `reasoning` (Ollama, OpenRouter). */
function reasoningOf(message: Json): string | undefined {
  const value = message.reasoning_content ?? message.reasoning;
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

export function parseChatResponse(body: unknown, endpoint: Endpoint): CanonicalResponse {
  const json = body as Json;
  const choice = Array.isArray(json?.choices) ? json.choices[0] : undefined;
  if (!choice || typeof choice.message !== "object" || choice.message === null) {
    throw invalidUpstreamResponse(endpoint, "no choices[0].message");
  }
  const message = choice.message as Json;
  const output: OutputBlock[] = [];
  const reasoning = reasoningOf(message);
  if (reasoning) output.push({ type: "reasoning", part: { text: reasoning } });
  if (typeof message.content === "string" && message.content.length > 0) output.push({ type: "text", text: message.content });
  if (Array.isArray(message.tool_calls)) {
    message.tool_calls.forEach((call: Json, index: number) => {
      output.push({
        type: "tool-call",
        call: {
          id: typeof call.id === "string" ? call.id : `call_${index}`,
          name: String(call.function?.name ?? ""),
          arguments: typeof call.function?.arguments === "string" ? call.function.arguments : JSON.stringify(call.function?.arguments ?? {}),
        },
      });
    });
  }
  const response: CanonicalResponse = { output, finishReason: mapFinishReason(choice.finish_reason) };
  if (typeof choice.finish_reason === "string") response.nativeFinishReason = choice.finish_reason;
  if (typeof json.id === "string") response.upstreamId = json.id;
  if (typeof json.model === "string") response.upstreamModel = json.model;
  if (json.usage && typeof json.usage === "object") response.usage = mapUsage(json.usage);
  return response;
}

/**
 * Chat Completions chunks → parts. The finish reason arrives before the usage chunk, so `finish` is held
 * back until `[DONE]` or the end of the stream; a stream that ends without any finish reason yields no
 * finish (the engine treats it as cut).
 */
export function createChatStreamParser(endpoint: Endpoint): StreamParser {
  let started = false;
  let finish: FinishReason | undefined;
  let nativeFinish: string | undefined;
  let usage: Usage | undefined;
  let done = false;
  const calls = new Map<number, { index: number }>();

  const closing = (): StreamPart[] => {
    if (done || finish === undefined) return [];
    done = true;
    const parts: StreamPart[] = [];
    if (usage) parts.push({ type: "usage", usage });
    parts.push({ type: "finish", reason: finish, ...(nativeFinish ? { nativeReason: nativeFinish } : {}) });
    return parts;
  };

  return {
    parse(event: SseEvent): StreamPart[] {
      if (done) return [];
      const data = event.data.trim();
      if (data === "[DONE]") return closing();
      if (data === "") return [];
      let chunk: Json;
      try {
        chunk = JSON.parse(data);
      } catch {
        return [{ type: "error", error: malformed(endpoint) }];
      }
      const parts: StreamPart[] = [];
      if (chunk.error) {
        const error = chunk.error as Json;
        const status = typeof error.code === "number" ? error.code : 502;
        done = true;
        return [{ type: "error", error: upstreamError(endpoint, status, String(error.message ?? ""), String(error.type ?? error.code ?? "stream_error"), new Headers()) }];
      }
      if (!started) {
        started = true;
        parts.push({
          type: "start",
          ...(typeof chunk.id === "string" ? { upstreamId: chunk.id } : {}),
          ...(typeof chunk.model === "string" ? { upstreamModel: chunk.model } : {}),
        });
      }
      const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
      const delta = (choice?.delta ?? {}) as Json;
      const reasoning = reasoningOf(delta);
      if (reasoning) parts.push({ type: "reasoning-delta", text: reasoning });
      if (typeof delta.content === "string" && delta.content.length > 0) parts.push({ type: "text-delta", text: delta.content });
      if (Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls as Json[]) {
          const upstreamIndex = typeof call.index === "number" ? call.index : calls.size;
          let known = calls.get(upstreamIndex);
          if (!known) {
            known = { index: calls.size };
            calls.set(upstreamIndex, known);
            parts.push({
              type: "tool-call-start",
              index: known.index,
              id: typeof call.id === "string" ? call.id : `call_${known.index}`,
              name: String(call.function?.name ?? ""),
            });
          }
          const args = call.function?.arguments;
          if (typeof args === "string" && args.length > 0) parts.push({ type: "tool-call-delta", index: known.index, argumentsDelta: args });
          else if (args && typeof args === "object") parts.push({ type: "tool-call-delta", index: known.index, argumentsDelta: JSON.stringify(args) });
        }
      }
      if (choice && typeof choice.finish_reason === "string") {
        finish = mapFinishReason(choice.finish_reason);
        nativeFinish = choice.finish_reason;
      }
      if (chunk.usage && typeof chunk.usage === "object") usage = mapUsage(chunk.usage);
      return parts;
    },
    end: closing,
  };
}

function malformed(endpoint: Endpoint): GatewayError {
  return new GatewayError("bad_gateway", `${endpoint.provider.name} sent a malformed stream chunk`, {
    metadata: { provider: endpoint.provider.slug, provider_code: "malformed_stream" },
  });
}

export function parseChatError(status: number, bodyText: string, headers: Headers, endpoint: Endpoint): GatewayError {
  let message: string | undefined;
  let code: string | undefined;
  try {
    const json = JSON.parse(bodyText) as Json;
    const error = (json.error ?? json) as Json;
    if (typeof error === "string") message = error;
    else {
      if (typeof error.message === "string") message = error.message;
      if (error.code !== undefined && error.code !== null) code = String(error.code);
      else if (typeof error.type === "string") code = error.type;
    }
  } catch {
    // Not JSON: the status says enough.
  }
  return upstreamError(endpoint, status, message, code, headers);
}
