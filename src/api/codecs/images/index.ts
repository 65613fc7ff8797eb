import type { ImagesRequest, ImagesResult } from "../../../core/operations.ts";
import type { OperationCodec } from "../operation-codec.ts";
import { decodeImages } from "./decode.ts";
import { encodeImages } from "./encode.ts";
import { ImagesRequestBody } from "./schema.ts";

/**
 * Image generation on the dedicated endpoint (POST /images). `stream: true` is accepted and answered
 * with the same buffered JSON: the reference allows it for endpoints that do not stream natively, and
 * no adapter streams partial images.
 */
export const imagesCodec: OperationCodec<ImagesRequest, ImagesResult> = {
  operation: "images",
  schema: ImagesRequestBody,
  decode: decodeImages,
  encode: encodeImages,
};
