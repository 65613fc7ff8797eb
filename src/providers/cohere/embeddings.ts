/**
 * Cohere v2 embed: `POST {baseUrl}/v2/embed {model, texts, input_type, embedding_types: ["float"]}` →
 * `{id, embeddings: {float: [[...]]}, meta: {billed_units: {input_tokens}}}`. Text inputs only; the input
 * type Cohere requires defaults to `search_document` (what an index embeds).
 */
import type { Endpoint } from "../../core/catalog-types.ts";
import { GatewayError } from "../../core/errors.ts";
import type { EmbeddingsRequest, EmbeddingsResult } from "../../core/operations.ts";
import type { Operation, UpstreamAnswer } from "../adapter.ts";
import { checkVectors, embeddingsUsage, estimateInputTokens, readVector } from "../embedding-answers.ts";
import { invalidUpstreamResponse } from "../../transport/upstream-errors.ts";
import { cohereRequest } from "./request.ts";

type Json = Record<string, any>;

function texts(request: EmbeddingsRequest, endpoint: Endpoint): string[] {
  return request.input.map((input, index) => {
    if (typeof input === "string") return input;
    throw new GatewayError("bad_request", `input[${index}]: ${endpoint.provider.name} embeds text inputs only`);
  });
}

function parseCohereEmbeddings(answer: UpstreamAnswer, endpoint: Endpoint, request: EmbeddingsRequest): EmbeddingsResult {
  const body = answer.body as Json | null;
  const floats = body?.embeddings?.float;
  if (!Array.isArray(floats)) throw invalidUpstreamResponse(endpoint, "no float embeddings");
  const vectors = floats.map((value: unknown, index: number) => {
    const vector = Array.isArray(value) ? readVector(value) : undefined;
    if (vector === undefined) throw invalidUpstreamResponse(endpoint, `embedding ${index} is not an array of numbers`);
    return vector;
  });
  const billed = body?.meta?.billed_units?.input_tokens;
  const result: EmbeddingsResult = {
    vectors: checkVectors(vectors, request, endpoint),
    usage: embeddingsUsage(Number.isInteger(billed) && billed >= 0 ? billed : estimateInputTokens(request.input)),
  };
  if (typeof body?.id === "string") result.upstreamId = body.id;
  return result;
}

/** The embeddings member of the Cohere adapter. */
export const cohereEmbeddings: Operation<EmbeddingsRequest, EmbeddingsResult> = {
  buildRequest(request, endpoint, options) {
    const body: Json = {
      model: endpoint.upstreamModel,
      texts: texts(request, endpoint),
      input_type: request.inputType ?? "search_document",
      embedding_types: ["float"],
    };
    if (request.dimensions !== undefined) body.output_dimension = request.dimensions;
    return cohereRequest("/v2/embed", body, endpoint, options);
  },
  parseResponse: parseCohereEmbeddings,
};
