/**
 * `GET /api/v1/endpoints/health` against real local upstreams: every endpoint of a two-endpoint model
 * with measured figures after traffic, the one whose upstream failed marked avoided with its reason,
 * a Retry-After cooling an endpoint down, a workspace's provider rules shown as `routable`, and the
 * route in the OpenAPI document.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type InferenceSetup, startInference } from "./helpers/inference-setup.ts";

const TWO_ENDPOINTS = `  - id: test/pair
    endpoints:
      - provider: local-openai
        model: gpt-upstream
        pricing: { prompt: 1, completion: 2 }
      - provider: local-anthropic
        model: claude-upstream
        pricing: { prompt: 3, completion: 15 }
`;

interface Health {
  model_id: string;
  tag: string;
  routable: boolean;
  avoided: boolean;
  avoided_reason: string | null;
  avoided_until: string | null;
  last_failure_at: string | null;
  attempts: number;
  success_rate: number;
  latency_ms: { p50: number; p99: number } | null;
  throughput: { p50: number } | null;
  pricing: { prompt: number; completion: number; request: number };
}

let setup: InferenceSetup;

beforeAll(async () => {
  setup = await startInference({ extra: TWO_ENDPOINTS });
});
afterAll(() => setup?.stop());

async function health(key = setup.key): Promise<Health[]> {
  const response = await fetch(`${setup.api}/endpoints/health`, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Health[] }).data;
}

const pairOf = (rows: Health[], tag: string) => rows.find((row) => row.model_id === "test/pair" && row.tag === tag)!;
const chat = (order: string[], stream = false) =>
  setup.post("/chat/completions", { model: "test/pair", stream, provider: { order, allow_fallbacks: true }, messages: [{ role: "user", content: "hi" }] });

test("both endpoints of a model with figures after traffic; a failed upstream marks its endpoint avoided", async () => {
  setup.reset();
  const fresh = await health();
  expect(pairOf(fresh, "local-openai")).toMatchObject({ avoided: false, avoided_reason: null, attempts: 0, success_rate: 1, latency_ms: null, routable: true, pricing: { prompt: 1, completion: 2, request: 0 } });
  for (const order of [["local-openai"], ["local-anthropic"], ["local-openai"], ["local-anthropic"]]) {
    const answer = await chat(order, true);
    expect(answer.status).toBe(200);
    await answer.text();
  }
  setup.openai.behave({ status: 500, errorMessage: "broken" });
  const failedOver = await chat(["local-openai", "local-anthropic"]);
  expect(failedOver.status).toBe(200);

  const rows = await health();
  const openai = pairOf(rows, "local-openai");
  const anthropic = pairOf(rows, "local-anthropic");
  expect(openai).toMatchObject({ avoided: true, avoided_reason: "recent_failure", attempts: 3 });
  expect(Date.parse(openai.avoided_until!)).toBeGreaterThan(Date.now());
  expect(openai.last_failure_at).not.toBeNull();
  expect(openai.success_rate).toBeCloseTo(2 / 3, 5);
  expect(openai.latency_ms!.p50).toBeGreaterThanOrEqual(0);
  expect(anthropic).toMatchObject({ avoided: false, avoided_reason: null, attempts: 3, success_rate: 1, last_failure_at: null });
  expect(anthropic.latency_ms!.p99).toBeGreaterThanOrEqual(anthropic.latency_ms!.p50);
  expect(anthropic.throughput).not.toBeNull();
});

test("a Retry-After cools the endpoint down until it passes", async () => {
  setup.reset();
  setup.openai.behave({ status: 429, headers: { "retry-after": "120" } });
  expect((await chat(["local-openai", "local-anthropic"])).status).toBe(200);
  const openai = pairOf(await health(), "local-openai");
  expect(openai.avoided_reason).toBe("cooling_down");
  expect(Date.parse(openai.avoided_until!) - Date.now()).toBeGreaterThan(100_000);
  setup.reset();
});

test("a workspace's provider rules show as routable; a management key reads it too; the route is documented", async () => {
  const keys = (await (await setup.admin("GET", "/keys")).json()) as { data: Array<{ workspace_id: string }> };
  const workspace = keys.data[0]!.workspace_id;
  expect((await setup.admin("PATCH", `/workspaces/${workspace}`, { ignored_providers: ["local-anthropic"] })).status).toBe(200);
  try {
    const response = await setup.admin("GET", "/endpoints/health");
    expect(response.status).toBe(200);
    const rows = ((await response.json()) as { data: Health[] }).data;
    expect(pairOf(rows, "local-anthropic").routable).toBe(false);
    expect(pairOf(rows, "local-openai").routable).toBe(true);
  } finally {
    expect((await setup.admin("PATCH", `/workspaces/${workspace}`, { ignored_providers: [] })).status).toBe(200);
  }
  const document = (await (await fetch(`${setup.api}/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  const path = Object.keys(document.paths).find((name) => name.endsWith("/endpoints/health"))!;
  expect(document.paths[path]!.get!.responses["200"]).toBeDefined();
});
