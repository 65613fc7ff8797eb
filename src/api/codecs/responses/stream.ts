import type { CanonicalResponse, OutputBlock, StreamPart } from "../../../core/canonical.ts";
import { ResponseAccumulator } from "../../../core/accumulate.ts";
import type { GatewayError } from "../../../core/errors.ts";
import type { ServerToolUsage } from "../../../core/server-tools.ts";
import { type EncodeContext, sseFrame, type StreamEncoder } from "../codec.ts";
import { countServerToolCall } from "../server-tool-output.ts";
import { fusionEvents } from "./fusion-events.ts";
import { StreamCitations, urlCitationAnnotation } from "./citations.ts";
import { encodeResponsesResponse, encodeUsage, itemId, itemStatus, outputItem, outputTextPart, responseObject, summaryPart } from "./encode.ts";
import { originOf } from "./tools.ts";

/**
 * Canonical stream parts → Responses SSE events (reference/clients.md §2.4). Every event carries `type`
 * and a `sequence_number` counting from 0. Output items open when the accumulator starts a new block
 * (citations are no item), so item ids and output indices match the `response.completed` body, which is
 * `encodeResponse` of the accumulated parts. Text and reasoning items close when anything else begins;
 * function calls stay open until text, reasoning or the finish (providers may interleave the argument
 * deltas of parallel calls). A server tool call arrives whole: its item is added and done at once.
 * Citations wait for the next message and are announced (`response.output_text.annotation.added`) when
 * it closes; with no message after them, they go to the last message at the finish (citations.ts).
 */

type Json = Record<string, unknown>;

interface OpenItem {
  index: number;
  block: OutputBlock;
  kind: OutputBlock["type"];
  /** Reasoning: a summary part was opened (on the first non-empty delta). */
  summaryOpen: boolean;
  /**
   * A call to a tool the client defined as other than a function (custom, shell, ...): its item's shape
   * is known only from the whole arguments, so the item is announced and completed when it closes.
   */
  deferred: boolean;
}

class ResponsesStreamEncoder implements StreamEncoder {
  readonly #context: EncodeContext;
  readonly #accumulator = new ResponseAccumulator();
  /** Output index of each tool call, by its stream index. */
  readonly #callIndex = new Map<number, number>();
  #open: OpenItem[] = [];
  /** Output items so far (blocks but citations). */
  #items = 0;
  readonly #citations = new StreamCitations();
  #serverToolUse: ServerToolUsage | undefined;
  #sequence = 0;
  #started = false;
  #ended = false;

  constructor(context: EncodeContext) {
    this.#context = context;
  }

