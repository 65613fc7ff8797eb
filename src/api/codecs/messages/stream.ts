import type { FinishReason, StreamPart, Usage } from "../../../core/canonical.ts";
import type { GatewayError } from "../../../core/errors.ts";
import type { ServerToolCall, ServerToolResult, ServerToolUsage } from "../../../core/server-tools.ts";
import { anthropicErrorType, type EncodeContext, type StreamEncoder, sseFrame } from "../codec.ts";
import { countServerToolCall } from "../server-tool-output.ts";
import { anthropicServerToolUse, anthropicStopReason, anthropicUsage, serverToolResultBlock, serverToolUseBlock } from "./encode.ts";

type OpenBlock =
  | { kind: "text"; index: number }
  | { kind: "thinking"; index: number; signed: boolean }
  | { kind: "tool"; index: number; toolIndex: number };

/**
 * Canonical stream parts → Anthropic SSE events, each with its `event:` line (the SDK needs them).
 *
 * `message_start` is sent lazily with the first part after `start`, exactly once, so that a usage
 * known by then (the upstream's input counts) goes into it; final counts always go into `message_delta`. Block indexes count from 0 in the order
 * blocks open; a block is stopped when a block of another kind opens or the message finishes. A server
 * tool call the gateway ran is two whole blocks: its `server_tool_use` (the input as one
 * `input_json_delta`) and its result block (complete in its `content_block_start`).
 */
export class MessagesStreamEncoder implements StreamEncoder {
  readonly #context: EncodeContext;
  #started = false;
  #finished = false;
  #stopped = false;
  #failed = false;
  #open: OpenBlock | undefined;
  #nextIndex = 0;
  #sawToolCall = false;
  #usage: Usage | undefined;
  #serverToolUse: ServerToolUsage | undefined;
  /** Block index of each tool call, by its stream index. */
  readonly #toolBlocks = new Map<number, number>();

  constructor(context: EncodeContext) {
    this.#context = context;
  }

  start(): string[] {
    return [];
  }

