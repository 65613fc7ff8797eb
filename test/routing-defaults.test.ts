import { afterAll, beforeAll, expect, test } from "bun:test";
import { balanceWeights } from "../src/routing/router.ts";
import { callApi, listening, newInferenceKey } from "./helpers/gateway.ts";
import { sseEvents } from "./helpers/inference-setup.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/**
 * Routing defaults an operator expects, against real local upstreams. `free1` and `free2` declare no
 * price; `cheap` costs $1 and `dear` $2 (prompt, per million tokens). Unpriced endpoints are balanced
 * evenly among themselves and count as much as an average priced one; 1/price² applies among the
 * priced ones. A `provider.order` naming a provider the config does not declare is reported.
 */
let upstream: Upstream;
let gateway: Awaited<ReturnType<typeof listening>>;
let key: string;

beforeAll(async () => {
  upstream = startOpenAiUpstream();
  gateway = await listening({
    configText: `providers:
  free1: { type: openai-compatible, base_url: "${upstream.url}/v1" }
  free2: { type: openai-compatible, base_url: "${upstream.url}/v1" }
  cheap: { type: openai-compatible, base_url: "${upstream.url}/v1" }
  dear: { type: openai-compatible, base_url: "${upstream.url}/v1" }
models:
  - id: t/mixed
    endpoints:
      - { provider: free1, model: up-free1 }
      - { provider: free2, model: up-free2 }
      - { provider: cheap, model: up-cheap, pricing: { prompt: 1 } }
      - { provider: dear, model: up-dear, pricing: { prompt: 2 } }
`,
  });
  key = await newInferenceKey(gateway.url, "routing-defaults");
});

afterAll(async () => {
  await gateway.stop();
  await upstream.stop();
});

function chat(body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return fetch(`${gateway.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "t/mixed", messages: [{ role: "user", content: "hi" }], ...body }),
  });
}

test("the rule: an unpriced endpoint weighs as much as the average priced one, and 1/price² applies among the priced", () => {
  // Only unpriced, or only priced: as before (even; inverse square of price).
  expect(balanceWeights([0, 0, 0])).toEqual([1, 1, 1]);
  const priced = balanceWeights([1, 2]);
  expect(priced[0]! / priced[1]!).toBeCloseTo(4);
  // Mixed: each group's share is its number of endpoints; 1 unpriced + 1 priced split 1:1.
  expect(balanceWeights([0, 5])).toEqual([1, 1]);
  const mixed = balanceWeights([0, 0, 1, 2]);
  const total = mixed.reduce((sum, weight) => sum + weight, 0);
  expect(mixed.map((weight) => weight / total)).toEqual([0.25, 0.25, expect.closeTo(0.4, 10), expect.closeTo(0.1, 10)]);
});

test("over many requests, the unpriced endpoints do not take the traffic: each gets about a quarter, the cheap one four times the dear one", async () => {
  const runs = 400;
  const before = upstream.requests.length;
  for (let i = 0; i < runs; i++) {
    const response = await chat();
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  }
  const counts: Record<string, number> = { "up-free1": 0, "up-free2": 0, "up-cheap": 0, "up-dear": 0 };
  for (const request of upstream.requests.slice(before)) counts[request.body.model as string]!++;
  expect(Object.values(counts).reduce((sum, count) => sum + count, 0)).toBe(runs);
  // Expected 100, 100, 160, 40 (standard deviations about 9, 9, 10, 6): the bounds are over 4 of them.
  // The old default (an unpriced endpoint as a tenth of the cheapest price) sent about 99% to free1 and free2.
  expect(counts["up-free1"]).toBeGreaterThan(60);
  expect(counts["up-free1"]).toBeLessThan(140);
  expect(counts["up-free2"]).toBeGreaterThan(60);
  expect(counts["up-free2"]).toBeLessThan(140);
  expect(counts["up-cheap"]).toBeGreaterThan(115);
  expect(counts["up-cheap"]).toBeLessThan(205);
  expect(counts["up-dear"]).toBeGreaterThan(14);
  expect(counts["up-dear"]).toBeLessThan(70);
});

test("provider.order naming an undeclared provider: a warning header, the routing metadata and the generation record say so", async () => {
  const response = await chat({ provider: { order: ["nosuch", "cheap", "Cheap", "dear"] } }, { "x-openrouter-metadata": "enabled" });
  expect(response.status).toBe(200);
  expect(response.headers.get("x-roundhouse-warning")).toBe("provider.order names unknown provider 'nosuch'");
  const body = await response.json();
  // The known names still order the attempts: cheap first.
  expect(upstream.requests.at(-1)!.body.model).toBe("up-cheap");
  expect(body.openrouter_metadata.warnings).toEqual(["provider.order names unknown provider 'nosuch'"]);
  const record = await callApi(gateway.url, "GET", `/generation?id=${body.id}`, undefined, key);
  expect((await record.json()).data.warnings).toEqual(["provider.order names unknown provider 'nosuch'"]);
});

test("a streamed answer carries the warning header too; a provider.order of known names carries none", async () => {
  const streamed = await chat({ stream: true, provider: { order: ["ghost", "phantom", "dear"] } });
  expect(streamed.status).toBe(200);
  expect(streamed.headers.get("x-roundhouse-warning")).toBe("provider.order names unknown provider 'ghost'; provider.order names unknown provider 'phantom'");
  expect(sseEvents(await streamed.text()).length).toBeGreaterThan(0);
  expect(upstream.requests.at(-1)!.body.model).toBe("up-dear");

  const known = await chat({ provider: { order: ["dear", "cheap"] } });
  expect(known.status).toBe(200);
  expect(known.headers.get("x-roundhouse-warning")).toBeNull();
  const record = await callApi(gateway.url, "GET", `/generation?id=${(await known.json()).id}`, undefined, key);
  expect((await record.json()).data.warnings).toEqual([]);
});

test("provider.order of only undeclared providers without fallbacks: the 404 carries the warning header and metadata", async () => {
  const before = upstream.requests.length;
  const response = await chat({ provider: { order: ["nosuch"], allow_fallbacks: false } });
  const body = await response.json();
  expect(response.status).toBe(404);
  expect(response.headers.get("x-roundhouse-warning")).toBe("provider.order names unknown provider 'nosuch'");
  expect(body.error.message).toStartWith("No endpoint of t/mixed meets the request's constraints: free1 is not in provider.order and fallbacks are off;");
  expect(body.error.metadata.warnings).toEqual(["provider.order names unknown provider 'nosuch'"]);
  expect(body.error.availability).toMatchObject({ code: "constraint_filtered", constraint: { field: "provider.order" } });
  expect(upstream.requests.length).toBe(before);
});

test("an unknown provider.order name on a request whose every attempt fails: the error carries the warning too", async () => {
  upstream.behave({ status: 500 });
  try {
    const response = await chat({ provider: { order: ["ghost", "dear"], only: ["dear"] } });
    expect(response.status).toBe(503);
    expect(response.headers.get("x-roundhouse-warning")).toBe("provider.order names unknown provider 'ghost'");
    const body = await response.json();
    expect(body.error.metadata).toMatchObject({ warnings: ["provider.order names unknown provider 'ghost'"], previous_errors: [{ provider: "dear", status: 500 }] });
  } finally {
    upstream.behave({});
  }
});