  start(): string[] {
    if (this.#started) return [];
    this.#started = true;
    const response = responseObject(this.#context, {
      status: "in_progress",
      output: [],
      completedAt: null,
      incomplete: null,
      usage: null,
    });
    return [this.#event("response.created", { response }), this.#event("response.in_progress", { response })];
  }

  part(part: StreamPart): string[] {
    if (this.#ended) return [];
    if (part.type === "error") return this.error(part.error);
    if (this.#hidden(part)) return [];
    const frames = this.start();
    const before = this.#accumulator.output.length;
    this.#accumulator.add(part);
    const block = this.#accumulator.output.at(-1);
    if (this.#accumulator.output.length > before && block !== undefined && block.type !== "citations") {
      const added = this.#items++;
      if (block.type === "image") frames.push(...this.#imageItem(block, added));
      else if (block.type === "server-tool-call") frames.push(...this.#serverToolItem(block, added));
      else frames.push(...this.#openItem(block, added, part));
    }
    const index = this.#items - 1;
    switch (part.type) {
      case "text-delta":
        frames.push(this.#textDelta(index, part.text));
        break;
      case "reasoning-delta":
        if (part.text !== "") frames.push(...this.#reasoningDelta(index, part.text));
        break;
      case "tool-call-delta": {
        const callIndex = this.#callIndex.get(part.index);
        const deferred = this.#open.some((item) => item.index === callIndex && item.deferred);
        if (callIndex !== undefined && part.argumentsDelta !== "" && !deferred) {
          frames.push(
            this.#event("response.function_call_arguments.delta", {
              item_id: itemId(this.#context, "fc", callIndex),
              output_index: callIndex,
              delta: part.argumentsDelta,
            }),
          );
        }
        break;
      }
      case "citations":
        this.#citations.add(part.citations);
        break;
      case "finish":
        frames.push(...this.#trailingCitations(), ...this.#closeAll());
        break;
      default:
        break;
    }
    return frames;
  }

  end(): string[] {
    if (this.#ended) return [];
    const frames = [...this.start(), ...this.#trailingCitations(), ...this.#closeAll()];
    this.#ended = true;
    const response = encodeResponsesResponse(this.#response(), this.#context);
    frames.push(this.#event("response.completed", { response }));
    return frames;
  }

  /** The accumulated response, with the counts of the server tool calls streamed. */
  #response(): CanonicalResponse {
    const response = this.#accumulator.toResponse();
    return this.#serverToolUse === undefined ? response : { ...response, serverToolUse: this.#serverToolUse };
  }

  error(error: GatewayError): string[] {
    if (this.#ended) return [];
    const frames = this.start();
    this.#ended = true;
    frames.push(
      this.#event("error", {
        code: error.errorType,
        message: error.message,
        param: null,
        ...(error.availability ? { availability: error.availability } : {}),
      }),
    );
    const partial = encodeResponsesResponse({ ...this.#response(), finishReason: "error" }, this.#context);
    // Every item still open when the error came was cut: none of them says `completed`.
    const cut = new Set(this.#open.map((item) => item.index));
    const output = (partial.output as Json[]).map((item, index) => (cut.has(index) && "status" in item ? { ...item, status: "incomplete" } : item));
    const usage = this.#accumulator.usage;
    const response = {
      ...partial,
      output,
      status: "failed",
      completed_at: null,
      incomplete_details: null,
      error: { code: error.errorType, message: error.message },
      usage: usage === undefined ? null : encodeUsage(usage, this.#context, this.#serverToolUse),
    };
    frames.push(this.#event("response.failed", { response }));
    return frames;
  }

  /** Reasoning the client excluded never reaches it. */
  #hidden(part: StreamPart): boolean {
    if (this.#context.request.reasoning?.exclude !== true) return false;
    return part.type === "reasoning-delta" || part.type === "reasoning-signature" || part.type === "reasoning-redacted";
  }

  debug(upstreamBody: Json): string[] {
    return [this.#event("response.debug", { debug: { echo_upstream_body: upstreamBody } })];
  }

  #event(type: string, payload: Json): string {
    return sseFrame({ type, sequence_number: this.#sequence++, ...payload }, type);
  }

  #openItem(block: OutputBlock, index: number, part: StreamPart): string[] {
    const frames = block.type === "tool-call" ? this.#closeWhere((item) => item.kind !== "tool-call") : this.#closeAll();
    const origin = block.type === "tool-call" ? originOf(this.#context.request.tools, block.call.name) : undefined;
    const deferred = origin !== undefined && origin.kind !== "namespace";
    this.#open.push({ index, block, kind: block.type, summaryOpen: false, deferred });
    switch (block.type) {
      case "text": {
        const id = itemId(this.#context, "msg", index);
        this.#citations.opened(index, block);
        frames.push(
          this.#event("response.output_item.added", {
            output_index: index,
            item: { type: "message", id, status: "in_progress", role: "assistant", content: [] },
          }),
          this.#event("response.content_part.added", {
            item_id: id,
            output_index: index,
            content_index: 0,
            part: outputTextPart(""),
          }),
        );
        break;
      }
      case "reasoning":
        frames.push(
          this.#event("response.output_item.added", {
            output_index: index,
            item: { type: "reasoning", id: itemId(this.#context, "rs", index), summary: [] },
          }),
        );
        break;
      case "tool-call": {
        if (part.type === "tool-call-start") this.#callIndex.set(part.index, index);
        if (deferred) break;
        const item: Json = {
          type: "function_call",
          id: itemId(this.#context, "fc", index),
          call_id: block.call.id,
          name: block.call.name,
          arguments: "",
          status: "in_progress",
        };
        if (origin?.kind === "namespace") Object.assign(item, { namespace: origin.namespace, name: origin.name });
        frames.push(this.#event("response.output_item.added", { output_index: index, item }));
        break;
      }
    }
    return frames;
  }

  /** An image arrives whole: its item opens, goes through the image_generation_call events and closes at once. */
  #imageItem(block: OutputBlock, index: number): string[] {
    const frames = this.#closeAll();
    const item = outputItem(block, index, this.#context);
    const at = { item_id: item.id, output_index: index };
    frames.push(
      this.#event("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress", result: null } }),
      this.#event("response.image_generation_call.in_progress", at),
      this.#event("response.image_generation_call.generating", at),
      this.#event("response.image_generation_call.completed", at),
      this.#event("response.output_item.done", { output_index: index, item }),
    );
    return frames;
  }

  /** A server tool call the gateway ran arrives whole: its item is added (in progress) and done at once. */
  #serverToolItem(block: OutputBlock & { type: "server-tool-call" }, index: number): string[] {
    const frames = this.#closeAll();
    this.#serverToolUse = countServerToolCall(this.#serverToolUse, block.call.name, block.result);
    const item = outputItem(block, index, this.#context);
    frames.push(this.#event("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress" } }));
    if (block.call.name === "fusion") frames.push(...fusionEvents(block, item.id as string, index, (type, fields) => this.#event(type, fields)));
    frames.push(this.#event("response.output_item.done", { output_index: index, item }));
    return frames;
  }


  /**
   * Citations no message followed: they go to the last message, announced at its close if it is still
   * open, else now (its item was done without them; the final response has them).
   */
  #trailingCitations(): string[] {
    const last = this.#citations.finish();
    if (last === undefined || this.#open.some((item) => item.index === last.index)) return [];
    return this.#annotationEvents(last.index, last.message.text);
  }

  /** `response.output_text.annotation.added` for the citations of a message not announced yet. */
  #annotationEvents(index: number, text: string): string[] {
    return this.#citations.unannounced(index).map(({ citation, annotationIndex }) =>
      this.#event("response.output_text.annotation.added", {
        item_id: itemId(this.#context, "msg", index),
        output_index: index,
        content_index: 0,
        annotation_index: annotationIndex,
        annotation: urlCitationAnnotation(citation, text),
      }),
    );
  }

  #textDelta(index: number, delta: string): string {
    return this.#event("response.output_text.delta", {
      item_id: itemId(this.#context, "msg", index),
      output_index: index,
      content_index: 0,
      delta,
      logprobs: [],
    });
  }

  #reasoningDelta(index: number, delta: string): string[] {
    const frames: string[] = [];
    const id = itemId(this.#context, "rs", index);
    const open = this.#open.find((item) => item.index === index);
    if (open !== undefined && !open.summaryOpen) {
      open.summaryOpen = true;
      frames.push(
        this.#event("response.reasoning_summary_part.added", {
          item_id: id,
          output_index: index,
          summary_index: 0,
          part: summaryPart(""),
        }),
      );
    }
    frames.push(
      this.#event("response.reasoning_summary_text.delta", { item_id: id, output_index: index, summary_index: 0, delta }),
    );
    return frames;
  }

  #closeAll(): string[] {
    return this.#closeWhere(() => true);
  }

  #closeWhere(predicate: (item: OpenItem) => boolean): string[] {
    const closing = this.#open.filter(predicate).sort((a, b) => a.index - b.index);
    this.#open = this.#open.filter((item) => !predicate(item));
    return closing.flatMap((item) => this.#closeItem(item));
  }

  #closeItem(open: OpenItem): string[] {
    const { block, index } = open;
    const citations = this.#citations.of(index);
    const item = outputItem(block, index, this.#context, itemStatus(this.#accumulator.finishReason, index, this.#items), citations);
    const id = item.id as string;
    const frames: string[] = [];
    if (block.type === "text") {
      frames.push(
        ...this.#annotationEvents(index, block.text),
        this.#event("response.output_text.done", {
          item_id: id,
          output_index: index,
          content_index: 0,
          text: block.text,
          logprobs: [],
        }),
        this.#event("response.content_part.done", {
          item_id: id,
          output_index: index,
          content_index: 0,
          part: outputTextPart(block.text, citations),
        }),
      );
    } else if (block.type === "reasoning" && open.summaryOpen) {
      const text = block.part.text;
      frames.push(
        this.#event("response.reasoning_summary_text.done", { item_id: id, output_index: index, summary_index: 0, text }),
        this.#event("response.reasoning_summary_part.done", {
          item_id: id,
          output_index: index,
          summary_index: 0,
          part: summaryPart(text),
        }),
      );
    } else if (block.type === "tool-call") {
      frames.push(...this.#callFrames(item, index, open.deferred));
    }
    frames.push(this.#event("response.output_item.done", { output_index: index, item }));
    return frames;
  }

  /** The events that complete a call item before its `output_item.done`, announcing a deferred one first. */
  #callFrames(item: Json, index: number, deferred: boolean): string[] {
    const frames: string[] = [];
    const at = { item_id: item.id, output_index: index };
    if (deferred) frames.push(this.#event("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress" } }));
    if (item.type === "custom_tool_call") {
      frames.push(
        this.#event("response.custom_tool_call_input.delta", { ...at, delta: item.input }),
        this.#event("response.custom_tool_call_input.done", { ...at, input: item.input }),
      );
    } else if (item.type === "function_call") {
      // A deferred call whose arguments did not fit its tool kind is shown as the function call it is.
      if (deferred) frames.push(this.#event("response.function_call_arguments.delta", { ...at, delta: item.arguments }));
      frames.push(this.#event("response.function_call_arguments.done", { ...at, arguments: item.arguments, name: item.name }));
    }
    return frames;
  }
}

export function createResponsesStreamEncoder(context: EncodeContext): StreamEncoder {
  return new ResponsesStreamEncoder(context);
}
