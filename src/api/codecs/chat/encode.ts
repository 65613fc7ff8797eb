import type { CanonicalResponse, ReasoningPart, StreamPart, ToolCall, Usage } from "../../../core/canonical.ts";
import type { GatewayError } from "../../../core/errors.ts";
import type { ServerToolUsage } from "../../../core/server-tools.ts";
import { type EncodeContext, SSE_DONE, type StreamEncoder, sseFrame } from "../codec.ts";
import { countServerToolCall, serverToolUseJson } from "../server-tool-output.ts";
import { CitationSpans, serverToolDetail } from "./server-tools.ts";

type Json = Record<string, unknown>;

/** The chat `usage` object; `serverToolUse` (the server-tool loop's counts) adds `server_tool_use`. */
export function chatUsage(usage: Usage, context: EncodeContext, serverToolUse?: ServerToolUsage): Json {
  const encoded: Json = {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens, cache_write_tokens: usage.cacheWriteTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    cost: context.costOf(usage),
    is_byok: context.isByok ?? false,
  };
  if (serverToolUse !== undefined) encoded.server_tool_use = serverToolUseJson(serverToolUse);
  return encoded;
}

/** A reasoning part's `reasoning_details` entry. */
function reasoningDetail(part: ReasoningPart, index: number): Json {
  return part.redacted !== undefined
    ? { type: "reasoning.encrypted", data: part.redacted, index }
    : { type: "reasoning.text", text: part.text, ...(part.signature ? { signature: part.signature } : {}), index };
}

/** A generated image as OpenRouter's chat answers carry it (`message.images`, `delta.images`). */
function imagePart(url: string): Json {
  return { type: "image_url", image_url: { url } };
}

/**
 * The chat completion JSON, with every field the strictest client (the OpenRouter SDK) requires. Server
 * tool calls are `reasoning_details` entries in output order among the reasoning (kept when reasoning
 * is excluded: they are a record of what ran, not reasoning); citations are `annotations` (see CitationSpans).
 */
export function encodeChatResponse(response: CanonicalResponse, context: EncodeContext): Json {
  const showReasoning = !context.request.reasoning?.exclude;
  let text = "";
  let reasoning = "";
  let serverToolCalls = 0;
  const details: Json[] = [];
  const calls: ToolCall[] = [];
  const images: string[] = [];
  const spans = new CitationSpans();
  const annotations: Json[] = [];
  for (const block of response.output) {
    if (block.type === "text") {
      text += block.text;
      spans.text(block.text);
    } else if (block.type === "reasoning" && showReasoning) {
      reasoning += block.part.text;
      details.push(reasoningDetail(block.part, details.length));
    } else if (block.type === "server-tool-call") {
      details.push(serverToolDetail(block.call, block.result, serverToolCalls++, details.length, context));
    } else if (block.type === "citations") annotations.push(...spans.citations(block.citations));
    else if (block.type === "tool-call") calls.push(block.call);
    else if (block.type === "image") images.push(block.url);
  }
  annotations.push(...spans.finish());
  const message: Json = {
    role: "assistant",
    content: text.length > 0 || calls.length === 0 ? text : null,
    refusal: null,
  };
  if (response.output.some((block) => block.type === "reasoning") && showReasoning) message.reasoning = reasoning;
  if (details.length > 0) message.reasoning_details = details;
  if (annotations.length > 0) message.annotations = annotations;
  if (images.length > 0) message.images = images.map(imagePart);
  if (calls.length > 0) {
    message.tool_calls = calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }));
  }
  const body: Json = {
    id: context.id,
    object: "chat.completion",
    created: context.created,
    model: context.model,
    provider: context.provider,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        logprobs: null,
        finish_reason: response.finishReason,
        native_finish_reason: response.nativeFinishReason ?? null,
        message,
      },
    ],
  };
  if (response.usage) body.usage = chatUsage(response.usage, context, response.serverToolUse);
  if (context.metadata) body.openrouter_metadata = context.metadata;
  return body;
}

/**
 * Chunks in the order every client accepts: a role chunk first, deltas, one chunk with the finish
 * reason, the usage chunk (`choices: []`) only when the client asked for usage, then `[DONE]`.
 * `system_fingerprint` is absent from chunks (a null there breaks the OpenRouter SDK).
 * A server tool call is a `reasoning_details` delta when it arrives; citations are an `annotations`
 * delta once the text they annotate is complete (the next citations after more text, or the finish),
 * with the spans of the JSON answer. Each annotations delta holds new annotations only.
 */
