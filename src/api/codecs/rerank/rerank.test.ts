import { describe, expect, test } from "bun:test";
import type { RerankResult } from "../../../core/operations.ts";
import { emptyUsage } from "../../../core/usage.ts";
import { ChatRequest } from "../../schemas/chat-request.ts";
import { validate } from "../../../core/validation-errors.ts";
import { codecSteps, encodeContext } from "../operation-test-support.ts";
import { rerankCodec } from "./index.ts";

type Json = Record<string, any>;

const { decode, refusal } = codecSteps(rerankCodec);

const context = encodeContext({ id: "gen-456", model: "acme/reranker", provider: "Cohere", providerSlug: "cohere", cost: 0.002 }, { searchUnits: 1 });

const documents = ["Paris is the capital of France", { text: "Berlin" }, { image: "https://images.example/eiffel.png" }, { text: "Rome", image: "data:image/png;base64,AAAA" }];

const result: RerankResult = {
  results: [
    { index: 2, relevanceScore: 0.9 },
    { index: 0, relevanceScore: 0.7 },
    { index: 3, relevanceScore: 0.2 },
    { index: 1, relevanceScore: 0.1 },
  ],
};

describe("rerank decode", () => {
  test("query, documents as given, top_n; the envelope rides along", () => {
    const request = decode({
      model: "acme/reranker",
      query: "capital of France",
      documents,
      top_n: 2,
      provider: { only: ["cohere"] },
      user: "user-1",
    });
    expect(request).toEqual({
      model: "acme/reranker",
      provider: { only: ["cohere"] },
      user: "user-1",
      operation: "rerank",
      query: "capital of France",
      documents,
      topN: 2,
    });
  });

  test("a document object keeps only its text and image", () => {
    expect(decode({ model: "m", query: "q", documents: [{ text: "a", title: "ignored" }] }).documents).toEqual([{ text: "a" }]);
  });

  test.each([
    ["no documents", { query: "q", documents: [] }, "body.documents: must have at least 1 item"],
    ["an empty query", { query: "", documents: ["a"] }, "body.query: must not be empty"],
    ["no query", { documents: ["a"] }, "body.query: is required"],
    ["top_n 0", { query: "q", documents: ["a"], top_n: 0 }, "body.top_n: must be at least 1"],
    ["a number as a document", { query: "q", documents: ["a", 7] }, "body.documents[1]: expected a string or {text, image}"],
    ["an image that is no URL", { query: "q", documents: [{ image: "ftp://host/x.png" }] }, "body.documents[0].image: expected an http(s) URL or a data:image/... URI"],
    ["a document with neither text nor image", { query: "q", documents: ["a", {}] }, "documents[1]: expected a string or an object with text, image or both"],
  ])("%s is a 400 naming the field", (_, body, message) => {
    expect(refusal({ model: "m", ...body })).toBe(message);
  });

  test("the envelope fields are checked with the chat body's schemas", () => {
    for (const envelope of [{ provider: { sort: "fastest" } }, { plugins: [{ id: "web", max_results: "many" }] }, { metadata: { key: 1 } }]) {
      const message = validate(ChatRequest, { messages: [{ role: "user", content: "hi" }], ...envelope }, "body");
      expect(message).not.toBeNull();
      expect(validate(rerankCodec.schema, { query: "q", documents: ["a"], ...envelope }, "body")).toBe(message);
    }
  });
});

describe("rerank encode", () => {
  test("results in the adapter's order, each echoing its document (a string as {text}); usage with search units and cost", () => {
    const request = decode({ model: "m", query: "q", documents });
    expect(rerankCodec.encode(result, request, context)).toEqual({
      json: {
        id: "gen-456",
        model: "acme/reranker",
        provider: "Cohere",
        results: [
          { index: 2, relevance_score: 0.9, document: { image: "https://images.example/eiffel.png" } },
          { index: 0, relevance_score: 0.7, document: { text: "Paris is the capital of France" } },
          { index: 3, relevance_score: 0.2, document: { text: "Rome", image: "data:image/png;base64,AAAA" } },
          { index: 1, relevance_score: 0.1, document: { text: "Berlin" } },
        ],
        usage: { search_units: 1, cost: 0.002 },
        meta: { billed_units: { search_units: 1 } },
      },
    });
  });

  test("at most top_n results; total_tokens when tokens were counted", () => {
    const request = decode({ model: "m", query: "q", documents, top_n: 2 });
    const answer = rerankCodec.encode(result, request, { ...context, usage: { ...emptyUsage(), inputTokens: 40, searchUnits: 1 } }) as { json: Json };
    expect(answer.json.results.map((entry: Json) => entry.index)).toEqual([2, 0]);
    expect(answer.json.usage).toEqual({ total_tokens: 40, search_units: 1, cost: 0.002 });
  });
});
