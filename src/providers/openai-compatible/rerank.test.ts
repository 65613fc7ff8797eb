import { describe, expect, test } from "bun:test";
import { expectedScore, REPORTED_TOKENS, startJinaRerankUpstream } from "../../../test/helpers/embedding-upstreams.ts";
import { serverForTests } from "../../../test/helpers/recording-server.ts";
import type { RerankRequest } from "../../core/operations.ts";
import { rejectedGatewayError } from "../../core/test-support.ts";
import { testEndpoint, throughEngine } from "../test-support.ts";
import { openAiCompatibleAdapter } from "./adapter.ts";

const upstream = serverForTests(startJinaRerankUpstream);
const endpoint = testEndpoint("openai-compatible", `${upstream.url}/v1`);

function request(overrides: Partial<RerankRequest> = {}): RerankRequest {
  return { model: "acme/reranker", operation: "rerank", query: "capital of France", documents: ["Berlin", { text: "Paris" }, "Rome"], ...overrides };
}

const ranked = (sent: RerankRequest) => throughEngine(openAiCompatibleAdapter, openAiCompatibleAdapter.rerank, sent, endpoint, "sk-rerank");

describe("Jina-wire rerank through the engine", () => {
  test("text documents go as strings with top_n; results come back sorted, tokens as reported, search units counted", async () => {
    const result = await ranked(request({ topN: 2 }));
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe("/v1/rerank");
    expect(sent.body).toEqual({ model: "upstream-model", query: "capital of France", documents: ["Berlin", "Paris", "Rome"], top_n: 2 });
    expect(sent.headers.authorization).toBe("Bearer sk-rerank");
    expect(result.results).toEqual([
      { index: 2, relevanceScore: expectedScore(2, 3) },
      { index: 1, relevanceScore: expectedScore(1, 3) },
      { index: 0, relevanceScore: expectedScore(0, 3) },
    ]);
    expect(result.usage).toMatchObject({ inputTokens: REPORTED_TOKENS, searchUnits: 1 });
    expect(result.upstreamId).toBe("rerank-upstream-1");
  });

  test("with an image document, every document goes as {text?, image?}", async () => {
    await ranked(request({ documents: ["Berlin", { image: "https://images.example/paris.png" }] }));
    expect(upstream.requests.at(-1)!.body.documents).toEqual([{ text: "Berlin" }, { image: "https://images.example/paris.png" }]);
  });

  test("one search unit per started hundred documents; no usage reported means no tokens", async () => {
    upstream.behave({ withoutUsage: true });
    const result = await ranked(request({ documents: Array.from({ length: 201 }, (_, index) => `document ${index}`) }));
    expect(result.usage).toMatchObject({ inputTokens: 0, searchUnits: 3 });
  });

  test.each([
    ["an index out of range", { results: [{ index: 3, relevance_score: 0.5 }] }, "document 3 of 3"],
    ["an index twice", { results: [{ index: 1, relevance_score: 0.5 }, { index: 1, relevance_score: 0.4 }] }, "document 1 of 3"],
    ["a result without a score", { results: [{ index: 1 }] }, "without a score for document 1"],
    ["no results", { data: [] }, "no list of results"],
  ])("%s is a 502 invalid_response", async (_, body, message) => {
    upstream.behave({ body });
    const error = await rejectedGatewayError(ranked(request()));
    expect(error.metadata).toEqual({ provider: "openai-compatible-test", provider_code: "invalid_response" });
    expect(error.message).toContain(message);
  });
});
