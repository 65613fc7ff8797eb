/**
 * TEI's native embed: `POST {baseUrl}/embed {inputs, dimensions?}` → `[[...floats]]`, one vector per
 * input in order. Inputs are texts or token id arrays. TEI reports no usage: input tokens are estimated
 * (a token per four characters).
 */
import type { Endpoint } from "../../core/catalog-types.ts";
import { GatewayError } from "../../core/errors.ts";
import type { EmbeddingsRequest, EmbeddingsResult } from "../../core/operations.ts";
import type { Operation, UpstreamAnswer } from "../adapter.ts";
import { checkVectors, embeddingsUsage, estimateInputTokens, readVector } from "../embedding-answers.ts";
import { invalidUpstreamResponse } from "../../transport/upstream-errors.ts";
import { teiRequest } from "./request.ts";

function inputs(request: EmbeddingsRequest, endpoint: Endpoint): Array<string | number[]> {
  return request.input.map((input, index) => {
    if (typeof input === "string" || Array.isArray(input)) return input;
    throw new GatewayError("bad_request", `input[${index}]: ${endpoint.provider.name} embeds text and token inputs only`);
  });
}

function parseTeiEmbeddings(answer: UpstreamAnswer, endpoint: Endpoint, request: EmbeddingsRequest): EmbeddingsResult {
  if (!Array.isArray(answer.body)) throw invalidUpstreamResponse(endpoint, "not a list of embeddings");
  const vectors = answer.body.map((value: unknown, index: number) => {
    const vector = Array.isArray(value) ? readVector(value) : undefined;
    if (vector === undefined) throw invalidUpstreamResponse(endpoint, `embedding ${index} is not an array of numbers`);
    return vector;
  });
  return { vectors: checkVectors(vectors, request, endpoint), usage: embeddingsUsage(estimateInputTokens(request.input)) };
}

/** The embeddings member of the TEI adapter. */
export const teiEmbeddings: Operation<EmbeddingsRequest, EmbeddingsResult> = {
  buildRequest(request, endpoint, options) {
    const body: Record<string, unknown> = { inputs: inputs(request, endpoint) };
    if (request.dimensions !== undefined) body.dimensions = request.dimensions;
    return teiRequest("/embed", body, endpoint, options);
  },
  parseResponse: parseTeiEmbeddings,
};
