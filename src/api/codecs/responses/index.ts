import { ResponsesRequest } from "../../schemas/responses-request.ts";
import type { Codec } from "../codec.ts";
import { decodeResponsesRequest } from "./decode.ts";
import { encodeResponsesResponse } from "./encode.ts";
import { encodeResponsesError } from "./errors.ts";
import { createResponsesStreamEncoder } from "./stream.ts";

/** `POST /responses`: the stateless Responses style. */
export const responsesCodec: Codec = {
  style: "responses",
  schema: ResponsesRequest,
  decode: decodeResponsesRequest,
  encodeResponse: encodeResponsesResponse,
  createStreamEncoder: createResponsesStreamEncoder,
  encodeError: encodeResponsesError,
};

export { decodeResponsesRequest, encodeResponsesError, encodeResponsesResponse, createResponsesStreamEncoder };
