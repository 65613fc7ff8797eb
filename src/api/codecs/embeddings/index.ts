import type { EmbeddingsRequest, EmbeddingsResult } from "../../../core/operations.ts";
import type { OperationCodec } from "../operation-codec.ts";
import { decodeEmbeddings } from "./decode.ts";
import { encodeEmbeddings } from "./encode.ts";
import { EmbeddingsBody } from "./schema.ts";

/** `POST /embeddings`: OpenAI's embeddings shape (with OpenRouter's multimodal inputs) ↔ canonical. */
export const embeddingsCodec: OperationCodec<EmbeddingsRequest, EmbeddingsResult> = {
  operation: "embeddings",
  schema: EmbeddingsBody,
  decode: decodeEmbeddings,
  encode: encodeEmbeddings,
};
