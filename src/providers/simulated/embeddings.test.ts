import { describe, expect, test } from "bun:test";
import type { EmbeddingsRequest, RerankRequest } from "../../core/operations.ts";
import { call } from "../../transport/engine.ts";
import { openAiCompatibleAdapter } from "../openai-compatible/adapter.ts";
import { testEndpoint } from "../test-support.ts";
import { createSimulatedFetch } from "./fetch.ts";

const simulator = createSimulatedFetch({ ttft_ms: 0, tokens_per_second: 0 });
const endpoint = testEndpoint("simulated", "http://simulated.invalid");
const options = { fetch: simulator, signal: new AbortController().signal };

async function embed(input: EmbeddingsRequest["input"], dimensions?: number): Promise<Float32Array[]> {
  const request: EmbeddingsRequest = { model: "sim/embedder", operation: "embeddings", input, encodingFormat: "float", ...(dimensions ? { dimensions } : {}) };
  const answer = await call(openAiCompatibleAdapter.embeddings.buildRequest(request, endpoint, { stream: false, apiKey: undefined }), endpoint, openAiCompatibleAdapter, options);
  return openAiCompatibleAdapter.embeddings.parseResponse(answer, endpoint, request).vectors;
}

async function rerank(query: string, documents: RerankRequest["documents"], topN?: number) {
  const request: RerankRequest = { model: "sim/reranker", operation: "rerank", query, documents, ...(topN ? { topN } : {}) };
  const answer = await call(openAiCompatibleAdapter.rerank.buildRequest(request, endpoint, { stream: false, apiKey: undefined }), endpoint, openAiCompatibleAdapter, options);
  return openAiCompatibleAdapter.rerank.parseResponse(answer, endpoint, request).results;
}

const norm = (vector: Float32Array) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));

describe("simulated embeddings", () => {
  test("unit vectors of 256 dimensions, the same for the same input and different for another", async () => {
    const [first, second, again] = await embed(["a cat", "a dog", "a cat"]);
    expect(first).toHaveLength(256);
    expect(norm(first!)).toBeCloseTo(1, 5);
    expect(again).toEqual(first!);
    expect(second).not.toEqual(first!);
    expect((await embed(["a cat"]))[0]).toEqual(first!);
  });

  test("dimensions are honoured; token inputs are embedded too", async () => {
    const [vector] = await embed([[1, 2, 3]], 32);
    expect(vector).toHaveLength(32);
    expect(norm(vector!)).toBeCloseTo(1, 5);
  });

  test("float and base64 answers carry the same vector", async () => {
    const ask = async (format: string) => {
      const response = await simulator("http://simulated.invalid/embeddings", {
        method: "POST",
        body: JSON.stringify({ model: "sim/embedder", input: "a cat", encoding_format: format }),
      });
      return ((await response.json()) as { data: Array<{ embedding: unknown }> }).data[0]!.embedding;
    };
    const floats = (await ask("float")) as number[];
    const base64 = Buffer.from((await ask("base64")) as string, "base64");
    const view = new DataView(base64.buffer, base64.byteOffset, base64.byteLength);
    expect(Array.from({ length: base64.byteLength / 4 }, (_, index) => view.getFloat32(index * 4, true))).toEqual(floats);
  });
});

describe("simulated rerank", () => {
  test("the document sharing the query's words ranks first; top_n caps the results", async () => {
    const documents = ["The weather in Oslo is cold", { text: "Paris is the capital of France" }, "France exports cheese"];
    const results = await rerank("capital of France", documents);
    expect(results.map((entry) => entry.index)).toEqual([1, 2, 0]);
    expect(results[0]!.relevanceScore).toBeGreaterThan(results[1]!.relevanceScore);
    expect((await rerank("capital of France", documents, 1)).map((entry) => entry.index)).toEqual([1]);
    expect(await rerank("capital of France", documents)).toEqual(results);
  });
});
