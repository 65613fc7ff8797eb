import { MessagesRequest } from "../../schemas/messages-request.ts";
import type { Codec } from "../codec.ts";
import { decodeMessages } from "./decode.ts";
import { encodeMessagesError, encodeMessagesResponse } from "./encode.ts";
import { createMessagesStreamEncoder } from "./stream.ts";
import { messagesValidationMessage } from "./validation.ts";

export { decodeMessages } from "./decode.ts";
export { anthropicStopReason, anthropicUsage, encodeMessagesError, encodeMessagesResponse } from "./encode.ts";
export { createMessagesStreamEncoder, MessagesStreamEncoder } from "./stream.ts";

/** The Anthropic Messages style (`POST /api/v1/messages`, clients on @anthropic-ai/sdk). */
export const messagesCodec: Codec = {
  style: "messages",
  schema: MessagesRequest,
  decode: decodeMessages,
  encodeResponse: encodeMessagesResponse,
  createStreamEncoder: createMessagesStreamEncoder,
  encodeError: encodeMessagesError,
  validationMessage: messagesValidationMessage,
};
