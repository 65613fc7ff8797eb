import type { CanonicalRequest } from "../core/canonical.ts";
import { deadline } from "../core/deadline.ts";
import type { Caller } from "../pipeline/pipeline.ts";
import { buildAnthropicRequest } from "../providers/anthropic/request.ts";
import type { Endpoint } from "../core/catalog-types.ts";
import { estimatePromptTokens } from "../routing/filters.ts";
import type { Services } from "./services.ts";

/**
 * `POST /messages/count_tokens`: the prompt size of a messages body, routed like the messages request
 * itself (its model, preset and provider preferences pick the endpoint it would try first). An endpoint
 * on the Anthropic wire is asked with its own `/v1/messages/count_tokens`; any other endpoint, or an
 * Anthropic one that cannot answer, gets the gateway's own estimate: the prompt estimate routing uses
 * to check context lengths (text, tool calls and tool definitions by size, a flat amount per image),
 * which errs on the high side so that a client keeps its context within the model's window.
 */

/** The fields Anthropic's count_tokens takes; the rest of a messages body (max_tokens, stream, ...) it refuses. */
const COUNTED_FIELDS = ["model", "messages", "system", "tools", "tool_choice", "thinking"] as const;

export interface TokenCount {
  input_tokens: number;
}

export async function countTokens(services: Services, request: CanonicalRequest, caller: Caller, signal: AbortSignal): Promise<TokenCount> {
  const { endpoint, apiKey } = services.pipeline.firstEndpoint(request, caller);
  if (endpoint.provider.type === "anthropic") {
    try {
      const counted = await upstreamCount(services, request, endpoint, apiKey, signal);
      if (counted !== undefined) return { input_tokens: counted };
    } catch (error) {
      if (signal.aborted) throw error;
      services.logger.warn("count_tokens upstream failed; answering with the estimate", {
        provider: endpoint.provider.slug,
        // An upstream's failure is expected: its code and message, no stack trace.
        error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
      });
    }
  }
  return { input_tokens: estimatePromptTokens(request) };
}

/** The upstream's own count, or undefined when its answer carries none. */
async function upstreamCount(
  services: Services,
  request: CanonicalRequest,
  endpoint: Endpoint,
  apiKey: string | undefined,
  signal: AbortSignal,
): Promise<number | undefined> {
  const built = buildAnthropicRequest({ ...request, stream: false }, endpoint, { stream: false, apiKey });
  const body: Record<string, unknown> = {};
  for (const field of COUNTED_FIELDS) if (built.body[field] !== undefined) body[field] = built.body[field];
  const fetch = services.transports.fetchFor(endpoint.provider);
  // Cleared once the answer is read (see deadline.ts).
  const timeout = deadline(endpoint.provider.timeouts.firstByteMs, signal, "count_tokens");
  try {
    const response = await fetch(`${endpoint.provider.baseUrl}/v1/messages/count_tokens`, {
      method: "POST",
      headers: built.headers,
      body: JSON.stringify(body),
      signal: timeout.signal,
    });
    const text = new TextDecoder().decode(await response.bytes());
    if (!response.ok) throw new Error(`status ${response.status}`);
    const parsed = JSON.parse(text) as { input_tokens?: unknown };
    return typeof parsed.input_tokens === "number" && Number.isInteger(parsed.input_tokens) && parsed.input_tokens >= 0 ? parsed.input_tokens : undefined;
  } finally {
    timeout.clear();
  }
}
