import { DEFAULT_MAX_TOKENS, MIN_THINKING_BUDGET, thinkingBudget } from "../providers/anthropic/request.ts";
import type { Endpoint } from "../routing/catalog.ts";
import type { CanonicalRequest } from "./canonical.ts";

/**
 * Tokens a chat template may add around each message and tool definition (role markers, separators,
 * tool-call framing): more than any known template adds.
 */
const FRAMING_TOKENS = 16;
/** The Anthropic adapter raises max_tokens to a thinking budget plus this much room for the answer. */
const THINKING_ANSWER_ROOM = 1024;

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
 * The most output tokens the endpoint may produce for this request: the max_tokens the adapter sends
 * (the request's, else the endpoint's max output; Anthropic's default and its thinking-budget raise),
 * never more than the endpoint's max output or context length. Infinity when nothing bounds it.
 */
export function outputTokenBound(request: CanonicalRequest, endpoint: Endpoint): number {
  let bound = request.maxTokens ?? endpoint.maxOutput ?? Number.POSITIVE_INFINITY;
  if (endpoint.provider.type === "anthropic") {
    bound = request.maxTokens ?? endpoint.maxOutput ?? DEFAULT_MAX_TOKENS;
    const budget = thinkingBudget(request.reasoning);
    if (budget !== undefined) bound = Math.max(bound, Math.max(MIN_THINKING_BUDGET, Math.floor(budget)) + THINKING_ANSWER_ROOM);
  }
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
export function endpointCostBound(request: CanonicalRequest, endpoint: Endpoint, prompt: PromptBound, images: number): number {
  const pricing = endpoint.pricing;
  const context = endpoint.contextLength ?? Number.POSITIVE_INFINITY;
  const promptPrice = Math.max(pricing.prompt, pricing.cacheRead, pricing.cacheWrite);
  let promptTokens = Math.min(prompt.media ? Number.POSITIVE_INFINITY : prompt.tokens, context);
  let outputTokens = outputTokenBound(request, endpoint);
  if (Number.isFinite(context)) {
    if (pricing.completion >= promptPrice) promptTokens = Math.min(promptTokens, context - outputTokens);
    else outputTokens = Math.min(outputTokens, context - promptTokens);
  }
  return priced(promptTokens, promptPrice) + priced(outputTokens, pricing.completion) + pricing.request + images * pricing.image;
}

/** The most a request can cost on any of its planned endpoints: what a spend limit reserves. */
export function worstCaseCost(request: CanonicalRequest, endpoints: Iterable<Endpoint>, images: number): number {
  const prompt = promptTokenBound(request);
  let worst = 0;
  for (const endpoint of endpoints) worst = Math.max(worst, endpointCostBound(request, endpoint, prompt, images));
  // Up to the nano-dollar recorded costs are rounded to (so no actual cost rounds above it), without
  // letting floating-point noise add one.
  return Number.isFinite(worst) ? Math.ceil(worst * 1e9 - 1e-6) / 1e9 : worst;
}
