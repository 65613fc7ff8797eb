import { describe, expect, test } from "bun:test";
import { createCohere } from "@ai-sdk/cohere";
import { rerank } from "ai";
import {
  BILLED_SEARCH_UNITS,
  expectedScore,
  REPORTED_TOKENS,
  startCohereUpstream,
  startJinaRerankUpstream,
  startTeiUpstream,
} from "./helpers/embedding-upstreams.ts";
import { operationsGatewayForTests } from "./helpers/operations-gateway.ts";

/**
 * `POST /api/v1/rerank` end to end: plain fetch and the AI SDK's `rerank` (through @ai-sdk/cohere) over
 * a socket against a listening gateway, with real upstreams on the three rerank wires (Jina's through
 * the OpenAI-compatible provider, Cohere v2, TEI) and the simulator.
 */
type Json = Record<string, any>;

/** USD per search unit of acme/cohere-rerank; USD per million tokens of acme/rerank. */
const SEARCH_UNIT_PRICE = 0.002;
const PROMPT_PRICE = 1.0;
const DOCUMENTS = ["alpha", "beta", "gamma", "delta"];

const [jina, cohere, tei] = [startJinaRerankUpstream(), startCohereUpstream(), startTeiUpstream()];
const rig = operationsGatewayForTests(
  `providers:
  jina: { type: openai-compatible, base_url: "${jina.url}/v1", api_key: jina-key }
  co: { type: cohere, base_url: "${cohere.url}", api_key: cohere-key }
  tei: { type: tei, base_url: "${tei.url}" }
  sim: { type: simulated, simulation: { ttft_ms: 0 } }
models:
  - id: acme/rerank
    endpoints:
      - { provider: jina, model: jina-reranker, operations: [rerank], pricing: { prompt: ${PROMPT_PRICE} } }
  - id: acme/cohere-rerank
    endpoints:
      - { provider: co, model: rerank-v3.5, operations: [rerank], pricing: { search_unit: ${SEARCH_UNIT_PRICE} } }
  - id: acme/any-rerank
    endpoints:
      - { provider: jina, model: any-jina, operations: [rerank] }
      - { provider: co, model: any-cohere, operations: [rerank] }
      - { provider: tei, model: any-tei, operations: [rerank] }
  - id: acme/embed-only
    endpoints:
      - { provider: co, model: embed-v4.0, operations: [embeddings] }
  - id: sim/rerank
    endpoints:
      - { provider: sim, operations: [rerank] }
`,
  [jina, cohere, tei],
);

async function reranked(body: Json): Promise<{ status: number; json: Json; response: Response }> {
  const response = await rig.send("POST", "/rerank", body);
  return { status: response.status, json: (await response.json()) as Json, response };
}

/** The upstreams that got a request, by provider slug. */
const called = () => ({ jina: jina.requests.length, co: cohere.requests.length, tei: tei.requests.length });

