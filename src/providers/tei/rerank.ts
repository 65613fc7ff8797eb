/**
 * TEI's native rerank: `POST {baseUrl}/rerank {query, texts, raw_scores: false}` → `[{index, score}]`.
 * A TEI server serves one model (no `model` field) and scores every text (no `top_n`); documents are
 * text only. TEI counts nothing: search units are counted.
 */
import type { Endpoint } from "../../core/catalog-types.ts";
import type { RerankRequest, RerankResult } from "../../core/operations.ts";
import type { Operation, UpstreamAnswer } from "../adapter.ts";
import { rankResults, rerankUsage, textDocuments } from "../rerank-answers.ts";
import { teiRequest } from "./request.ts";

function parseTeiRerank(answer: UpstreamAnswer, endpoint: Endpoint, request: RerankRequest): RerankResult {
  return { results: rankResults(answer.body, request, endpoint), usage: rerankUsage(request, {}) };
}

/** The rerank member of the TEI adapter. */
export const teiRerank: Operation<RerankRequest, RerankResult> = {
  buildRequest(request, endpoint, options) {
    return teiRequest("/rerank", { query: request.query, texts: textDocuments(request, endpoint), raw_scores: false }, endpoint, options);
  },
  parseResponse: parseTeiRerank,
};
