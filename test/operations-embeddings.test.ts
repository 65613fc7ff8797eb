import { describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { embed, embedMany } from "ai";
import { expectedVector, float32Values, REPORTED_TOKENS, startOpenAiEmbeddingsUpstream } from "./helpers/embedding-upstreams.ts";
import { closedPort } from "./helpers/fault-upstream.ts";
import { ADMIN_KEY } from "./helpers/gateway.ts";
import { operationsGatewayForTests } from "./helpers/operations-gateway.ts";

/**
 * `POST /api/v1/embeddings` end to end: the openai SDK and the AI SDK over a socket against a listening
 * gateway, two real OpenAI-wire upstreams (`vllm-a`, `vllm-b`), one that refuses connections (`dead`),
 * and the simulator. Routing, spend, presets and bad input as a client sees them.
 */
type Json = Record<string, any>;

/** USD per million prompt tokens of acme/embed. */
const PROMPT_PRICE = 1.0;
const REPORTED_COST = (REPORTED_TOKENS * PROMPT_PRICE) / 1_000_000;

const [first, second] = [startOpenAiEmbeddingsUpstream(), startOpenAiEmbeddingsUpstream()];
const rig = operationsGatewayForTests(
  `providers:
  vllm-a: { type: openai-compatible, base_url: "${first.url}/v1", api_key: upstream-a-key }
  vllm-b: { type: openai-compatible, base_url: "${second.url}/v1", api_key: upstream-b-key }
  dead: { type: openai-compatible, base_url: "http://127.0.0.1:${closedPort()}/v1" }
  sim: { type: simulated, simulation: { ttft_ms: 0 } }
models:
  - id: acme/embed
    endpoints:
      - { provider: vllm-a, model: embed-a, operations: [embeddings], pricing: { prompt: ${PROMPT_PRICE} } }
  - id: acme/pair
    endpoints:
      - { provider: vllm-a, model: pair-a, operations: [embeddings] }
      - { provider: vllm-b, model: pair-b, operations: [embeddings] }
  - id: acme/gone
    endpoints:
      - { provider: dead, model: gone, operations: [embeddings] }
  - id: acme/chat
    endpoints:
      - { provider: vllm-a, model: chat-a }
  - id: sim/embed
    endpoints:
      - { provider: sim, operations: [embeddings] }
`,
  [first, second],
);

async function embeddings(body: Json, key?: string): Promise<{ status: number; json: Json; response: Response }> {
  const response = await rig.send("POST", "/embeddings", body, { key });
  return { status: response.status, json: (await response.json()) as Json, response };
}

describe("openai SDK: embeddings.create", () => {
  test("a string: the SDK asks for base64 and decodes it; the vector is the upstream's, exact", async () => {
    const answer = await rig.client.embeddings.create({ model: "acme/embed", input: "hello" });
    expect(answer.object).toBe("list");
    expect(answer.model).toBe("acme/embed");
    expect(answer.data).toEqual([{ object: "embedding", index: 0, embedding: expectedVector(0) }]);
    expect(answer.usage).toMatchObject({ prompt_tokens: REPORTED_TOKENS, total_tokens: REPORTED_TOKENS });
    const sent = first.requests.at(-1)!;
    expect(sent.path).toBe("/v1/embeddings");
    expect(sent.body).toMatchObject({ model: "embed-a", input: ["hello"], encoding_format: "base64" });
    expect(sent.headers.authorization).toBe("Bearer upstream-a-key");
    expect(JSON.stringify(sent.headers)).not.toContain(rig.key);
  });

  test("an array of strings: one vector per input, in input order", async () => {
    const answer = await rig.client.embeddings.create({ model: "acme/embed", input: ["one", "two", "three"] });
    expect(answer.data.map((entry) => entry.index)).toEqual([0, 1, 2]);
    expect(answer.data.map((entry) => entry.embedding)).toEqual([0, 1, 2].map((position) => expectedVector(position)));
    expect(first.requests.at(-1)!.body.input).toEqual(["one", "two", "three"]);
  });

  test("token arrays: a list of token id lists is one input each, a flat list of ids is one input", async () => {
    const many = await rig.client.embeddings.create({ model: "acme/embed", input: [[1, 2, 3], [4, 5]] });
    expect(many.data.map((entry) => entry.embedding)).toEqual([expectedVector(0), expectedVector(1)]);
    expect(first.requests.at(-1)!.body.input).toEqual([[1, 2, 3], [4, 5]]);
    const one = await rig.client.embeddings.create({ model: "acme/embed", input: [7, 8, 9] });
    expect(one.data.map((entry) => entry.embedding)).toEqual([expectedVector(0)]);
    expect(first.requests.at(-1)!.body.input).toEqual([[7, 8, 9]]);
  });

  test('encoding_format "base64" asked by the caller: base64 of little-endian float32; "float": numbers', async () => {
    const encoded = await rig.client.embeddings.create({ model: "acme/embed", input: ["a", "b"], encoding_format: "base64" });
    const strings = encoded.data.map((entry) => entry.embedding as unknown as string);
    expect(strings.every((value) => typeof value === "string")).toBe(true);
    expect(strings.map(float32Values)).toEqual([expectedVector(0), expectedVector(1)]);
    const floats = await rig.client.embeddings.create({ model: "acme/embed", input: ["a", "b"], encoding_format: "float" });
    expect(floats.data.map((entry) => entry.embedding)).toEqual([expectedVector(0), expectedVector(1)]);
  });

  test("dimensions reach the upstream and size the vectors", async () => {
    const answer = await rig.client.embeddings.create({ model: "acme/embed", input: "short", dimensions: 8 });
    expect(answer.data[0]!.embedding).toEqual(expectedVector(0, 8));
    expect(first.requests.at(-1)!.body.dimensions).toBe(8);
  });

  test("X-Generation-Id names the record: model, provider, status, tokens, cost, api_type embeddings", async () => {
    const { data: answer, response } = await rig.client.embeddings.create({ model: "acme/embed", input: "record me" }).withResponse();
    const id = response.headers.get("x-generation-id")!;
    expect(id).toStartWith("gen-");
    expect((answer as unknown as Json).id).toBe(id);
    expect((answer.usage as unknown as Json).cost).toBeCloseTo(REPORTED_COST, 12);
    const record = await rig.generation(id);
    expect(record).toMatchObject({
      id,
      model: "acme/embed",
      provider_name: "vllm-a",
      status: 200,
      streamed: false,
      tokens_prompt: REPORTED_TOKENS,
      provider_responses: [{ provider_name: "vllm-a", status: 200 }],
    });
    expect(record.total_cost).toBeCloseTo(REPORTED_COST, 12);
    expect(record.meters).toEqual({ inputTokens: REPORTED_TOKENS });
    expect(record.api_type).toBe("embeddings");
  });
});

describe("AI SDK through @ai-sdk/openai", () => {
  const provider = () => createOpenAI({ baseURL: rig.api, apiKey: rig.key });

  test("embed: one value, its vector and tokens", async () => {
    const result = await embed({ model: provider().embedding("acme/embed"), value: "sunny day", maxRetries: 0 });
    expect(result.embedding).toEqual(expectedVector(0));
    expect(result.usage.tokens).toBe(REPORTED_TOKENS);
    expect(first.requests.at(-1)!.body).toMatchObject({ model: "embed-a", input: ["sunny day"] });
  });

  test("embedMany: every value's vector in order; dimensions through provider options", async () => {
    const result = await embedMany({
      model: provider().embedding("acme/embed"),
      values: ["a", "b", "c"],
      providerOptions: { openai: { dimensions: 6 } },
      maxRetries: 0,
    });
    expect(result.embeddings).toEqual([0, 1, 2].map((position) => expectedVector(position, 6)));
    expect(result.usage.tokens).toBe(REPORTED_TOKENS);
    expect(first.requests.at(-1)!.body).toMatchObject({ input: ["a", "b", "c"], dimensions: 6 });
  });
});

describe("routing embeddings", () => {
  test("the first endpoint answering 503: the second serves, both attempts in the record", async () => {
    first.behave({ status: 503 });
    const { status, json, response } = await embeddings({ model: "acme/pair", input: "x", provider: { order: ["vllm-a", "vllm-b"] } });
    expect(status).toBe(200);
    expect(json.data[0].embedding).toEqual(expectedVector(0));
    expect([first.requests.length, second.requests.length]).toEqual([1, 1]);
    expect(second.requests[0]!.body.model).toBe("pair-b");
    const record = await rig.generation(response.headers.get("x-generation-id")!);
    expect(record.provider_responses.map((attempt: Json) => [attempt.provider_name, attempt.status])).toEqual([
      ["vllm-a", 503],
      ["vllm-b", 200],
    ]);
  });

  test("provider.only and provider.order choose between the two upstreams", async () => {
    expect((await embeddings({ model: "acme/pair", input: "x", provider: { only: ["vllm-b"] } })).status).toBe(200);
    expect([first.requests.length, second.requests.length]).toEqual([0, 1]);
    expect((await embeddings({ model: "acme/pair", input: "x", provider: { order: ["vllm-a", "vllm-b"] } })).status).toBe(200);
    expect([first.requests.length, second.requests.length]).toEqual([1, 1]);
    expect((await embeddings({ model: "acme/pair", input: "x", provider: { order: ["vllm-b", "vllm-a"] } })).status).toBe(200);
    expect([first.requests.length, second.requests.length]).toEqual([1, 2]);
  });

  test("models: the first model's only endpoint unreachable, the next model serves", async () => {
    const { status, json } = await embeddings({ model: "acme/gone", models: ["acme/gone", "acme/embed"], input: "x" });
    expect(status).toBe(200);
    expect(json.model).toBe("acme/embed");
    expect(first.requests.at(-1)!.body.model).toBe("embed-a");
  });

  test("a chat-only model asked for embeddings, and an embeddings model asked for chat: 400 wrong_endpoint", async () => {
    const asEmbeddings = await embeddings({ model: "acme/chat", input: "x" });
    expect(asEmbeddings.status).toBe(400);
    expect(asEmbeddings.json.error).toMatchObject({ code: 400, availability: { code: "wrong_endpoint", requested_models: ["acme/chat"] } });
    const asChat = await rig.send("POST", "/chat/completions", { model: "acme/embed", messages: [{ role: "user", content: "hi" }] });
    expect(asChat.status).toBe(400);
    expect(((await asChat.json()) as Json).error).toMatchObject({ code: 400, availability: { code: "wrong_endpoint" } });
    expect(first.requests).toHaveLength(0);
  });

  test("every endpoint failing: 503 temporarily_unavailable naming each provider's failure", async () => {
    first.behave({ status: 503 });
    second.behave({ status: 503 });
    const { status, json } = await embeddings({ model: "acme/pair", input: "x", provider: { order: ["vllm-a", "vllm-b"] } });
    expect(status).toBe(503);
    expect(json.error.code).toBe(503);
    expect(json.error.availability).toMatchObject({ code: "temporarily_unavailable", retryable: true, affected_providers: ["vllm-a", "vllm-b"] });
    expect(json.error.metadata.previous_errors.map((error: Json) => [error.provider, error.status])).toEqual([
      ["vllm-a", 503],
      ["vllm-b", 503],
    ]);
    expect(json.error.message).toBe("All 2 attempts for acme/pair failed: vllm-a answered 503, vllm-b answered 503.");
    expect(JSON.stringify(json)).not.toContain("127.0.0.1");
  });
});

describe("spend on embeddings", () => {
  test("usage.cost and the record's total_cost are the reported prompt tokens at the endpoint's price", async () => {
    const { json, response } = await embeddings({ model: "acme/embed", input: ["a", "b"] });
    expect(json.usage.prompt_tokens).toBe(REPORTED_TOKENS);
    expect(json.usage.cost).toBeCloseTo(REPORTED_COST, 12);
    const record = await rig.generation(response.headers.get("x-generation-id")!);
    expect(record.total_cost).toBeCloseTo(json.usage.cost, 12);
    expect(record.tokens_prompt).toBe(json.usage.prompt_tokens);
  });

  test("a key whose spend limit is spent answers 402", async () => {
    const created = await rig.send("POST", "/keys", { name: "tiny", limit: 0.000001, limit_reset: "daily" }, { key: ADMIN_KEY });
    const { key } = (await created.json()) as { key: string };
    const spent = await embeddings({ model: "acme/embed", input: "a" }, key);
    expect(spent.status).toBe(200);
    const refused = await embeddings({ model: "acme/embed", input: "a" }, key);
    expect(refused.status).toBe(402);
    expect(refused.json.error.code).toBe(402);
    expect(refused.json.error.message).toContain("spend limit");
    expect(first.requests).toHaveLength(1);
  });
});

describe("presets on embeddings", () => {
  test('"@preset/<slug>" applies the preset\'s model and provider preferences', async () => {
    const created = await rig.send("POST", "/presets/embedder/responses", { model: "acme/pair", provider: { only: ["vllm-b"] } }, { key: ADMIN_KEY });
    expect(created.status).toBe(200);
    const preset = ((await created.json()) as { data: Json }).data;
    const { status, json, response } = await embeddings({ model: "@preset/embedder", input: "from a preset" });
    expect(status).toBe(200);
    expect(json.model).toBe("acme/pair");
    expect([first.requests.length, second.requests.length]).toEqual([0, 1]);
    expect(second.requests[0]!.body).toMatchObject({ model: "pair-b", input: ["from a preset"] });
    expect((await rig.generation(response.headers.get("x-generation-id")!)).preset_id).toBe(preset.id);
  });
});

describe("bad embeddings input", () => {
  test.each([
    ["an empty input list", { model: "acme/embed", input: [] }, "body.input: must have at least 1 item"],
    ["an empty string", { model: "acme/embed", input: "" }, "body.input: must not be empty"],
    ["strings mixed with token arrays", { model: "acme/embed", input: ["a", [1, 2]] }, "input[1]: expected a string like input[0]"],
    ["dimensions 0", { model: "acme/embed", input: "a", dimensions: 0 }, "body.dimensions: must be at least 1"],
    ['encoding_format "hex"', { model: "acme/embed", input: "a", encoding_format: "hex" }, 'body.encoding_format: expected "float" or "base64"'],
    ["no model", { input: "a" }, "model: is required"],
    ["a body that is not JSON", "{input: nope", "Request body is not valid JSON"],
  ])("%s: 400 in the error envelope, naming the field; nothing sent upstream", async (_, body, message) => {
    const { status, json } = await embeddings(body as Json);
    expect(status).toBe(400);
    expect(Object.keys(json).sort()).toEqual(["error", "service_metadata", "user_id"]);
    expect(json.error.code).toBe(400);
    expect(json.error.message).toStartWith(message);
    expect(first.requests).toHaveLength(0);
  });

  test.each([
    ["the wrong number of vectors", { count: 3 }, { input: ["a", "b"] }],
    ["vectors of another length than asked", { dimensions: 5 }, { input: "a", dimensions: 8 }],
  ])("an upstream sending %s: 502 invalid_response", async (_, behaviour, body) => {
    first.behave(behaviour);
    const { status, json } = await embeddings({ model: "acme/embed", ...body });
    expect(status).toBe(502);
    expect(json.error.code).toBe(502);
    expect(json.error.metadata).toMatchObject({ provider: "vllm-a", provider_code: "invalid_response" });
  });
});

describe("simulated embeddings", () => {
  test("deterministic unit vectors per input: 256 dimensions, or as asked", async () => {
    const once = await embeddings({ model: "sim/embed", input: ["alpha", "beta"] });
    const again = await embeddings({ model: "sim/embed", input: ["beta"] });
    expect(once.status).toBe(200);
    const [alpha, beta] = once.json.data.map((entry: Json) => entry.embedding as number[]);
    expect(alpha).toHaveLength(256);
    expect(again.json.data[0].embedding).toEqual(beta);
    expect(alpha).not.toEqual(beta);
    expect(Math.hypot(...alpha!)).toBeCloseTo(1, 5);
    expect(once.json.usage.prompt_tokens).toBeGreaterThan(0);
    const sized = await rig.client.embeddings.create({ model: "sim/embed", input: "alpha", dimensions: 16 });
    expect(sized.data[0]!.embedding).toHaveLength(16);
  });
});
