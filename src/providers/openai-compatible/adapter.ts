import type { ProviderAdapter } from "../adapter.ts";
import { openAiEmbeddings } from "./embeddings.ts";
import { readChatError } from "./errors.ts";
import { jinaRerank } from "./rerank.ts";
import { openAiImages } from "./images.ts";
import { buildChatRequest } from "./request.ts";
import { parseChatResponse } from "./response.ts";
import { openAiSpeech } from "./speech.ts";
import { createChatStreamParser } from "./stream.ts";
import { openAiTranscription } from "./transcription.ts";
import { openAiVideo } from "./video.ts";

/** Any server speaking OpenAI's Chat Completions: OpenAI, vLLM, Ollama, llama.cpp, Groq, Together, ... */
export const openAiCompatibleAdapter = {
  specificationVersion: 2,
  id: "openai-compatible",
  chat: {
    buildRequest: buildChatRequest,
    parseResponse: parseChatResponse,
    createStreamParser: createChatStreamParser,
  },
  embeddings: openAiEmbeddings,
  rerank: jinaRerank,
  transcription: openAiTranscription,
  speech: openAiSpeech,
  images: openAiImages,
  video: openAiVideo,
  parseError: readChatError,
} satisfies ProviderAdapter;
