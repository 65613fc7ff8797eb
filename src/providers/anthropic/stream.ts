import type { StreamPart } from "../../core/canonical.ts";
import type { Endpoint } from "../../core/catalog-types.ts";
import type { SseEvent, StreamParser } from "../adapter.ts";
import { anthropicTypedError, malformedStreamError, readErrorBody } from "./errors.ts";
import { mapStopReason, toUsage } from "./response.ts";
import { type AnthropicUsage, isRecord } from "./wire.ts";

type OpenBlock = { kind: "tool"; toolIndex: number; sentArguments: boolean } | { kind: "other" };

/**
 * Anthropic's Messages stream → canonical parts. Tool calls are numbered among the response's tool calls
 * (not by Anthropic's block index). Usage is cumulative: `message_start` carries the input counts,
 * `message_delta` the output total (and, on newer versions, final input counts). Usage parts are
 * cumulative snapshots: one right after `start` (input counts) and the final one before `finish`.
 */
export function createAnthropicStreamParser(endpoint: Endpoint): StreamParser {
  const blocks = new Map<number, OpenBlock>();
  const usage: AnthropicUsage = {};
  let toolCount = 0;
  let started = false;
  let stopReason: string | undefined;
  let done = false;

  const mergeUsage = (value: unknown): void => {
    if (!isRecord(value)) return;
    for (const key of ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"] as const) {
      if (typeof value[key] === "number") usage[key] = value[key];
    }
  };

  const fail = (error: StreamPart & { type: "error" }): StreamPart[] => {
    done = true;
    return [error];
  };

  function handle(type: unknown, data: Record<string, unknown>): StreamPart[] {
    switch (type) {
      case "message_start": {
        if (started) return [];
        started = true;
        const message = isRecord(data.message) ? data.message : {};
        mergeUsage(message.usage);
        const parts: StreamPart[] = [
          {
            type: "start",
            ...(typeof message.id === "string" ? { upstreamId: message.id } : {}),
            ...(typeof message.model === "string" ? { upstreamModel: message.model } : {}),
          },
        ];
        // The input counts are known from here on: an early snapshot lets a client's message_start carry
        // them and a stream that is cut or left still records its prompt. The one at message_stop is final.
        if (typeof usage.input_tokens === "number") parts.push({ type: "usage", usage: toUsage(usage) });
        return parts;
      }
      case "content_block_start":
        return blockStart(data);
      case "content_block_delta":
        return blockDelta(data);
      case "content_block_stop": {
        const block = typeof data.index === "number" ? blocks.get(data.index) : undefined;
        // A tool called without arguments streams no input: its arguments are `{}`, as in a whole message.
        if (block?.kind === "tool" && !block.sentArguments) {
          block.sentArguments = true;
          return [{ type: "tool-call-delta", index: block.toolIndex, argumentsDelta: "{}" }];
        }
        return [];
      }
      case "message_delta": {
        if (isRecord(data.delta) && typeof data.delta.stop_reason === "string") stopReason = data.delta.stop_reason;
        mergeUsage(data.usage);
        return [];
      }
      case "message_stop":
        done = true;
        return [
          { type: "usage", usage: toUsage(usage) },
          { type: "finish", reason: mapStopReason(stopReason), ...(stopReason !== undefined ? { nativeReason: stopReason } : {}) },
        ];
      case "error": {
        const error = readErrorBody(data);
        return fail({ type: "error", error: anthropicTypedError(error?.type, error?.message, endpoint) });
      }
      default:
        // ping and event types this version does not know.
        return [];
    }
  }

  function blockStart(data: Record<string, unknown>): StreamPart[] {
    const block = isRecord(data.content_block) ? data.content_block : {};
    const index = typeof data.index === "number" ? data.index : blocks.size;
    switch (block.type) {
      case "text":
        blocks.set(index, { kind: "other" });
        return typeof block.text === "string" && block.text !== "" ? [{ type: "text-delta", text: block.text }] : [];
      case "thinking":
        blocks.set(index, { kind: "other" });
        return typeof block.thinking === "string" && block.thinking !== "" ? [{ type: "reasoning-delta", text: block.thinking }] : [];
      case "redacted_thinking":
        blocks.set(index, { kind: "other" });
        return typeof block.data === "string" ? [{ type: "reasoning-redacted", data: block.data }] : [];
      case "tool_use": {
        if (typeof block.id !== "string" || typeof block.name !== "string") return fail({ type: "error", error: malformedStreamError(endpoint) });
        const toolIndex = toolCount++;
        const parts: StreamPart[] = [{ type: "tool-call-start", index: toolIndex, id: block.id, name: block.name }];
        const initial = isRecord(block.input) && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : undefined;
        if (initial !== undefined) parts.push({ type: "tool-call-delta", index: toolIndex, argumentsDelta: initial });
        blocks.set(index, { kind: "tool", toolIndex, sentArguments: initial !== undefined });
        return parts;
      }
      default:
        blocks.set(index, { kind: "other" });
        return [];
    }
  }

  function blockDelta(data: Record<string, unknown>): StreamPart[] {
    const delta = isRecord(data.delta) ? data.delta : {};
    switch (delta.type) {
      case "text_delta":
        return typeof delta.text === "string" && delta.text !== "" ? [{ type: "text-delta", text: delta.text }] : [];
      case "thinking_delta":
        return typeof delta.thinking === "string" && delta.thinking !== "" ? [{ type: "reasoning-delta", text: delta.thinking }] : [];
      case "signature_delta":
        return typeof delta.signature === "string" ? [{ type: "reasoning-signature", signature: delta.signature }] : [];
      case "input_json_delta": {
        const block = typeof data.index === "number" ? blocks.get(data.index) : undefined;
        if (block?.kind !== "tool" || typeof delta.partial_json !== "string" || delta.partial_json === "") return [];
        block.sentArguments = true;
        return [{ type: "tool-call-delta", index: block.toolIndex, argumentsDelta: delta.partial_json }];
      }
      default:
        // citations_delta and future delta types.
        return [];
    }
  }

  return {
    parse(event: SseEvent): StreamPart[] {
      if (done) return [];
      const text = event.data.trim();
      if (text === "" || text === "[DONE]") return [];
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        return fail({ type: "error", error: malformedStreamError(endpoint) });
      }
      if (!isRecord(data)) return fail({ type: "error", error: malformedStreamError(endpoint) });
      return handle(typeof data.type === "string" ? data.type : event.event, data);
    },
    // A stream that ends without message_stop was cut; no finish is invented.
    end: () => [],
  };
}
