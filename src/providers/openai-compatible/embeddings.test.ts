import { describe, expect, test } from "bun:test";
import {
  DEFAULT_DIMENSIONS,
  expectedVector,
  float32Base64,
  REPORTED_TOKENS,
  startOpenAiEmbeddingsUpstream,
} from "../../../test/helpers/embedding-upstreams.ts";
import { serverForTests } from "../../../test/helpers/recording-server.ts";
import type { GatewayError } from "../../core/errors.ts";
import type { EmbeddingsRequest, EmbeddingsResult } from "../../core/operations.ts";
import { rejectedGatewayError } from "../../core/test-support.ts";
import { testEndpoint, throughEngine } from "../test-support.ts";
import { openAiCompatibleAdapter } from "./adapter.ts";

const upstream = serverForTests(startOpenAiEmbeddingsUpstream);
const endpoint = testEndpoint("openai-compatible", `${upstream.url}/v1`);

function request(overrides: Partial<EmbeddingsRequest> = {}): EmbeddingsRequest {
  return { model: "acme/embedder", operation: "embeddings", input: ["first text", "second"], encodingFormat: "float", ...overrides };
}

/** One embeddings call through the engine against the local server. */
const embed = (sent: EmbeddingsRequest) => throughEngine(openAiCompatibleAdapter, openAiCompatibleAdapter.embeddings, sent, endpoint, "sk-embed");
const failure = (sent: EmbeddingsRequest) => rejectedGatewayError(embed(sent));

const vectorsOf = (result: EmbeddingsResult) => result.vectors.map((vector) => Array.from(vector));

describe("OpenAI-compatible embeddings through the engine", () => {
  test("text inputs: base64 asked for and decoded; the model, key and provider headers sent; tokens as reported", async () => {
    const result = await embed(request());
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe("/v1/embeddings");
    expect(sent.body).toEqual({ model: "upstream-model", input: ["first text", "second"], encoding_format: "base64" });
    expect(sent.headers.authorization).toBe("Bearer sk-embed");
    expect(sent.headers["x-team"]).toBe("search");
    expect(vectorsOf(result)).toEqual([expectedVector(0), expectedVector(1)]);
    expect(result.vectors[0]).toBeInstanceOf(Float32Array);
    expect(result.usage?.inputTokens).toBe(REPORTED_TOKENS);
    expect(result.upstreamModel).toBe("upstream-model");
  });

  test("a server that ignores base64 and sends floats is read the same", async () => {
    upstream.behave({ encoding: "float" });
    expect(vectorsOf(await embed(request()))).toEqual([expectedVector(0), expectedVector(1)]);
  });

  test("token id inputs go as lists of ids, base64 asked", async () => {
    const result = await embed(request({ input: [[101, 2023], [7]] }));
    expect(upstream.requests.at(-1)!.body).toEqual({ model: "upstream-model", input: [[101, 2023], [7]], encoding_format: "base64" });
    expect(result.vectors).toHaveLength(2);
  });

  test("dimensions, input_type and user are passed when set", async () => {
    const result = await embed(request({ dimensions: 8, inputType: "search_query", user: "user-9" }));
    expect(upstream.requests.at(-1)!.body).toMatchObject({ dimensions: 8, input_type: "search_query", user: "user-9" });
    expect(vectorsOf(result)).toEqual([expectedVector(0, 8), expectedVector(1, 8)]);
  });

  test("multimodal inputs go as {content: [parts]} with chat's part shapes, without asking for base64", async () => {
    await embed(
      request({
        input: [{ content: [{ type: "text", text: "a cat" }, { type: "image", url: "https://images.example/cat.png", detail: "low" }] }],
      }),
    );
    expect(upstream.requests.at(-1)!.body).toEqual({
      model: "upstream-model",
      input: [{ content: [{ type: "text", text: "a cat" }, { type: "image_url", image_url: { url: "https://images.example/cat.png", detail: "low" } }] }],
    });
  });

  test("vectors come back in input order whatever order the server lists them in", async () => {
    upstream.behave({
      body: {
        data: [
          { index: 1, embedding: float32Base64([5, 6]) },
          { index: 0, embedding: [1, 2] },
        ],
      },
    });
    expect(vectorsOf(await embed(request()))).toEqual([
      [1, 2],
      [5, 6],
    ]);
  });

  test("without usage, input tokens are estimated at a token per four characters", async () => {
    upstream.behave({ withoutUsage: true });
    expect((await embed(request({ input: ["12345", "123"] }))).usage?.inputTokens).toBe(2);
  });

  test.each([
    ["too few vectors", { count: 1 }, {}, "1 embeddings for 2 inputs"],
    ["too many vectors", { count: 3 }, {}, "3 embeddings for 2 inputs"],
    ["the wrong dimension", { dimensions: 5 }, { dimensions: 8 }, "embeddings of 5 dimensions where 8 were asked"],
    ["vectors of different lengths", { body: { data: [{ index: 0, embedding: [1, 2] }, { index: 1, embedding: [1] }] } }, {}, "embeddings of different lengths"],
    ["an index out of range", { body: { data: [{ index: 0, embedding: [1] }, { index: 2, embedding: [1] }] } }, {}, "an embedding for input 2 of 2"],
    ["an index twice", { body: { data: [{ index: 0, embedding: [1] }, { index: 0, embedding: [1] }] } }, {}, "an embedding for input 0 of 2"],
    ["a vector that is neither", { body: { data: [{ index: 0, embedding: { x: 1 } }, { index: 1, embedding: [1] }] } }, {}, "embedding 0 is neither"],
    ["base64 of a partial float", { body: { data: [{ index: 0, embedding: "AAAA" }, { index: 1, embedding: "AAAAAAA=" }] } }, {}, "embedding 0 is neither"],
    ["an empty vector", { body: { data: [{ index: 0, embedding: [] }, { index: 1, embedding: [] }] } }, {}, "an empty embedding"],
    ["no data", { body: { object: "list" } }, {}, "no data list"],
  ])("%s is a 502 invalid_response", async (_, behaviour, overrides, message) => {
    upstream.behave(behaviour);
    const error = await failure(request(overrides));
    expect(error.code).toBe("bad_gateway");
    expect(error.metadata).toEqual({ provider: "openai-compatible-test", provider_code: "invalid_response" });
    expect(error.message).toContain(message);
  });

  test("the default vector length is accepted when no dimensions were asked", async () => {
    expect((await embed(request())).vectors[0]).toHaveLength(DEFAULT_DIMENSIONS);
  });

  test.each([
    [400, "bad_request"],
    [401, "bad_gateway"],
    [429, "rate_limited"],
    [503, "unavailable"],
  ])("an upstream %i maps to %s with the upstream's message", async (status, code) => {
    upstream.behave({ status });
    const error = await failure(request());
    expect(error.code).toBe(code as GatewayError["code"]);
    if (status !== 401) expect(error.message).toContain(`upstream failure ${status}`);
  });
});