export function createChatStreamEncoder(context: EncodeContext): StreamEncoder {
  const base = () => ({ id: context.id, object: "chat.completion.chunk", created: context.created, model: context.model, provider: context.provider });
  // Every chunk of the stream starts with the same fields: serialised once, each chunk adds its delta
  // (the same bytes as serialising the whole chunk).
  const head = JSON.stringify(base());
  const choicePrefix = `data: ${head === "{}" ? "{" : `${head.slice(0, -1)},`}"choices":[{"index":0,"delta":`;
  const openSuffix = `,"finish_reason":null,"native_finish_reason":null}]}\n\n`;
  const chunk = (delta: Json, finish: string | null = null, nativeFinish: string | null = null) =>
    finish === null && nativeFinish === null
      ? `${choicePrefix}${JSON.stringify(delta)}${openSuffix}`
      : `${choicePrefix}${JSON.stringify(delta)},"finish_reason":${JSON.stringify(finish)},"native_finish_reason":${JSON.stringify(nativeFinish)}}]}\n\n`;
  /** A text delta's chunk: the commonest frame, its delta written out directly. */
  const textChunk = (text: string) => `${choicePrefix}{"content":${JSON.stringify(text)}}${openSuffix}`;
  const showReasoning = !context.request.reasoning?.exclude;
  const spans = new CitationSpans();
  let usage: Usage | undefined;
  let serverToolUse: ServerToolUsage | undefined;
  let serverToolCalls = 0;
  /** `reasoning_details` indexes: reasoning deltas extend one entry until a server tool call takes the next. */
  let nextDetail = 0;
  let reasoningDetail: number | undefined;
  const reasoningIndex = () => (reasoningDetail ??= nextDetail++);
  const annotationFrames = (annotations: Json[]) => (annotations.length > 0 ? [chunk({ annotations })] : []);

  return {
    start: () => [chunk({ role: "assistant", content: "" })],
    part(part: StreamPart): string[] {
      switch (part.type) {
        case "text-delta":
          spans.text(part.text);
          return part.text.length > 0 ? [textChunk(part.text)] : [];
        case "reasoning-delta":
          return showReasoning && part.text.length > 0
            ? [
                chunk({
                  content: "",
                  reasoning: part.text,
                  reasoning_details: [{ type: "reasoning.text", text: part.text, index: reasoningIndex() }],
                }),
              ]
            : [];
        case "reasoning-signature":
          return showReasoning
            ? [chunk({ content: "", reasoning_details: [{ type: "reasoning.text", text: "", signature: part.signature, index: reasoningIndex() }] })]
            : [];
        case "server-tool-call": {
          serverToolUse = countServerToolCall(serverToolUse, part.call.name, part.result);
          reasoningDetail = undefined;
          const detail = serverToolDetail(part.call, part.result, serverToolCalls++, nextDetail++, context);
          return [chunk({ content: "", reasoning_details: [detail] })];
        }
        case "citations":
          return annotationFrames(spans.citations(part.citations));
        case "image":
          return [chunk({ images: [imagePart(part.url)] })];
        case "tool-call-start":
          return [chunk({ tool_calls: [{ index: part.index, id: part.id, type: "function", function: { name: part.name, arguments: "" } }] })];
        case "tool-call-delta":
          return [chunk({ tool_calls: [{ index: part.index, function: { arguments: part.argumentsDelta } }] })];
        case "usage":
          usage = part.usage;
          return [];
        case "finish": {
          const frames = [...annotationFrames(spans.finish()), chunk({}, part.reason, part.nativeReason ?? null)];
          if (usage && context.request.streamUsage) {
            frames.push(sseFrame({ ...base(), choices: [], usage: chatUsage(usage, context, serverToolUse) }));
          }
          if (context.metadata) frames.push(sseFrame({ ...base(), choices: [], openrouter_metadata: context.metadata }));
          return frames;
        }
        default:
          return [];
      }
    },
    end: () => [SSE_DONE],
    debug: (upstreamBody) => [sseFrame({ ...base(), choices: [], debug: { echo_upstream_body: upstreamBody } })],
    error(error: GatewayError): string[] {
      const metadata: Json = { error_type: error.errorType };
      const providerCode = error.metadata?.provider_code;
      if (typeof providerCode === "string") metadata.provider_code = providerCode;
      return [
        sseFrame({
          ...base(),
          error: {
            code: error.status,
            message: error.message,
            metadata,
            ...(error.availability ? { availability: error.availability } : {}),
          },
          choices: [{ index: 0, delta: { content: "" }, finish_reason: "error", native_finish_reason: null }],
        }),
        SSE_DONE,
      ];
    },
  };
}
