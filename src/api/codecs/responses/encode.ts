import type { CanonicalResponse, FinishReason, OutputBlock, Usage } from "../../../core/canonical.ts";
import type { ServerToolUsage, UrlCitation } from "../../../core/server-tools.ts";
import type { EncodeContext } from "../codec.ts";
import { serverToolUseJson } from "../server-tool-output.ts";
import { citationTargets, urlCitationAnnotation } from "./citations.ts";
import { ANTHROPIC_REASONING_FORMAT } from "./input.ts";
import { originOf, restoredCall } from "./tools.ts";

/**
 * Canonical response → Responses `response` object. Every key real clients require is always present
 * (nullable ones as null), see reference/clients.md §2.3. `output_text` is left to the SDKs, which compute it.
 */

export type ResponseStatus = "completed" | "incomplete" | "in_progress" | "failed";
type Json = Record<string, unknown>;

/** Stable id of the output item at `index`: the stream encoder and the final response agree on it. */
export function itemId(context: EncodeContext, kind: "msg" | "rs" | "fc" | "ig" | "st", index: number): string {
  return `${kind}_${context.id.replace(/^gen-/, "")}_${index}`;
}

/** An `output_text` content part; `citations` become its annotations. */
export function outputTextPart(text: string, citations: UrlCitation[] = []): Json {
  return { type: "output_text", text, annotations: citations.map((citation) => urlCitationAnnotation(citation, text)), logprobs: [] };
}

export function summaryPart(text: string): Json {
  return { type: "summary_text", text };
}

/** An image's `result`: the base64 of a data URL without its `data:…;base64,` prefix (any other URL as is). */
export function imageResult(url: string): string {
  const comma = url.indexOf(",");
  return url.startsWith("data:") && comma > 0 ? url.slice(comma + 1) : url;
}

/** `incomplete`: the item the answer was cut in (reference/clients.md §2.3 item statuses). */
export type ItemStatus = "completed" | "incomplete";

/**
 * The output item of one block; `status` is `incomplete` for the block an unfinished answer ended in;
 * `citations` annotate a text block's message (see citations.ts).
 */
export function outputItem(
  block: OutputBlock,
  index: number,
  context: EncodeContext,
  status: ItemStatus = "completed",
  citations?: UrlCitation[],
): Json {
  switch (block.type) {
    case "text":
      return {
        type: "message",
        id: itemId(context, "msg", index),
        status,
        role: "assistant",
        content: [outputTextPart(block.text, citations)],
      };
    case "reasoning": {
      const { part } = block;
      const item: Json = {
        type: "reasoning",
        id: itemId(context, "rs", index),
        summary: part.text === "" ? [] : [summaryPart(part.text)],
      };
      if (part.encrypted !== undefined) item.encrypted_content = part.encrypted;
      if (part.redacted !== undefined) {
        item.encrypted_content = part.redacted;
        item.format = ANTHROPIC_REASONING_FORMAT;
      }
      if (part.signature !== undefined) {
        item.signature = part.signature;
        item.format = ANTHROPIC_REASONING_FORMAT;
      }
      return item;
    }
    case "tool-call": {
      const id = itemId(context, "fc", index);
      const restored = restoredCall(block.call, originOf(context.request.tools, block.call.name), id, "completed");
      if (restored !== undefined) return restored;
      return {
        type: "function_call",
        id,
        call_id: block.call.id,
        name: block.call.name,
        arguments: block.call.arguments,
        status,
      };
    }
    case "image":
      // An image arrives whole: its item is complete even in an answer cut after it.
      return { type: "image_generation_call", id: itemId(context, "ig", index), status: "completed", result: imageResult(block.url) };
    case "server-tool-call":
      // A server tool call the gateway ran: the reference's item for it, under the gateway's namespace.
      return {
        ...block.result.display,
        type: `service:${block.call.name}`,
        id: itemId(context, "st", index),
        status: block.result.isError ? "incomplete" : "completed",
      };
    case "citations":
      // Not an item: the sources annotate a message (citations.ts); visibleOutput leaves them out.
      return { type: "citations" };
  }
}

/** The blocks that are output items: reasoning the client asked to exclude is neither streamed nor returned; citations annotate a message instead. */
export function visibleOutput(output: OutputBlock[], context: EncodeContext): OutputBlock[] {
  const exclude = context.request.reasoning?.exclude === true;
  if (!exclude && !output.some((block) => block.type === "citations")) return output;
  return output.filter((block) => block.type !== "citations" && !(exclude && block.type === "reasoning"));
}

