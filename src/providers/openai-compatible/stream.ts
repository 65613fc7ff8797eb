import type { FinishReason, StreamPart, Usage } from "../../core/canonical.ts";
import type { Endpoint } from "../../core/catalog-types.ts";
import type { SseEvent, StreamParser } from "../adapter.ts";
import { chunkError, malformedChunk } from "./errors.ts";
import { argumentsText, finishWithCalls, imagesOf, mapFinishReason, mapUsage, reasoningOf, textOf } from "./response.ts";

type Json = Record<string, any>;

interface OpenCall {
  /** The call's position among the response's tool calls: the canonical stream index. */
  index: number;
  id: string;
}

/**
 * Chat Completions chunks → parts. The finish reason arrives before the usage chunk, so `finish` is held
 * back until `[DONE]` or the end of the stream; a stream that ends without any finish reason yields no
 * finish (the engine treats it as cut). Tool-call deltas are keyed by the upstream's `index`; a server
 * that omits it (sending each call whole) starts a new call whenever a new id appears.
 */
export function createChatStreamParser(endpoint: Endpoint): StreamParser {
  let started = false;
  let finish: FinishReason | undefined;
  let nativeFinish: string | undefined;
  let usage: Usage | undefined;
  let done = false;
  const calls = new Map<string, OpenCall>();
  let lastCall: OpenCall | undefined;

  const closing = (): StreamPart[] => {
    if (done || finish === undefined) return [];
    done = true;
    const parts: StreamPart[] = [];
    if (usage) parts.push({ type: "usage", usage });
    parts.push({ type: "finish", reason: finishWithCalls(finish, calls.size > 0), ...(nativeFinish ? { nativeReason: nativeFinish } : {}) });
    return parts;
  };

  const callFor = (delta: Json, parts: StreamPart[]): OpenCall => {
    const id = typeof delta.id === "string" && delta.id !== "" ? delta.id : undefined;
    let key: string;
    if (typeof delta.index === "number") key = `index:${delta.index}`;
    else if (lastCall !== undefined && (id === undefined || id === lastCall.id)) return lastCall;
    else key = `call:${calls.size}`;
    let call = calls.get(key);
    if (!call) {
      call = { index: calls.size, id: id ?? `call_${calls.size}` };
      calls.set(key, call);
      parts.push({ type: "tool-call-start", index: call.index, id: call.id, name: String(delta.function?.name ?? "") });
    }
    lastCall = call;
    return call;
  };

  const toolCalls = (deltas: Json[], parts: StreamPart[]): void => {
    for (const delta of deltas) {
      const call = callFor(delta, parts);
      const args = delta.function?.arguments;
      if (args === undefined || args === null || args === "") continue;
      parts.push({ type: "tool-call-delta", index: call.index, argumentsDelta: argumentsText(args) });
    }
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
        done = true;
        return [{ type: "error", error: malformedChunk(endpoint) }];
      }
      if (chunk.error) {
        done = true;
        return [{ type: "error", error: chunkError(typeof chunk.error === "object" ? chunk.error : { message: String(chunk.error) }, endpoint) }];
      }
      const parts: StreamPart[] = [];
      if (!started) {
        started = true;
        parts.push({
          type: "start",
          ...(typeof chunk.id === "string" && chunk.id !== "" ? { upstreamId: chunk.id } : {}),
          ...(typeof chunk.model === "string" && chunk.model !== "" ? { upstreamModel: chunk.model } : {}),
        });
      }
      const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
      const delta = (choice?.delta ?? {}) as Json;
      const reasoning = reasoningOf(delta);
      if (reasoning) parts.push({ type: "reasoning-delta", text: reasoning });
      const text = textOf(delta.content);
      if (text.length > 0) parts.push({ type: "text-delta", text });
      if (delta.images !== undefined) for (const url of imagesOf(delta.images)) parts.push({ type: "image", url });
      if (Array.isArray(delta.tool_calls)) toolCalls(delta.tool_calls, parts);
      if (choice && typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
        finish = mapFinishReason(choice.finish_reason);
        nativeFinish = choice.finish_reason;
      }
      if (chunk.usage && typeof chunk.usage === "object") usage = mapUsage(chunk.usage);
      return parts;
    },
    end: closing,
  };
}