describe("rerank over fetch", () => {
  test("top_n: the best documents first, each with its score and the document echoed; recorded as rerank", async () => {
    const { status, json, response } = await reranked({ model: "acme/rerank", query: "which letter", documents: DOCUMENTS, top_n: 2 });
    expect(status).toBe(200);
    expect(json.results).toEqual([
      { index: 3, relevance_score: expectedScore(3, 4), document: { text: "delta" } },
      { index: 2, relevance_score: expectedScore(2, 4), document: { text: "gamma" } },
    ]);
    expect(json).toMatchObject({ model: "acme/rerank", id: response.headers.get("x-generation-id") });
    expect(json.usage.total_tokens).toBe(REPORTED_TOKENS);
    expect(json.usage.cost).toBeCloseTo((REPORTED_TOKENS * PROMPT_PRICE) / 1_000_000, 12);
    const sent = jina.requests.at(-1)!;
    expect(sent.path).toBe("/v1/rerank");
    expect(sent.body).toEqual({ model: "jina-reranker", query: "which letter", documents: DOCUMENTS, top_n: 2 });
    expect(sent.headers.authorization).toBe("Bearer jina-key");
    const record = await rig.generation(json.id);
    expect(record).toMatchObject({ model: "acme/rerank", provider_name: "jina", status: 200, tokens_prompt: REPORTED_TOKENS });
    expect(record.total_cost).toBeCloseTo(json.usage.cost, 12);
    expect(record.api_type).toBe("rerank");
  });

  test("{text} objects are echoed as given, every document ranked without top_n", async () => {
    const documents = [{ text: "first" }, "second", { text: "third" }];
    const { status, json } = await reranked({ model: "acme/rerank", query: "q", documents });
    expect(status).toBe(200);
    expect(json.results.map((result: Json) => [result.index, result.document])).toEqual([
      [2, { text: "third" }],
      [1, { text: "second" }],
      [0, { text: "first" }],
    ]);
    const scores = json.results.map((result: Json) => result.relevance_score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(jina.requests.at(-1)!.body.documents).toEqual(["first", "second", "third"]);
    expect(jina.requests.at(-1)!.body.top_n).toBeUndefined();
  });

  test("a document with an image goes to the Jina wire as objects and is echoed with its image", async () => {
    const image = "https://images.example/cat.png";
    const { status, json } = await reranked({ model: "acme/rerank", query: "a cat", documents: ["a dog", { text: "a cat", image }] });
    expect(status).toBe(200);
    expect(json.results[0]).toMatchObject({ index: 1, document: { text: "a cat", image } });
    expect(jina.requests.at(-1)!.body.documents).toEqual([{ text: "a dog" }, { text: "a cat", image }]);
  });

  test("a Cohere-wire upstream billing search units: usage.search_units, their cost, the record's meters", async () => {
    const { status, json } = await reranked({ model: "acme/cohere-rerank", query: "which letter", documents: DOCUMENTS, top_n: 3 });
    expect(status).toBe(200);
    expect(json.results.map((result: Json) => result.index)).toEqual([3, 2, 1]);
    expect(json.usage.search_units).toBe(BILLED_SEARCH_UNITS);
    expect(json.usage.cost).toBeCloseTo(BILLED_SEARCH_UNITS * SEARCH_UNIT_PRICE, 12);
    const sent = cohere.requests.at(-1)!;
    expect(sent.path).toBe("/v2/rerank");
    expect(sent.body).toMatchObject({ model: "rerank-v3.5", query: "which letter", documents: DOCUMENTS, top_n: 3 });
    expect(sent.headers.authorization).toBe("Bearer cohere-key");
    const record = await rig.generation(json.id);
    expect(record.total_cost).toBeCloseTo(json.usage.cost, 12);
    expect(record.meters).toEqual({ searchUnits: BILLED_SEARCH_UNITS });
    expect(record.api_type).toBe("rerank");
  });

  test("an image document for a text-only reranker (Cohere wire) is a 400 naming it", async () => {
    const { status, json } = await reranked({ model: "acme/cohere-rerank", query: "q", documents: ["a", { image: "data:image/png;base64,AAAA" }] });
    expect(status).toBe(400);
    expect(json.error.message).toStartWith("documents[1].image:");
    expect(cohere.requests).toHaveLength(0);
  });

  test("TEI scores every document; the gateway keeps top_n", async () => {
    const { status, json } = await reranked({ model: "acme/any-rerank", query: "q", documents: DOCUMENTS, top_n: 1, provider: { only: ["tei"] } });
    expect(status).toBe(200);
    expect(json.results).toEqual([{ index: 3, relevance_score: expectedScore(3, 4), document: { text: "delta" } }]);
    expect(tei.requests.at(-1)!.body).toMatchObject({ query: "q", texts: DOCUMENTS });
    expect(called()).toEqual({ jina: 0, co: 0, tei: 1 });
  });
});

describe("routing rerank", () => {
  test("the first endpoint answering 503: the next wire serves (Jina → Cohere)", async () => {
    jina.behave({ status: 503 });
    const { status, json } = await reranked({ model: "acme/any-rerank", query: "q", documents: DOCUMENTS, provider: { order: ["jina", "co", "tei"] } });
    expect(status).toBe(200);
    expect(json.provider).toBe("co");
    expect(called()).toEqual({ jina: 1, co: 1, tei: 0 });
    const record = await rig.generation(json.id);
    expect(record.provider_responses.map((attempt: Json) => [attempt.provider_name, attempt.status])).toEqual([
      ["jina", 503],
      ["co", 200],
    ]);
  });

  test("every endpoint failing: 503 temporarily_unavailable naming each provider", async () => {
    for (const upstream of [jina, cohere, tei]) upstream.behave({ status: 503 });
    const { status, json } = await reranked({ model: "acme/any-rerank", query: "q", documents: DOCUMENTS, provider: { order: ["jina", "co", "tei"] } });
    expect(status).toBe(503);
    expect(json.error.availability).toMatchObject({ code: "temporarily_unavailable", affected_providers: ["jina", "co", "tei"] });
    expect(json.error.metadata.previous_errors.map((error: Json) => error.provider)).toEqual(["jina", "co", "tei"]);
  });

  test("an embeddings-only model asked to rerank, and a reranker asked for embeddings: 400 wrong_endpoint", async () => {
    const asRerank = await reranked({ model: "acme/embed-only", query: "q", documents: DOCUMENTS });
    expect(asRerank.status).toBe(400);
    expect(asRerank.json.error).toMatchObject({ code: 400, availability: { code: "wrong_endpoint", requested_models: ["acme/embed-only"] } });
    const asEmbeddings = await rig.send("POST", "/embeddings", { model: "acme/rerank", input: "x" });
    expect(asEmbeddings.status).toBe(400);
    expect(((await asEmbeddings.json()) as Json).error.availability.code).toBe("wrong_endpoint");
    expect(called()).toEqual({ jina: 0, co: 0, tei: 0 });
  });

  test("an upstream ranking a document that does not exist: 502 invalid_response", async () => {
    jina.behave({ body: { results: [{ index: 9, relevance_score: 0.5 }] } });
    const { status, json } = await reranked({ model: "acme/rerank", query: "q", documents: DOCUMENTS });
    expect(status).toBe(502);
    expect(json.error.metadata).toMatchObject({ provider: "jina", provider_code: "invalid_response" });
  });
});

describe("bad rerank input", () => {
  test.each([
    ["no documents", { query: "q", documents: [] }, "body.documents: must have at least 1 item"],
    ["an empty query", { query: "", documents: ["a"] }, "body.query: must not be empty"],
    ["no query", { documents: ["a"] }, "body.query: is required"],
    ["top_n 0", { query: "q", documents: ["a"], top_n: 0 }, "body.top_n: must be at least 1"],
    ["a document without text or image", { query: "q", documents: [{}] }, "documents[0]:"],
  ])("%s: 400 naming the field", async (_, body, message) => {
    const { status, json } = await reranked({ model: "acme/rerank", ...body });
    expect(status).toBe(400);
    expect(json.error.code).toBe(400);
    expect(json.error.message).toStartWith(message);
    expect(called()).toEqual({ jina: 0, co: 0, tei: 0 });
  });
});

/** @ai-sdk/cohere validates answers against Cohere's v2 schema, where `meta` is required. */
describe("AI SDK rerank through @ai-sdk/cohere", () => {
  const provider = () => createCohere({ baseURL: rig.api, apiKey: rig.key });

  test("ranking and reranked documents from the gateway's /rerank", async () => {
    const result = await rerank({ model: provider().reranking("acme/rerank"), query: "which letter", documents: DOCUMENTS, topN: 2, maxRetries: 0 });
    expect(result.ranking).toEqual([
      { originalIndex: 3, score: expectedScore(3, 4), document: "delta" },
      { originalIndex: 2, score: expectedScore(2, 4), document: "gamma" },
    ]);
    expect(result.rerankedDocuments).toEqual(["delta", "gamma"]);
    expect(result.response.id).toStartWith("gen-");
    expect(jina.requests.at(-1)!.body).toMatchObject({ model: "jina-reranker", top_n: 2 });
  });

  test("the Cohere model through the gateway, served by the Cohere upstream", async () => {
    const result = await rerank({ model: provider().reranking("acme/cohere-rerank"), query: "q", documents: ["x", "y"], maxRetries: 0 });
    expect(result.ranking.map((entry) => entry.originalIndex)).toEqual([1, 0]);
    expect(cohere.requests.at(-1)!.body).toMatchObject({ model: "rerank-v3.5", query: "q", documents: ["x", "y"] });
  });
});

describe("simulated rerank", () => {
  test("deterministic: documents sharing the query's words first, the same answer twice", async () => {
    const body = { model: "sim/rerank", query: "red apple", documents: ["a blue car", "red apple pie", "an apple", "nothing here"], top_n: 3 };
    const once = await reranked(body);
    const again = await reranked(body);
    expect(once.status).toBe(200);
    expect(once.json.results.map((result: Json) => result.index)).toEqual([1, 2, 3]);
    expect(once.json.results[0].document).toEqual({ text: "red apple pie" });
    expect(again.json.results).toEqual(once.json.results);
    expect(called()).toEqual({ jina: 0, co: 0, tei: 0 });
  });
});
