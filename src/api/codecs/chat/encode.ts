import type { CanonicalResponse, ReasoningPart, StreamPart, ToolCall, Usage } from "../../../core/canonical.ts";
import type { GatewayError } from "../../../core/errors.ts";
import { type EncodeContext, SSE_DONE, type StreamEncoder, sseFrame } from "../codec.ts";

type Json = Record<string, unknown>;

export function chatUsage(usage: Usage, context: EncodeContext): Json {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens, cache_write_tokens: usage.cacheWriteTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    cost: context.costOf(usage),
    is_byok: false,
  };
}

/** A generated image as OpenRouter's chat answers carry it (`message.images`, `delta.images`). */
function imagePart(url: string): Json {
  return { type: "image_url", image_url: { url } };
}

/** The chat completion JSON, with every field the strictest client (the OpenRouter SDK) requires. */
export function encodeChatResponse(response: CanonicalResponse, context: EncodeContext): Json {
  let text = "";
  const reasoning: ReasoningPart[] = [];
  const calls: ToolCall[] = [];
  const images: string[] = [];
  for (const block of response.output) {
    if (block.type === "text") text += block.text;
    else if (block.type === "reasoning") reasoning.push(block.part);
    else if (block.type === "tool-call") calls.push(block.call);
    else if (block.type === "image") images.push(block.url);
  }
  const message: Json = {
    role: "assistant",
    content: text.length > 0 || calls.length === 0 ? text : null,
    refusal: null,
  };
  if (reasoning.length > 0 && !context.request.reasoning?.exclude) {
    message.reasoning = reasoning.map((part) => part.text).join("");
    message.reasoning_details = reasoning.map((part, index) =>
      part.redacted !== undefined
        ? { type: "reasoning.encrypted", data: part.redacted, index }
        : { type: "reasoning.text", text: part.text, ...(part.signature ? { signature: part.signature } : {}), index },
    );
  }
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
  if (response.usage) body.usage = chatUsage(response.usage, context);
  if (context.metadata) body.openrouter_metadata = context.metadata;
  return body;
}

/**
 * Chunks in the order every client accepts: a role chunk first, deltas, one chunk with the finish
 * reason, the usage chunk (`choices: []`) only when the client asked for usage, then `[DONE]`.
 * `system_fingerprint` is absent from chunks (a null there breaks the OpenRouter SDK).
 */
export function createChatStreamEncoder(context: EncodeContext): StreamEncoder {
  const base = () => ({ id: context.id, object: "chat.completion.chunk", created: context.created, model: context.model, provider: context.provider });
  const chunk = (delta: Json, finish: string | null = null, nativeFinish: string | null = null) =>
    sseFrame({ ...base(), choices: [{ index: 0, delta, finish_reason: finish, native_finish_reason: nativeFinish }] });
  const showReasoning = !context.request.reasoning?.exclude;
  let usage: Usage | undefined;

  return {
    start: () => [chunk({ role: "assistant", content: "" })],
    part(part: StreamPart): string[] {
      switch (part.type) {
        case "text-delta":
          return part.text.length > 0 ? [chunk({ content: part.text })] : [];
        case "reasoning-delta":
          return showReasoning && part.text.length > 0
            ? [chunk({ content: "", reasoning: part.text, reasoning_details: [{ type: "reasoning.text", text: part.text, index: 0 }] })]
            : [];
        case "reasoning-signature":
          return showReasoning
            ? [chunk({ content: "", reasoning_details: [{ type: "reasoning.text", text: "", signature: part.signature, index: 0 }] })]
            : [];
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
          const frames = [chunk({}, part.reason, part.nativeReason ?? null)];
          if (usage && context.request.streamUsage) frames.push(sseFrame({ ...base(), choices: [], usage: chatUsage(usage, context) }));
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
