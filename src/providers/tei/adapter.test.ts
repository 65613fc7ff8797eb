import { describe, expect, test } from "bun:test";
import { expectedScore, expectedVector, startTeiUpstream } from "../../../test/helpers/embedding-upstreams.ts";
import { serverForTests } from "../../../test/helpers/recording-server.ts";
import type { EmbeddingsRequest, RerankRequest } from "../../core/operations.ts";
import { rejectedGatewayError } from "../../core/test-support.ts";
import { testEndpoint, throughEngine } from "../test-support.ts";
import { teiAdapter } from "./adapter.ts";

const upstream = serverForTests(startTeiUpstream);
const endpoint = testEndpoint("tei", upstream.url);
const rerank = (request: RerankRequest) => throughEngine(teiAdapter, teiAdapter.rerank, request, endpoint);
const embed = (request: EmbeddingsRequest) => throughEngine(teiAdapter, teiAdapter.embeddings, request, endpoint, "tei-key");

const embeddingsRequest = (overrides: Partial<EmbeddingsRequest> = {}): EmbeddingsRequest => ({
  model: "bge/small",
  operation: "embeddings",
  input: ["12345678", "1234"],
  encodingFormat: "float",
  ...overrides,
});

describe("TEI rerank through the engine", () => {
  test("POST /rerank {query, texts, raw_scores: false}; every text scored and sorted; search units counted, no tokens", async () => {
    const request: RerankRequest = { model: "bge/reranker", operation: "rerank", query: "capital", documents: ["Berlin", { text: "Paris" }, "Rome"], topN: 1 };
    const result = await rerank(request);
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe("/rerank");
    expect(sent.body).toEqual({ query: "capital", texts: ["Berlin", "Paris", "Rome"], raw_scores: false });
    expect(sent.headers.authorization).toBeUndefined();
    expect(result.results.map((entry) => entry.index)).toEqual([2, 1, 0]);
    expect(result.results[0]!.relevanceScore).toBe(expectedScore(2, 3));
    expect(result.usage).toMatchObject({ inputTokens: 0, searchUnits: 1 });
  });

  test("an error answer keeps TEI's message and error type", async () => {
    upstream.behave({ status: 413, errorBody: { error: "batch size 300 > maximum allowed batch size 256", error_type: "Validation" } });
    const error = await rejectedGatewayError(rerank({ model: "m", operation: "rerank", query: "q", documents: ["a"] }));
    expect(error.code).toBe("payload_too_large");
    expect(error.message).toContain("batch size 300");
    expect(error.metadata?.provider_code).toBe("Validation");
  });
});

describe("TEI embed through the engine", () => {
  test("POST /embed {inputs}; vectors in order; input tokens estimated at a token per four characters", async () => {
    const result = await embed(embeddingsRequest());
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe("/embed");
    expect(sent.body).toEqual({ inputs: ["12345678", "1234"] });
    expect(sent.headers.authorization).toBe("Bearer tei-key");
    expect(result.vectors.map((vector) => Array.from(vector))).toEqual([expectedVector(0), expectedVector(1)]);
    expect(result.usage?.inputTokens).toBe(3);
  });

  test("dimensions are passed; token id inputs count their ids", async () => {
    const result = await embed(embeddingsRequest({ input: [[1, 2, 3], [4]], dimensions: 2 }));
    expect(upstream.requests.at(-1)!.body).toEqual({ inputs: [[1, 2, 3], [4]], dimensions: 2 });
    expect(result.vectors[1]).toHaveLength(2);
    expect(result.usage?.inputTokens).toBe(4);
  });

  test("a multimodal input is refused before anything is sent", async () => {
    const error = await rejectedGatewayError(embed(embeddingsRequest({ input: [{ content: [{ type: "image", url: "https://images.example/a.png" }] }] })));
    expect(error.message).toBe("input[0]: Test tei embeds text and token inputs only");
  });

  test.each([
    ["the wrong count", { count: 3 }, {}, "3 embeddings for 2 inputs"],
    ["the wrong dimension", { dimensions: 3 }, { dimensions: 2 }, "embeddings of 3 dimensions where 2 were asked"],
    ["not a list", { body: { embeddings: [] } }, {}, "not a list of embeddings"],
  ])("%s is a 502 invalid_response", async (_, behaviour, overrides, message) => {
    upstream.behave(behaviour);
    const error = await rejectedGatewayError(embed(embeddingsRequest(overrides)));
    expect(error.metadata).toEqual({ provider: "tei-test", provider_code: "invalid_response" });
    expect(error.message).toContain(message);
  });
});
