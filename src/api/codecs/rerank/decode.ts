import type { RoutingEnvelope } from "../../../core/envelope.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { RerankDocument, RerankRequest } from "../../../core/operations.ts";

type Json = Record<string, any>;

/** A validated document: a string as it is, an object with only the text and image it has. */
function document(value: string | Json, index: number): RerankDocument {
  if (typeof value === "string") return value;
  if (value.text === undefined && value.image === undefined) {
    throw new GatewayError("bad_request", `documents[${index}]: expected a string or an object with text, image or both`);
  }
  return { ...(value.text !== undefined ? { text: value.text } : {}), ...(value.image !== undefined ? { image: value.image } : {}) };
}

/** A validated `POST /rerank` body → the canonical request: the envelope plus query, documents and top_n. */
export function decodeRerank(body: Json, envelope: RoutingEnvelope): RerankRequest {
  const request: RerankRequest = {
    ...envelope,
    operation: "rerank",
    query: body.query,
    documents: (body.documents as Array<string | Json>).map(document),
  };
  if (body.top_n !== undefined) request.topN = body.top_n;
  return request;
}
