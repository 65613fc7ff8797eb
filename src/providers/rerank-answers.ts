/**
 * What every rerank adapter does: send text documents to upstreams that take only text, check the
 * upstream's results against the request and sort them, and meter search units (as billed, else one per
 * query and started hundred documents) and input tokens when reported.
 */
import type { Endpoint } from "../core/catalog-types.ts";
import { GatewayError } from "../core/errors.ts";
import type { RerankRequest, RerankResult } from "../core/operations.ts";
import { emptyUsage, type Usage } from "../core/usage.ts";
import { invalidUpstreamResponse } from "../transport/upstream-errors.ts";

/** The documents as texts, for an upstream that reranks text only; a document with an image is a 400. */
export function textDocuments(request: RerankRequest, endpoint: Endpoint): string[] {
  return request.documents.map((document, index) => {
    if (typeof document === "string") return document;
    if (document.image !== undefined) {
      throw new GatewayError("bad_request", `documents[${index}].image: ${endpoint.provider.name} reranks text documents only`);
    }
    return document.text ?? "";
  });
}

/**
 * The upstream's `{index, score}` entries, checked (each index a document of the request, once; each
 * score a finite number) and sorted most relevant first. Anything else is a 502.
 */
export function rankResults(entries: unknown, request: RerankRequest, endpoint: Endpoint): RerankResult["results"] {
  if (!Array.isArray(entries)) throw invalidUpstreamResponse(endpoint, "no list of results");
  const seen = new Set<number>();
  const results = entries.map((entry) => {
    const index = entry?.index;
    const score = entry?.relevance_score ?? entry?.score;
    if (!Number.isInteger(index) || index < 0 || index >= request.documents.length || seen.has(index)) {
      throw invalidUpstreamResponse(endpoint, `a result for document ${JSON.stringify(index)} of ${request.documents.length}`);
    }
    if (typeof score !== "number" || !Number.isFinite(score)) throw invalidUpstreamResponse(endpoint, `a result without a score for document ${index}`);
    seen.add(index);
    return { index: index as number, relevanceScore: score };
  });
  return results.sort((a, b) => b.relevanceScore - a.relevanceScore);
}

/** Search units of a query over `documents` documents when the upstream does not bill them: one per started hundred. */
export function searchUnitsFor(documents: number): number {
  return Math.max(1, Math.ceil(documents / 100));
}

/** The meters of a rerank call: search units as billed (else counted), input tokens when reported. */
export function rerankUsage(request: RerankRequest, reported: { searchUnits?: unknown; inputTokens?: unknown }): Usage {
  const billed = reported.searchUnits;
  const tokens = reported.inputTokens;
  return {
    ...emptyUsage(),
    inputTokens: typeof tokens === "number" && Number.isInteger(tokens) && tokens >= 0 ? tokens : 0,
    searchUnits: typeof billed === "number" && Number.isFinite(billed) && billed >= 0 ? billed : searchUnitsFor(request.documents.length),
  };
}
