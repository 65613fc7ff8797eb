import { describe, expect, test } from "bun:test";
import {
  BILLED_SEARCH_UNITS,
  expectedScore,
  expectedVector,
  REPORTED_TOKENS,
  startCohereUpstream,
} from "../../../test/helpers/embedding-upstreams.ts";
import { serverForTests } from "../../../test/helpers/recording-server.ts";
import type { EmbeddingsRequest, RerankRequest } from "../../core/operations.ts";
import { rejectedGatewayError } from "../../core/test-support.ts";
import { testEndpoint, throughEngine } from "../test-support.ts";
import { cohereAdapter } from "./adapter.ts";

const upstream = serverForTests(startCohereUpstream);
const endpoint = testEndpoint("cohere", upstream.url);
const rerank = (request: RerankRequest) => throughEngine(cohereAdapter, cohereAdapter.rerank, request, endpoint, "co-key");
const embed = (request: EmbeddingsRequest) => throughEngine(cohereAdapter, cohereAdapter.embeddings, request, endpoint, "co-key");

const rerankRequest = (overrides: Partial<RerankRequest> = {}): RerankRequest => ({
  model: "cohere/rerank",
  operation: "rerank",
  query: "capital of France",
  documents: ["Berlin", { text: "Paris" }],
  ...overrides,
});

const embeddingsRequest = (overrides: Partial<EmbeddingsRequest> = {}): EmbeddingsRequest => ({
  model: "cohere/embed",
  operation: "embeddings",
  input: ["first", "second"],
  encodingFormat: "float",
  ...overrides,
});

describe("Cohere v2 rerank through the engine", () => {
  test("POST /v2/rerank with the Bearer key and text documents; billed search units; sorted results", async () => {
    const result = await rerank(rerankRequest({ topN: 1 }));
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe("/v2/rerank");
    expect(sent.headers.authorization).toBe("Bearer co-key");
    expect(sent.body).toEqual({ model: "upstream-model", query: "capital of France", documents: ["Berlin", "Paris"], top_n: 1 });
    expect(result.results).toEqual([
      { index: 1, relevanceScore: expectedScore(1, 2) },
      { index: 0, relevanceScore: expectedScore(0, 2) },
    ]);
    expect(result.usage).toMatchObject({ searchUnits: BILLED_SEARCH_UNITS, inputTokens: 0 });
    expect(result.upstreamId).toBe("cohere-rerank-1");
  });

  test("without billed units, one search unit per started hundred documents", async () => {
    upstream.behave({ withoutUsage: true });
    expect((await rerank(rerankRequest({ documents: Array.from({ length: 100 }, () => "text") }))).usage?.searchUnits).toBe(1);
  });

  test("an image document is refused before anything is sent", async () => {
    const before = upstream.requests.length;
    const error = await rejectedGatewayError(rerank(rerankRequest({ documents: ["Berlin", { image: "https://images.example/paris.png" }] })));
    expect(error.code).toBe("bad_request");
    expect(error.message).toBe("documents[1].image: Test cohere reranks text documents only");
    expect(upstream.requests.length).toBe(before);
  });

  test("an error answer keeps Cohere's message", async () => {
    upstream.behave({ status: 400, errorBody: { id: "e-1", message: "invalid request: query must not be empty" } });
    const error = await rejectedGatewayError(rerank(rerankRequest()));
    expect(error.code).toBe("bad_request");
    expect(error.message).toContain("invalid request: query must not be empty");
  });
});

describe("Cohere v2 embed through the engine", () => {
  test("POST /v2/embed with texts, float embeddings and input_type search_document by default; billed tokens", async () => {
    const result = await embed(embeddingsRequest());
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe("/v2/embed");
    expect(sent.body).toEqual({ model: "upstream-model", texts: ["first", "second"], input_type: "search_document", embedding_types: ["float"] });
    expect(result.vectors.map((vector) => Array.from(vector))).toEqual([expectedVector(0), expectedVector(1)]);
    expect(result.usage?.inputTokens).toBe(REPORTED_TOKENS);
  });

  test("the client's input_type and dimensions (output_dimension) are passed", async () => {
    const result = await embed(embeddingsRequest({ inputType: "search_query", dimensions: 6 }));
    expect(upstream.requests.at(-1)!.body).toMatchObject({ input_type: "search_query", output_dimension: 6 });
    expect(result.vectors[0]).toHaveLength(6);
  });

  test("token id inputs are refused: Cohere embeds text", async () => {
    const error = await rejectedGatewayError(embed(embeddingsRequest({ input: ["text", [1, 2]] })));
    expect(error.code).toBe("bad_request");
    expect(error.message).toBe("input[1]: Test cohere embeds text inputs only");
  });

  test.each([
    ["the wrong count", { count: 1 }, "1 embeddings for 2 inputs"],
    ["no float embeddings", { body: { embeddings: { int8: [[1]] } } }, "no float embeddings"],
    ["a vector that is not numbers", { body: { embeddings: { float: [[1], "AAAAAA=="] } } }, "embedding 1 is not an array of numbers"],
  ])("%s is a 502 invalid_response", async (_, behaviour, message) => {
    upstream.behave(behaviour);
    const error = await rejectedGatewayError(embed(embeddingsRequest()));
    expect(error.metadata).toEqual({ provider: "cohere-test", provider_code: "invalid_response" });
    expect(error.message).toContain(message);
  });
});
