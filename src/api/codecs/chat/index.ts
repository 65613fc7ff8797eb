import type { GatewayError } from "../../../core/errors.ts";
import { errorEnvelope } from "../../../core/errors.ts";
import { ChatRequest } from "../../schemas/chat-request.ts";
import type { Codec } from "../codec.ts";
import { decodeChat } from "./decode.ts";
import { createChatStreamEncoder, encodeChatResponse } from "./encode.ts";

/** The spec's envelope; `error.metadata.error_type` is where chat clients look for the typed error. */
export function encodeChatError(error: GatewayError): Record<string, unknown> {
  const body = errorEnvelope(error);
  body.error.metadata = { ...body.error.metadata, error_type: error.errorType };
  return body as unknown as Record<string, unknown>;
}

/** OpenAI Chat Completions, the style of the openai SDK, the OpenRouter SDK and the Vercel AI SDK. */
export const chatCodec: Codec = {
  style: "chat",
  schema: ChatRequest,
  decode: decodeChat,
  encodeResponse: encodeChatResponse,
  createStreamEncoder: createChatStreamEncoder,
  encodeError: encodeChatError,
};
