import type { CanonicalResponse, FinishReason, OutputBlock, Usage } from "../../core/canonical.ts";
import type { Endpoint } from "../../core/catalog-types.ts";
import { invalidUpstreamResponse } from "../../transport/upstream-errors.ts";
import { chunkError } from "./errors.ts";

type Json = Record<string, any>;

/**
 * A finish reason is a non-empty string. Without one the answer did not finish (the rule the stream
 * parser follows too, where such a stream ends cut): a whole answer keeps its content, reported `error`.
 * An unknown reason is the server's own word for a normal end.
 */
export function mapFinishReason(reason: unknown): FinishReason {
  if (typeof reason !== "string" || reason === "") return "error";
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

/** Some servers (older Ollama among them) say "stop" after calling tools; clients loop on "tool_calls". */
export function finishWithCalls(reason: FinishReason, calledTools: boolean): FinishReason {
  return reason === "stop" && calledTools ? "tool_calls" : reason;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** OpenAI usage (prompt_tokens includes cached tokens) in canonical terms; DeepSeek names cache hits its own way. */
export function mapUsage(usage: Json): Usage {
  return {
    inputTokens: count(usage.prompt_tokens),
    outputTokens: count(usage.completion_tokens),
    cacheReadTokens: count(usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens),
    cacheWriteTokens: count(usage.prompt_tokens_details?.cache_write_tokens),
    reasoningTokens: count(usage.completion_tokens_details?.reasoning_tokens),
  };
}

/** Reasoning text as servers name it: `reasoning_content` (vLLM, DeepSeek, llama.cpp) or `reasoning` (Ollama, OpenRouter). */
export function reasoningOf(message: Json): string | undefined {
  const content = message.reasoning_content;
  if (typeof content === "string" && content.length > 0) return content;
  const reasoning = message.reasoning;
  return typeof reasoning === "string" && reasoning.length > 0 ? reasoning : undefined;
}

/** Message content: a string, or (Mistral and others) an array of parts of which the text parts count. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: Json) => (part?.type === "text" && typeof part.text === "string" ? part.text : "")).join("");
}

/**
 * Generated images as OpenRouter's wire carries them (`images: [{type: "image_url", image_url: {url}}]`
 * on a message or a delta): their URLs, base64 data URLs as a rule.
 */
export function imagesOf(images: unknown): string[] {
  if (!Array.isArray(images)) return [];
  return images.flatMap((image: Json) => {
    const url = typeof image?.image_url === "string" ? image.image_url : image?.image_url?.url;
    return typeof url === "string" && url !== "" ? [url] : [];
  });
}

export function argumentsText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? {});
}

export function parseChatResponse(body: unknown, endpoint: Endpoint): CanonicalResponse {
  const json = body as Json;
  const choice = Array.isArray(json?.choices) ? json.choices[0] : undefined;
  if (!choice || typeof choice.message !== "object" || choice.message === null) {
    if (json?.error && typeof json.error === "object") throw chunkError(json.error, endpoint);
    throw invalidUpstreamResponse(endpoint, "no choices[0].message");
  }
  const message = choice.message as Json;
  const output: OutputBlock[] = [];
  const reasoning = reasoningOf(message);
  if (reasoning) output.push({ type: "reasoning", part: { text: reasoning } });
  const text = textOf(message.content);
  if (text.length > 0) output.push({ type: "text", text });
  for (const url of imagesOf(message.images)) output.push({ type: "image", url });
  const calls: Json[] = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  calls.forEach((call, index) => {
    output.push({
      type: "tool-call",
      call: {
        id: typeof call.id === "string" && call.id !== "" ? call.id : `call_${index}`,
        name: String(call.function?.name ?? ""),
        arguments: argumentsText(call.function?.arguments),
      },
    });
  });
  const response: CanonicalResponse = { output, finishReason: finishWithCalls(mapFinishReason(choice.finish_reason), calls.length > 0) };
  if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") response.nativeFinishReason = choice.finish_reason;
  if (typeof json.id === "string" && json.id !== "") response.upstreamId = json.id;
  if (typeof json.model === "string" && json.model !== "") response.upstreamModel = json.model;
  if (json.usage && typeof json.usage === "object") response.usage = mapUsage(json.usage);
  return response;
}