  part(part: StreamPart): string[] {
    if (this.#failed || this.#stopped) return [];
    if (part.type === "error") return this.error(part.error);
    if (this.#finished) return [];
    // message_start waits for the next part, so that an early usage snapshot (the input counts) goes into it.
    // A generated image and citations have no content block in Anthropic's assistant output: they are left out.
    if (part.type === "start" || part.type === "image" || part.type === "citations") return [];
    const frames = this.#ensureStarted(part.type === "usage" ? part.usage : undefined);
    switch (part.type) {
      case "text-delta":
        if (part.text === "") break;
        if (this.#open?.kind !== "text") {
          const index = this.#openBlock(frames, { type: "text", text: "" });
          this.#open = { kind: "text", index };
        }
        frames.push(this.#delta(this.#open.index, { type: "text_delta", text: part.text }));
        break;
      case "reasoning-delta": {
        if (part.text === "") break;
        const index = this.#thinkingIndex(frames);
        frames.push(this.#delta(index, { type: "thinking_delta", thinking: part.text }));
        break;
      }
      case "reasoning-signature": {
        const index = this.#thinkingIndex(frames);
        frames.push(this.#delta(index, { type: "signature_delta", signature: part.signature }));
        if (this.#open?.kind === "thinking") this.#open.signed = true;
        break;
      }
      case "reasoning-redacted": {
        const index = this.#openBlock(frames, { type: "redacted_thinking", data: part.data });
        frames.push(this.#stop(index));
        break;
      }
      case "tool-call-start": {
        this.#sawToolCall = true;
        const index = this.#openBlock(frames, { type: "tool_use", id: part.id, name: part.name, input: {} });
        this.#open = { kind: "tool", index, toolIndex: part.index };
        this.#toolBlocks.set(part.index, index);
        break;
      }
      case "tool-call-delta": {
        if (part.argumentsDelta === "") break;
        // Normally the open block; a delta for an already-stopped call keeps its own index (best effort).
        const index = this.#toolBlocks.get(part.index);
        if (index === undefined) break;
        frames.push(this.#delta(index, { type: "input_json_delta", partial_json: part.argumentsDelta }));
        break;
      }
      case "server-tool-call":
        frames.push(...this.#serverToolBlocks(part.call, part.result));
        break;
      case "usage":
        this.#usage = part.usage;
        break;
      case "finish":
        frames.push(...this.#finish(part.reason, part.nativeReason));
        break;
    }
    return frames;
  }

  end(): string[] {
    if (this.#failed || this.#stopped) return [];
    const frames = this.#ensureStarted(undefined);
    if (!this.#finished) frames.push(...this.#finish("stop", undefined));
    this.#stopped = true;
    frames.push(sseFrame({ type: "message_stop" }, "message_stop"));
    return frames;
  }

  error(error: GatewayError): string[] {
    if (this.#failed || this.#stopped) return [];
    this.#failed = true;
    const data = {
      type: "error",
      error: {
        type: anthropicErrorType(error.status),
        message: error.message,
        error_type: error.errorType,
        ...(error.availability ? { availability: error.availability } : {}),
      },
    };
    return [sseFrame(data, "error")];
  }

  #ensureStarted(usage: Usage | undefined): string[] {
    if (this.#started) return [];
    this.#started = true;
    const message: Record<string, unknown> = {
      id: this.#context.id,
      type: "message",
      role: "assistant",
      model: this.#context.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usage === undefined ? { input_tokens: 0, output_tokens: 0 } : { ...anthropicUsage(usage), output_tokens: 0 },
      provider: this.#context.provider,
    };
    return [sseFrame({ type: "message_start", message }, "message_start"), sseFrame({ type: "ping" }, "ping")];
  }

  /** The two blocks of a server tool call, each started and stopped (the open block is stopped first). */
  #serverToolBlocks(call: ServerToolCall, result: ServerToolResult): string[] {
    this.#serverToolUse = countServerToolCall(this.#serverToolUse, call.name, result);
    const frames: string[] = [];
    const use = serverToolUseBlock(call);
    const useIndex = this.#openBlock(frames, { ...use, input: {} });
    frames.push(this.#delta(useIndex, { type: "input_json_delta", partial_json: JSON.stringify(use.input) }), this.#stop(useIndex));
    const resultIndex = this.#openBlock(frames, serverToolResultBlock(call, result));
    frames.push(this.#stop(resultIndex));
    return frames;
  }

  /** Stops the open block, if any, and starts a new one; returns its index (the caller records it as open). */
  #openBlock(frames: string[], contentBlock: Record<string, unknown>): number {
    this.#closeOpen(frames);
    const index = this.#nextIndex++;
    frames.push(sseFrame({ type: "content_block_start", index, content_block: contentBlock }, "content_block_start"));
    return index;
  }

  /** The index of the thinking block to extend, opening one unless an unsigned one is open. */
  #thinkingIndex(frames: string[]): number {
    if (this.#open?.kind === "thinking" && !this.#open.signed) return this.#open.index;
    const index = this.#openBlock(frames, { type: "thinking", thinking: "", signature: "" });
    this.#open = { kind: "thinking", index, signed: false };
    return index;
  }

  #closeOpen(frames: string[]): void {
    if (this.#open === undefined) return;
    frames.push(this.#stop(this.#open.index));
    this.#open = undefined;
  }

  #delta(index: number, delta: Record<string, unknown>): string {
    return sseFrame({ type: "content_block_delta", index, delta }, "content_block_delta");
  }

  #stop(index: number): string {
    return sseFrame({ type: "content_block_stop", index }, "content_block_stop");
  }

  #finish(reason: FinishReason, nativeReason: string | undefined): string[] {
    const frames: string[] = [];
    this.#closeOpen(frames);
    this.#finished = true;
    const usage: Record<string, unknown> = this.#usage === undefined ? { output_tokens: 0 } : { ...anthropicUsage(this.#usage) };
    if (this.#serverToolUse !== undefined) usage.server_tool_use = anthropicServerToolUse(this.#serverToolUse);
    const delta = { stop_reason: anthropicStopReason(reason, nativeReason, this.#sawToolCall), stop_sequence: null };
    const metadata = this.#context.metadata ? { openrouter_metadata: this.#context.metadata } : {};
    frames.push(sseFrame({ type: "message_delta", delta, usage, ...metadata }, "message_delta"));
    return frames;
  }
}

export function createMessagesStreamEncoder(context: EncodeContext): StreamEncoder {
  return new MessagesStreamEncoder(context);
}
