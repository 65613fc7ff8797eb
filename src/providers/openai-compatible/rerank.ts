/**
 * Rerank on the Jina wire that vLLM, Infinity and TEI's compatible servers also speak: `POST
 * {baseUrl}/rerank {model, query, documents, top_n}` → `{results: [{index, relevance_score}], usage:
 * {total_tokens}}`. Text documents go as strings; when one has an image, all go as `{text?, image?}`
 * objects (Jina's multimodal form).
 */
import type { Endpoint } from "../../core/catalog-types.ts";
import type { RerankRequest, RerankResult } from "../../core/operations.ts";
import type { BuildOptions, Operation, UpstreamAnswer, UpstreamRequest } from "../adapter.ts";
import { rankResults, rerankUsage } from "../rerank-answers.ts";
import { invalidUpstreamResponse } from "../../transport/upstream-errors.ts";
import { jsonPost, upstreamIdentity } from "./json-post.ts";

type Json = Record<string, any>;

function buildRerankRequest(request: RerankRequest, endpoint: Endpoint, options: BuildOptions): UpstreamRequest {
  const multimodal = request.documents.some((document) => typeof document !== "string" && document.image !== undefined);
  const documents = multimodal
    ? request.documents.map((document) => (typeof document === "string" ? { text: document } : document))
    : request.documents.map((document) => (typeof document === "string" ? document : (document.text ?? "")));
  const body: Json = { model: endpoint.upstreamModel, query: request.query, documents };
  if (request.topN !== undefined) body.top_n = request.topN;
  return jsonPost("/rerank", body, endpoint, options);
}

function parseRerankResponse(answer: UpstreamAnswer, endpoint: Endpoint, request: RerankRequest): RerankResult {
  const body = answer.body as Json | null;
  if (!body || typeof body !== "object") throw invalidUpstreamResponse(endpoint, "not a rerank answer");
  return {
    results: rankResults(body.results, request, endpoint),
    usage: rerankUsage(request, { inputTokens: body.usage?.total_tokens }),
    ...upstreamIdentity(body),
  };
}

/** The rerank member of the OpenAI-compatible adapter. */
export const jinaRerank: Operation<RerankRequest, RerankResult> = {
  buildRequest: buildRerankRequest,
  parseResponse: parseRerankResponse,
};
