/**
 * Cohere v2 rerank: `POST {baseUrl}/v2/rerank {model, query, documents, top_n}` → `{id, results: [{index,
 * relevance_score}], meta: {billed_units: {search_units}}}`. Documents are text only.
 */
import type { Endpoint } from "../../core/catalog-types.ts";
import type { RerankRequest, RerankResult } from "../../core/operations.ts";
import type { Operation, UpstreamAnswer } from "../adapter.ts";
import { rankResults, rerankUsage, textDocuments } from "../rerank-answers.ts";
import { invalidUpstreamResponse } from "../../transport/upstream-errors.ts";
import { cohereRequest } from "./request.ts";

type Json = Record<string, any>;

function parseCohereRerank(answer: UpstreamAnswer, endpoint: Endpoint, request: RerankRequest): RerankResult {
  const body = answer.body as Json | null;
  if (!body || typeof body !== "object") throw invalidUpstreamResponse(endpoint, "not a rerank answer");
  const billed = body.meta?.billed_units;
  const result: RerankResult = {
    results: rankResults(body.results, request, endpoint),
    usage: rerankUsage(request, { searchUnits: billed?.search_units, inputTokens: billed?.input_tokens }),
  };
  if (typeof body.id === "string") result.upstreamId = body.id;
  return result;
}

/** The rerank member of the Cohere adapter. */
export const cohereRerank: Operation<RerankRequest, RerankResult> = {
  buildRequest(request, endpoint, options) {
    const body: Json = { model: endpoint.upstreamModel, query: request.query, documents: textDocuments(request, endpoint) };
    if (request.topN !== undefined) body.top_n = request.topN;
    return cohereRequest("/v2/rerank", body, endpoint, options);
  },
  parseResponse: parseCohereRerank,
};
