import { describe, expect, test } from "bun:test";
import { float32Values } from "../../../../test/helpers/embedding-upstreams.ts";
import type { EmbeddingsResult } from "../../../core/operations.ts";
import { ChatRequest } from "../../schemas/chat-request.ts";
import { validate } from "../../../core/validation-errors.ts";
import { codecSteps, encodeContext } from "../operation-test-support.ts";
import { embeddingsCodec } from "./index.ts";

type Json = Record<string, any>;

/** The route's steps: validate the body, then decode it with its envelope. */
const { decode, refusal } = codecSteps(embeddingsCodec);

const context = encodeContext({ id: "gen-123", model: "acme/embedder", provider: "vLLM", providerSlug: "vllm", cost: 0.0003 }, { inputTokens: 12 });

describe("embeddings decode", () => {
  test("a string, a list of strings, token ids and token id lists become a list of inputs", () => {
    expect(decode({ model: "m", input: "hello" }).input).toEqual(["hello"]);
    expect(decode({ model: "m", input: ["a", "b"] }).input).toEqual(["a", "b"]);
    expect(decode({ model: "m", input: [1, 2, 3] }).input).toEqual([[1, 2, 3]]);
    expect(decode({ model: "m", input: [[1, 2], [3]] }).input).toEqual([[1, 2], [3]]);
  });

  test("multimodal objects map their parts like chat: image_url as a string or {url, detail}", () => {
    const request = decode({
      model: "m",
      input: [
        { content: [{ type: "text", text: "a cat" }, { type: "image_url", image_url: "https://images.example/cat.png" }] },
        { content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA", detail: "low" } }] },
      ],
    });
    expect(request.input).toEqual([
      { content: [{ type: "text", text: "a cat" }, { type: "image", url: "https://images.example/cat.png" }] },
      { content: [{ type: "image", url: "data:image/png;base64,AAAA", detail: "low" }] },
    ]);
  });

  test("options: encoding_format (default float), dimensions, input_type; the envelope rides along", () => {
    const plain = decode({ model: "m", input: "x" });
    expect(plain).toEqual({ model: "m", operation: "embeddings", input: ["x"], encodingFormat: "float" });
    const full = decode({
      model: "acme/embedder",
      models: ["acme/embedder", "acme/other"],
      input: "x",
      encoding_format: "base64",
      dimensions: 64,
      input_type: "search_query",
      user: "user-7",
      provider: { order: ["tei", "vllm"], allow_fallbacks: false, sort: "price", max_price: { prompt: 0.1 }, quantizations: ["fp16"], zdr: true },
      plugins: [{ id: "auto-router", allowed_models: ["acme/*"] }],
      route: "fallback",
      session_id: "session-1",
      metadata: { team: "search" },
      preset: "embedder",
    });
    expect(full).toEqual({
      model: "acme/embedder",
      models: ["acme/embedder", "acme/other"],
      provider: { order: ["tei", "vllm"], allow_fallbacks: false, sort: "price", max_price: { prompt: 0.1 }, quantizations: ["fp16"], zdr: true },
      plugins: [{ id: "auto-router", allowed_models: ["acme/*"] }],
      route: "fallback",
      sessionId: "session-1",
      user: "user-7",
      metadata: { team: "search" },
      preset: "embedder",
      operation: "embeddings",
      input: ["x"],
      encodingFormat: "base64",
      dimensions: 64,
      inputType: "search_query",
    });
  });

  test.each([
    ["an empty input list", { input: [] }, "body.input: must have at least 1 item"],
    ["an empty string", { input: "" }, "body.input: must not be empty"],
    ["an empty string in the list", { input: ["a", ""] }, "body.input[1]: must not be empty"],
    ["a non-integer token", { input: [1, 2.5] }, "body.input[1]: expected an integer of at least 0"],
    ["a negative token in a token list", { input: [[1, 2], [3, -1]] }, "body.input[1][1]: must be at least 0"],
    ["dimensions 0", { input: "a", dimensions: 0 }, "body.dimensions: must be at least 1"],
    ["dimensions -3", { input: "a", dimensions: -3 }, "body.dimensions: must be at least 1"],
    ["an unknown encoding", { input: "a", encoding_format: "int8" }, 'body.encoding_format: expected "float" or "base64"'],
    ["no input", { model: "m" }, "body.input: is required"],
    ["an empty multimodal object", { input: [{ content: [] }] }, "body.input[0].content: must have at least 1 item"],
    [
      "an audio part",
      { input: [{ content: [{ type: "input_audio", input_audio: { data: "AA" } }] }] },
      'body.input[0].content[0]: expected {type: "text", text} or {type: "image_url", image_url: {url}}',
    ],
    ["an image part without a URL", { input: [{ content: [{ type: "image_url", image_url: {} }] }] }, "body.input[0].content[0].image_url.url: is required"],
  ])("%s is a 400 naming the field", (_, body, message) => {
    expect(refusal({ model: "m", ...body })).toBe(message);
  });

  test.each([
    ["strings and token arrays", ["a", [1, 2]], "input[1]: expected a string like input[0]"],
    ["token arrays and strings", [[1, 2], "a"], "input[1]: expected a token id array like input[0]"],
    ["token ids and token arrays", [1, [2]], "input[1]: expected a token id like input[0]"],
    ["strings and multimodal objects", ["a", "b", { content: [{ type: "text", text: "c" }] }], "input[2]: expected a string like input[0]"],
  ])("a list mixing %s is a 400 naming the odd item", (_, input, start) => {
    expect(refusal({ model: "m", input })).toStartWith(start);
  });

  test("the envelope fields are checked with the chat body's schemas", () => {
    const chat = { messages: [{ role: "user", content: "hi" }] };
    for (const envelope of [
      { provider: { bogus: true } },
      { provider: { order: "vllm" } },
      { plugins: [{ id: "auto-router", cost_tier: "cheapest" }] },
      { route: "nearest" },
      { session_id: "s".repeat(257) },
      { metadata: { "[key]": "value" } },
      { models: "acme/embedder" },
    ]) {
      const message = validate(ChatRequest, { ...chat, ...envelope }, "body");
      expect(message).not.toBeNull();
      expect(validate(embeddingsCodec.schema, { input: "x", ...envelope }, "body")).toBe(message);
    }
  });
});

describe("embeddings encode", () => {
  const vectors = [Float32Array.from([0.1, -0.25, 1 / 3]), Float32Array.from([2, 0, -1e-7])];
  const result: EmbeddingsResult = { vectors };

  test("floats: one embedding per input in order, the shortest decimals that read back as the same float32", () => {
    const request = decode({ model: "m", input: ["a", "b"] });
    const answer = embeddingsCodec.encode(result, request, context) as { json: Json };
    expect(answer.json).toEqual({
      object: "list",
      data: [
        { object: "embedding", embedding: [0.1, -0.25, 0.33333334], index: 0 },
        { object: "embedding", embedding: [2, 0, -1e-7], index: 1 },
      ],
      model: "acme/embedder",
      id: "gen-123",
      usage: { prompt_tokens: 12, total_tokens: 12, cost: 0.0003, is_byok: false },
    });
    for (const [index, entry] of answer.json.data.entries()) expect(Float32Array.from(entry.embedding)).toEqual(vectors[index]!);
  });

  test("base64: little-endian float32 bytes of each vector, exact", () => {
    const request = decode({ model: "m", input: ["a", "b"], encoding_format: "base64" });
    const answer = embeddingsCodec.encode(result, request, context) as { json: Json };
    const embeddings = answer.json.data.map((entry: Json) => entry.embedding);
    expect(embeddings.every((embedding: unknown) => typeof embedding === "string")).toBe(true);
    expect(Buffer.from(embeddings[0], "base64").subarray(0, 4)).toEqual(Buffer.from([0xcd, 0xcc, 0xcc, 0x3d]));
    expect(embeddings.map(float32Values)).toEqual(vectors.map((vector) => Array.from(vector)));
  });
});