/** The Responses `usage` object; `serverToolUse` (the server-tool loop's counts) adds `server_tool_use`. */
export function encodeUsage(usage: Usage, context: EncodeContext, serverToolUse?: ServerToolUsage): Json {
  const inputDetails: Json = { cached_tokens: usage.cacheReadTokens };
  if (usage.cacheWriteTokens > 0) inputDetails.cache_write_tokens = usage.cacheWriteTokens;
  const encoded: Json = {
    input_tokens: usage.inputTokens,
    input_tokens_details: inputDetails,
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
    cost: context.costOf(usage),
    is_byok: context.isByok ?? false,
  };
  if (serverToolUse !== undefined) encoded.server_tool_use = serverToolUseJson(serverToolUse);
  return encoded;
}

/**
 * A finish `error` is an answer that ended without finishing: the upstream said `error`, or gave no
 * finish reason at all. Its output is returned as `incomplete` (reason `error`, an open enum value in
 * the SDKs), not `failed`: `failed` is for a request that raised an error, which the stream reports
 * with `response.failed` and the error itself.
 */
function statusOf(reason: FinishReason): { status: ResponseStatus; incomplete: Json | null } {
  if (reason === "length") return { status: "incomplete", incomplete: { reason: "max_output_tokens" } };
  if (reason === "content_filter") return { status: "incomplete", incomplete: { reason: "content_filter" } };
  if (reason === "error") return { status: "incomplete", incomplete: { reason: "error" } };
  return { status: "completed", incomplete: null };
}

/** The status of the output item at `index` of `count`: an unfinished answer was cut in its last item. */
export function itemStatus(reason: FinishReason | undefined, index: number, count: number): ItemStatus {
  return reason === "error" && index === count - 1 ? "incomplete" : "completed";
}

/** Function tools echo with every key the SDKs require (`parameters` may be null but must be there). */
function echoTools(tools: unknown): unknown[] {
  if (!Array.isArray(tools)) return [];
  return tools.map((tool) => {
    if (typeof tool !== "object" || tool === null || (tool as Json).type !== "function") return tool;
    const source = tool as Json;
    return {
      ...source,
      description: source.description ?? null,
      parameters: source.parameters ?? null,
      strict: source.strict ?? null,
    };
  });
}

function echoText(text: unknown): Json {
  const source = typeof text === "object" && text !== null ? (text as Json) : {};
  const echoed: Json = { format: source.format ?? { type: "text" } };
  if (source.verbosity !== undefined && source.verbosity !== null) echoed.verbosity = source.verbosity;
  return echoed;
}

/**
 * The response object for `status`, echoing the request. `output`, `usage` and the timestamps are the
 * caller's; everything else derives from the context.
 */
export function responseObject(
  context: EncodeContext,
  fields: { status: ResponseStatus; output: Json[]; completedAt: number | null; incomplete: Json | null; usage: Json | null; error?: Json | null },
): Json {
  const body = context.body;
  const response: Json = {
    id: context.id,
    object: "response",
    created_at: context.created,
    completed_at: fields.completedAt,
    status: fields.status,
    model: context.model,
    output: fields.output,
    error: fields.error ?? null,
    incomplete_details: fields.incomplete,
    instructions: body.instructions ?? null,
    metadata: body.metadata ?? {},
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    temperature: body.temperature ?? null,
    top_p: body.top_p ?? null,
    frequency_penalty: body.frequency_penalty ?? null,
    presence_penalty: body.presence_penalty ?? null,
    tool_choice: body.tool_choice ?? "auto",
    tools: echoTools(body.tools),
    max_output_tokens: body.max_output_tokens ?? null,
    text: echoText(body.text),
    reasoning: body.reasoning ?? null,
    store: false,
    background: false,
    service_tier: body.service_tier ?? "auto",
    user: body.user ?? null,
    usage: fields.usage,
    provider: context.provider,
  };
  if (context.metadata) response.openrouter_metadata = context.metadata;
  return response;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** A complete canonical response → the Responses JSON body. */
export function encodeResponsesResponse(response: CanonicalResponse, context: EncodeContext): Json {
  const { status, incomplete } = statusOf(response.finishReason);
  const visible = visibleOutput(response.output, context);
  const citations = citationTargets(response.output);
  const output = visible.map((block, index) =>
    outputItem(block, index, context, itemStatus(response.finishReason, index, visible.length), citations.get(block)),
  );
  const encoded = responseObject(context, {
    status,
    output,
    completedAt: nowSeconds(),
    incomplete,
    usage: response.usage === undefined ? null : encodeUsage(response.usage, context, response.serverToolUse),
  });
  if (response.usage === undefined) delete encoded.usage;
  return encoded;
}
