import type { RerankDocument, RerankRequest, RerankResult } from "../../../core/operations.ts";
import type { EncodedAnswer, OperationEncodeContext } from "../operation-codec.ts";

/** The request's document as the answer echoes it: a string as `{text}`, an object as it came. */
function echo(document: RerankDocument | undefined): { text?: string; image?: string } {
  return typeof document === "string" ? { text: document } : { ...document };
}

/**
 * The answer of `POST /rerank`: the results most relevant first (as the adapter sorted them), at most
 * `top_n` of them, each with the document it scores; the generation id as `id`; the tokens and search
 * units charged and their cost; and Cohere's `meta` with the billed units, which Cohere's clients (the AI
 * SDK's cohere provider among them) require.
 */
export function encodeRerank(result: RerankResult, request: RerankRequest, context: OperationEncodeContext): EncodedAnswer {
  // The adapter sorted the results; an upstream without top_n (TEI) scored every document.
  const ranked = request.topN === undefined ? result.results : result.results.slice(0, request.topN);
  const usage: Record<string, number> = {};
  if (context.usage.inputTokens > 0) usage.total_tokens = context.usage.inputTokens;
  if (context.usage.searchUnits !== undefined) usage.search_units = context.usage.searchUnits;
  usage.cost = context.cost;
  return {
    json: {
      id: context.id,
      model: context.model,
      provider: context.provider,
      results: ranked.map((entry) => ({ index: entry.index, relevance_score: entry.relevanceScore, document: echo(request.documents[entry.index]) })),
      usage,
      meta: { billed_units: { search_units: context.usage.searchUnits ?? 0 } },
    },
  };
}
