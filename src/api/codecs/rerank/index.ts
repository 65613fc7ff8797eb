import type { RerankRequest, RerankResult } from "../../../core/operations.ts";
import type { OperationCodec } from "../operation-codec.ts";
import { decodeRerank } from "./decode.ts";
import { encodeRerank } from "./encode.ts";
import { RerankBody } from "./schema.ts";

/** `POST /rerank`: OpenRouter's rerank shape ↔ canonical. */
export const rerankCodec: OperationCodec<RerankRequest, RerankResult> = {
  operation: "rerank",
  schema: RerankBody,
  decode: decodeRerank,
  encode: encodeRerank,
};
