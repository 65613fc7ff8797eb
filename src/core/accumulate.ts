import type { CanonicalResponse, FinishReason, OutputBlock, StreamPart, ToolCall, Usage } from "./canonical.ts";
import type { GatewayError } from "./errors.ts";

/**
 * Folds stream parts into a response, in output order: consecutive deltas of one kind extend the same
 * block; tool calls are keyed by their stream index. Used to answer a non-streaming client from a
 * streamed upstream and to record what a cut stream produced.
 */
export class ResponseAccumulator {
  readonly output: OutputBlock[] = [];
  upstreamId: string | undefined;
  upstreamModel: string | undefined;
  usage: Usage | undefined;
  finishReason: FinishReason | undefined;
  nativeFinishReason: string | undefined;
  error: GatewayError | undefined;
  readonly #calls = new Map<number, ToolCall>();

  add(part: StreamPart): void {
    switch (part.type) {
      case "start":
        this.upstreamId ??= part.upstreamId;
        this.upstreamModel ??= part.upstreamModel;
        break;
      case "text-delta": {
        const last = this.output.at(-1);
        if (last?.type === "text") last.text += part.text;
        else this.output.push({ type: "text", text: part.text });
        break;
      }
      case "reasoning-delta": {
        const last = this.output.at(-1);
        if (last?.type === "reasoning" && last.part.signature === undefined && last.part.redacted === undefined) {
          last.part.text += part.text;
        } else this.output.push({ type: "reasoning", part: { text: part.text } });
        break;
      }
      case "reasoning-signature": {
        const last = this.output.at(-1);
        if (last?.type === "reasoning" && last.part.signature === undefined) last.part.signature = part.signature;
        else this.output.push({ type: "reasoning", part: { text: "", signature: part.signature } });
        break;
      }
      case "reasoning-redacted":
        this.output.push({ type: "reasoning", part: { text: "", redacted: part.data } });
        break;
      case "tool-call-start": {
        const call: ToolCall = { id: part.id, name: part.name, arguments: "" };
        this.#calls.set(part.index, call);
        this.output.push({ type: "tool-call", call });
        break;
      }
      case "tool-call-delta": {
        const call = this.#calls.get(part.index);
        if (call) call.arguments += part.argumentsDelta;
        break;
      }
      case "image":
        this.output.push({ type: "image", url: part.url });
        break;
      case "server-tool-call":
        this.output.push({ type: "server-tool-call", call: part.call, result: part.result });
        break;
      case "citations":
        this.output.push({ type: "citations", citations: part.citations });
        break;
      case "usage":
        this.usage = part.usage;
        break;
      case "finish":
        this.finishReason = part.reason;
        this.nativeFinishReason = part.nativeReason;
        break;
      case "error":
        this.error = part.error;
        this.finishReason = "error";
        break;
    }
  }

  toResponse(): CanonicalResponse {
    const response: CanonicalResponse = {
      output: this.output,
      finishReason: this.finishReason ?? (this.#calls.size > 0 ? "tool_calls" : "stop"),
    };
    if (this.upstreamId !== undefined) response.upstreamId = this.upstreamId;
    if (this.upstreamModel !== undefined) response.upstreamModel = this.upstreamModel;
    if (this.nativeFinishReason !== undefined) response.nativeFinishReason = this.nativeFinishReason;
    if (this.usage !== undefined) response.usage = this.usage;
    return response;
  }
}

/** Replays a complete response as stream parts (a streaming client answered from a JSON upstream). */
export function* responseToParts(response: CanonicalResponse): Generator<StreamPart> {
  yield { type: "start", upstreamId: response.upstreamId, upstreamModel: response.upstreamModel };
  let index = 0;
  for (const block of response.output) {
    if (block.type === "text") yield { type: "text-delta", text: block.text };
    else if (block.type === "reasoning") {
      if (block.part.redacted !== undefined) yield { type: "reasoning-redacted", data: block.part.redacted };
      else {
        if (block.part.text) yield { type: "reasoning-delta", text: block.part.text };
        if (block.part.signature !== undefined) yield { type: "reasoning-signature", signature: block.part.signature };
      }
    } else if (block.type === "image") yield { type: "image", url: block.url };
    else if (block.type === "server-tool-call") yield { type: "server-tool-call", call: block.call, result: block.result };
    else if (block.type === "citations") yield { type: "citations", citations: block.citations };
    else {
      yield { type: "tool-call-start", index, id: block.call.id, name: block.call.name };
      if (block.call.arguments) yield { type: "tool-call-delta", index, argumentsDelta: block.call.arguments };
      index++;
    }
  }
  if (response.usage) yield { type: "usage", usage: response.usage };
  yield { type: "finish", reason: response.finishReason, ...(response.nativeFinishReason ? { nativeReason: response.nativeFinishReason } : {}) };
}
