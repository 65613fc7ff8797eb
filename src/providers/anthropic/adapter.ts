import type { ProviderAdapter } from "../adapter.ts";
import { readAnthropicError } from "./errors.ts";
import { anthropicOutputCap, buildAnthropicRequest } from "./request.ts";
import { parseAnthropicMessage } from "./response.ts";
import { createAnthropicStreamParser } from "./stream.ts";

/** The native Anthropic Messages API: POST {baseUrl}/v1/messages. */
export const anthropicAdapter = {
  specificationVersion: 2,
  id: "anthropic",
  chat: {
    buildRequest: buildAnthropicRequest,
    parseResponse: parseAnthropicMessage,
    createStreamParser: createAnthropicStreamParser,
    outputCap: anthropicOutputCap,
  },
  parseError: readAnthropicError,
} satisfies ProviderAdapter;
