import type { ProviderAdapter } from "../adapter.ts";
import { buildChatRequest } from "./request.ts";
import { createChatStreamParser, parseChatError, parseChatResponse } from "./response.ts";

/** Any server speaking OpenAI's Chat Completions: OpenAI, vLLM, Ollama, llama.cpp, Groq, Together, ... */
export const openAiCompatibleAdapter: ProviderAdapter = {
  buildRequest: buildChatRequest,
  parseResponse: parseChatResponse,
  createStreamParser: createChatStreamParser,
  parseError: parseChatError,
};
