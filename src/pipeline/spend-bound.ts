import type { Endpoint } from "../core/catalog-types.ts";
import type { CanonicalRequest } from "../core/canonical.ts";

/**
 * Tokens a chat template may add around each message and tool definition (role markers, separators,
 * tool-call framing): more than any known template adds.
 */
const FRAMING_TOKENS = 16;

export interface PromptBound {
  /** No prompt of this request can be more tokens than this: its text counted as one token a byte. */
  tokens: number;
  /** The request carries images or files, whose token count has no bound but the context length. */
  media: boolean;
}

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/**
 * An upper bound of the request's prompt tokens that no tokenizer exceeds: byte-level BPE tokenizers
 * (and SentencePiece with byte fallback) emit at most one token per UTF-8 byte, so every byte of text
 * (messages, system text, tool calls and results, replayed reasoning, tool schemas, the response format)
 * counts as a token, plus framing per message and per tool.
 */
export function promptTokenBound(request: CanonicalRequest): PromptBound {
  let tokens = 0;
  let media = false;
  for (const message of request.messages) {
    tokens += FRAMING_TOKENS;
    for (const part of message.content) {
      if (part.type === "text") tokens += bytes(part.text);
      else media = true;
    }
    if (message.role === "tool") tokens += bytes(message.toolCallId);
    if (message.role === "assistant") {
      for (const call of message.toolCalls ?? []) tokens += FRAMING_TOKENS + bytes(call.id) + bytes(call.name) + bytes(call.arguments);
      for (const part of message.reasoning ?? []) tokens += bytes(part.text) + bytes(part.redacted ?? "") + bytes(part.encrypted ?? "");
    }
  }
  for (const tool of request.tools ?? []) tokens += FRAMING_TOKENS + bytes(JSON.stringify(tool));
  if (request.responseFormat !== undefined) tokens += FRAMING_TOKENS + bytes(JSON.stringify(request.responseFormat));
  return { tokens, media };
}

/**
 * The protocol's own `max_tokens` for a request, where its API requires one (Anthropic's default and its
 * thinking-budget raise); undefined where the upstream decides.
 */
export type OutputCap = (endpoint: Endpoint) => number | undefined;

/**
 * The most output tokens the endpoint may produce for this request: the max_tokens the adapter sends
 * (its own cap, else the request's, else the endpoint's max output), never more than the endpoint's max
 * output or context length. Infinity when nothing bounds it.
 */
export function outputTokenBound(request: CanonicalRequest, endpoint: Endpoint, cap?: number): number {
  const bound = cap ?? request.maxTokens ?? endpoint.maxOutput ?? Number.POSITIVE_INFINITY;
  return Math.min(bound, endpoint.maxOutput ?? Number.POSITIVE_INFINITY, endpoint.contextLength ?? Number.POSITIVE_INFINITY);
}

/** `tokens` at `price` USD per million; no tokens at no price is nothing, even when unbounded. */
function priced(tokens: number, price: number): number {
  return price === 0 || tokens === 0 ? 0 : (tokens * price) / 1_000_000;
}

/**
 * The most a request can cost at one endpoint: the prompt bound (every prompt token at the priciest of
 * the prompt, cache-read and cache-write prices) and the output bound, together never more than the
 * context length (the pricier kind of token gets the room first), plus the per-request and per-image
 * prices. Infinity when the endpoint states no bound for a priced kind of token.
 */
export function endpointCostBound(request: CanonicalRequest, endpoint: Endpoint, prompt: PromptBound, images: number, cap?: number): number {
  const pricing = endpoint.pricing;
  const context = endpoint.contextLength ?? Number.POSITIVE_INFINITY;
  const promptPrice = Math.max(pricing.prompt, pricing.cacheRead, pricing.cacheWrite);
  let promptTokens = Math.min(prompt.media ? Number.POSITIVE_INFINITY : prompt.tokens, context);
  let outputTokens = outputTokenBound(request, endpoint, cap);
  if (Number.isFinite(context)) {
    if (pricing.completion >= promptPrice) promptTokens = Math.min(promptTokens, context - outputTokens);
    else outputTokens = Math.min(outputTokens, context - promptTokens);
  }
  return priced(promptTokens, promptPrice) + priced(outputTokens, pricing.completion) + pricing.request + images * pricing.image;
}

/** The most a request can cost on any of its planned endpoints: what a spend limit reserves. */
export function worstCaseCost(request: CanonicalRequest, endpoints: Iterable<Endpoint>, images: number, outputCap: OutputCap = () => undefined): number {
  const prompt = promptTokenBound(request);
  let worst = 0;
  for (const endpoint of endpoints) worst = Math.max(worst, endpointCostBound(request, endpoint, prompt, images, outputCap(endpoint)));
  // Up to the nano-dollar recorded costs are rounded to (so no actual cost rounds above it), without
  // letting floating-point noise add one.
  return Number.isFinite(worst) ? Math.ceil(worst * 1e9 - 1e-6) / 1e9 : worst;
}
