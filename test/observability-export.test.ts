import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { ActiveDestination } from "../src/core/broadcast.ts";
import type { GenerationRow } from "../src/core/generation.ts";
import { createLogger } from "../src/core/log.ts";
import { BroadcastExporter } from "../src/ops/broadcast/exporter.ts";
import { ADMIN_KEY, callApi, listening, newInferenceKey } from "./helpers/gateway.ts";
import { startCollector } from "./helpers/otlp-collector.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/** Generation records exported to real local receivers: an OTLP collector (JSON and protobuf) and a webhook. */
let upstream: Upstream;
let collector: ReturnType<typeof startCollector>;
let gateway: Awaited<ReturnType<typeof listening>>;
let inference: string;
let workspaceId: string;
const destinations: string[] = [];

const admin = (method: string, path: string, body?: unknown) => callApi(gateway.url, method, path, body);
const chat = (model = "acme/chat", extra: Record<string, unknown> = {}) =>
  fetch(`${gateway.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${inference}`, "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], ...extra }),
  });

async function destination(body: Record<string, unknown>): Promise<string> {
  const response = await admin("POST", "/observability/destinations", { name: "d", ...body });
  expect(response.status).toBe(201);
  const id = ((await response.json()) as { data: { id: string } }).data.id;
  destinations.push(id);
  return id;
}

beforeAll(async () => {
  upstream = startOpenAiUpstream();
  collector = startCollector();
  gateway = await listening({
    configText: `providers:
  up: { type: openai-compatible, base_url: ${upstream.url}/v1 }
models:
  - id: acme/chat
    endpoints: [{ provider: up, model: chat-upstream, pricing: { prompt: 1, completion: 2 } }]
  - id: acme/other
    endpoints: [{ provider: up, model: other-upstream }]
`,
  });
  inference = await newInferenceKey(gateway.url, "broadcast test key");
  workspaceId = ((await (await admin("GET", "/workspaces")).json()) as { data: Array<{ id: string }> }).data[0]!.id;
  await broadcastSwitch(true);
});

/** Turns the workspace's `is_observability_broadcast_enabled` switch on or off. */
async function broadcastSwitch(on: boolean): Promise<void> {
  expect((await admin("PATCH", `/workspaces/${workspaceId}`, { is_observability_broadcast_enabled: on })).status).toBe(200);
}

afterAll(async () => {
  await gateway.stop();
  collector.stop();
  upstream.stop();
});

beforeEach(async () => {
  for (const id of destinations.splice(0)) await admin("DELETE", `/observability/destinations/${id}`);
  collector.received.length = 0;
  collector.state.status = 200;
  collector.state.hang = false;
});

describe("broadcast export", () => {
  test("a workspace whose broadcast switch is off exports nothing, even to its enabled destinations", async () => {
    await destination({ type: "webhook", config: { url: `${collector.url}/switched` } });
    await broadcastSwitch(false);
    try {
      expect((await chat()).status).toBe(200);
      await gateway.services.broadcast.flush();
      expect(collector.received).toHaveLength(0);
    } finally {
      await broadcastSwitch(true);
    }
    expect((await chat()).status).toBe(200);
    await gateway.services.broadcast.flush();
    expect(collector.received.map((item) => item.path)).toEqual(["/switched"]);
  });

  test("OTLP/HTTP protobuf: the collector decodes a generation span with GenAI and routing attributes", async () => {
    await destination({
      type: "otel-collector",
      config: { endpoint: collector.url, encoding: "protobuf", headers: { "x-collector-token": "secret-token" } },
      broadcast_generation_cost: true,
      broadcast_generation_identity: true,
    });
    expect((await chat("acme/chat", { user: "alice", session_id: "s-1" })).status).toBe(200);
    await gateway.services.broadcast.flush();
    expect(collector.received).toHaveLength(1);
    const [request] = collector.received;
    expect(request!.path).toBe("/v1/traces");
    expect(request!.contentType).toBe("application/x-protobuf");
    expect(request!.headers.get("x-collector-token")).toBe("secret-token");
    expect(request!.resource["service.name"]).toBe("roundhouse");
    const generation = request!.spans.find((span) => span.parentSpanId === "")!;
    expect(generation.name).toBe("chat acme/chat");
    expect(generation.kind).toBe(3);
    expect(generation.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "up",
      "gen_ai.system": "up",
      "gen_ai.request.model": "acme/chat",
      "gen_ai.response.model": "chat-upstream",
      "gen_ai.response.finish_reasons": ["stop"],
      "roundhouse.attempts": 1,
      "roundhouse.attempts.providers": ["up"],
      "roundhouse.http.status": 200,
      "user.id": "alice",
      "gen_ai.conversation.id": "s-1",
    });
    expect(generation.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
    expect(generation.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    expect(generation.attributes["roundhouse.cost.total_usd"]).toBeGreaterThan(0);
    const attempt = request!.spans.find((span) => span.parentSpanId === generation.spanId)!;
    expect(attempt.name).toBe("attempt up");
    expect(attempt.traceId).toBe(generation.traceId);
  });

  test("OTLP/HTTP JSON; cost and identity are left out unless asked for", async () => {
    await destination({ type: "otel-collector", config: { endpoint: `${collector.url}/v1/traces` } });
    expect((await chat("acme/chat", { user: "bob" })).status).toBe(200);
    await gateway.services.broadcast.flush();
    expect(collector.received).toHaveLength(1);
    expect(collector.received[0]!.contentType).toBe("application/json");
    const generation = collector.spans()[0]!;
    expect(generation.attributes["gen_ai.request.model"]).toBe("acme/chat");
    expect(generation.attributes["roundhouse.cost.total_usd"]).toBeUndefined();
    expect(generation.attributes["user.id"]).toBeUndefined();
  });

  test("a webhook receives the spans as an OTLP JSON POST", async () => {
    await destination({ type: "webhook", config: { url: `${collector.url}/hook`, headers: { authorization: "Bearer hook" } } });
    expect((await chat()).status).toBe(200);
    await gateway.services.broadcast.flush();
    expect(collector.received.map((item) => item.path)).toEqual(["/hook"]);
    expect(collector.received[0]!.headers.get("authorization")).toBe("Bearer hook");
    expect(collector.spans()[0]!.attributes["gen_ai.request.model"]).toBe("acme/chat");
  });

  test("a self-hosted Langfuse gets its OTLP endpoint with basic authorization", async () => {
    await destination({ type: "langfuse", config: { baseUrl: collector.url, publicKey: "pk-lf", secretKey: "sk-lf" } });
    expect((await chat()).status).toBe(200);
    await gateway.services.broadcast.flush();
    expect(collector.received.map((item) => item.path)).toEqual(["/api/public/otel/v1/traces"]);
    expect(collector.received[0]!.headers.get("authorization")).toBe(`Basic ${Buffer.from("pk-lf:sk-lf").toString("base64")}`);
  });

  test("sampling 0 sends nothing; filter rules (model, key name) and the key allow-list choose what is sent", async () => {
    await destination({ type: "otel-collector", config: { endpoint: collector.url }, sampling_rate: 0 });
    await destination({
      type: "webhook",
      config: { url: `${collector.url}/filtered` },
      filter_rules: { groups: [{ logic: "and", rules: [{ field: "model", operator: "equals", value: "acme/other" }, { field: "api_key_name", operator: "starts_with", value: "broadcast" }] }] },
    });
    await destination({ type: "webhook", config: { url: `${collector.url}/other-key` }, api_key_hashes: ["0".repeat(64)] });
    expect((await chat("acme/chat")).status).toBe(200);
    expect((await chat("acme/other")).status).toBe(200);
    await gateway.services.broadcast.flush();
    expect(collector.received.map((item) => item.path)).toEqual(["/filtered"]);
    expect(collector.spans()[0]!.attributes["gen_ai.request.model"]).toBe("acme/other");
  });

  test("a destination that is down never slows a chat, and what it cannot take is dropped and counted", async () => {
    collector.state.hang = true;
    await destination({ type: "otel-collector", config: { endpoint: collector.url } });
    const started = performance.now();
    for (let index = 0; index < 3; index++) expect((await chat()).status).toBe(200);
    // The drain is held up by the hanging destination; chats are not.
    const draining = gateway.services.broadcast.drain();
    for (let index = 0; index < 3; index++) expect((await chat()).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2000);
    collector.state.hang = false;
    void draining;
    const metrics = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).text();
    expect(metrics).toContain("roundhouse_broadcast_spans_dropped_total");
  });
});

describe("generation content", () => {
  const logIo = async (on: boolean) =>
    expect((await admin("PATCH", `/workspaces/${workspaceId}`, { is_observability_io_logging_enabled: on, io_logging_sampling_rate: 1 })).status).toBe(200);
  /** Chats with a system text and a user text beside an image; the generation's id. */
  const said = async (text: string) => {
    const response = await chat("acme/chat", { messages: [{ role: "system", content: "be brief" }, { role: "user", content: [{ type: "text", text }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] }] });
    expect(response.status).toBe(200);
    return ((await response.json()) as { id: string }).id;
  };
  /** The generation spans a path received for these generations (records of earlier tests may still arrive). */
  const spansAt = (path: string, ids: string[]) =>
    collector.received.filter((item) => item.path === path).flatMap((item) => item.spans.filter((span) => ids.includes(span.attributes["roundhouse.generation.id"] as string)));

  test("exported as gen_ai.input.messages / gen_ai.output.messages when stored and not in privacy mode; never in privacy mode", async () => {
    await logIo(true);
    try {
      await destination({ type: "webhook", config: { url: `${collector.url}/open` } });
      await destination({ type: "webhook", config: { url: `${collector.url}/private` }, privacy_mode: true });
      const id = await said("what is the weather");
      await gateway.services.broadcast.flush();
      const [open] = spansAt("/open", [id]);
      expect(JSON.parse(open!.attributes["gen_ai.input.messages"] as string)).toEqual([
        { role: "system", parts: [{ type: "text", content: "be brief" }] },
        { role: "user", parts: [{ type: "text", content: "what is the weather" }] },
      ]);
      expect(JSON.parse(open!.attributes["gen_ai.output.messages"] as string)).toEqual([{ role: "assistant", parts: [{ type: "text", content: "Hello from upstream" }], finish_reason: "stop" }]);
      const [hidden] = spansAt("/private", [id]);
      expect(hidden!.attributes["gen_ai.request.model"]).toBe("acme/chat");
      expect(hidden!.attributes["gen_ai.input.messages"]).toBeUndefined();
      expect(hidden!.attributes["gen_ai.output.messages"]).toBeUndefined();
    } finally {
      await logIo(false);
    }
  });

  test("input and output filter rules match on the stored content, also in privacy mode; without stored content they do not", async () => {
    await logIo(true);
    try {
      const rule = (field: string, operator: string, value?: string) => ({ groups: [{ logic: "and", rules: [{ field, operator, ...(value === undefined ? {} : { value }) }] }] });
      await destination({ type: "webhook", config: { url: `${collector.url}/weather` }, privacy_mode: true, filter_rules: rule("input", "contains", "weather") });
      await destination({ type: "webhook", config: { url: `${collector.url}/hello` }, filter_rules: rule("output", "starts_with", "Hello") });
      await destination({ type: "webhook", config: { url: `${collector.url}/has-input` }, filter_rules: rule("input", "exists") });
      const ids = [await said("what is the weather"), await said("tell me a joke")];
      await gateway.services.broadcast.flush();
      expect(spansAt("/weather", ids).map((span) => span.attributes["roundhouse.generation.id"])).toEqual([ids[0]]);
      expect(spansAt("/weather", ids)[0]!.attributes["gen_ai.input.messages"]).toBeUndefined();
      expect(spansAt("/hello", ids)).toHaveLength(2);
      expect(spansAt("/has-input", ids)).toHaveLength(2);
      await logIo(false);
      const unlogged = await said("what is the weather");
      await gateway.services.broadcast.flush();
      expect(["/weather", "/hello", "/has-input"].flatMap((path) => spansAt(path, [unlogged]))).toEqual([]);
    } finally {
      await logIo(false);
    }
  });
});

describe("the exporter's bounds", () => {
  const row = (id: string): GenerationRow =>
    ({ id, workspaceId: "w", keyHash: "k", requestId: null, style: "chat", model: "m", providerSlug: "p", providerName: "P", upstreamModel: null, upstreamId: null, presetId: null, streamed: false, cancelled: false, status: 200, errorCode: null, finishReason: "stop", nativeFinishReason: null, tokensPrompt: 1, tokensCompletion: 1, tokensCached: null, tokensCacheWrite: null, tokensReasoning: null, mediaPrompt: 0, totalCost: 0, latencyMs: 5, generationTimeMs: 10, sessionId: null, externalUser: null, userAgent: null, httpReferer: null, serviceTier: null, attempts: null, warnings: null, meters: null, costs: null, createdAt: new Date().toISOString() }) as GenerationRow;
  const target = (url: string): ActiveDestination => ({ id: "d", workspaceId: "w", type: "otel-collector", url, method: "POST", encoding: "json", headers: {}, samplingRate: 1, apiKeyHashes: null, filterRules: null, privacyMode: false, includeCost: false, includeIdentity: false, includeRequestContext: false });

  test("a full queue drops records and counts them; a refusing destination is retried with backoff, then dropped and counted", async () => {
    collector.state.status = 503;
    collector.received.length = 0;
    const exporter = new BroadcastExporter({
      destinations: async () => [target(`${collector.url}/v1/traces`)],
      keyName: async () => undefined,
      logger: createLogger("error", () => {}),
      limits: { maxQueue: 2, maxAttempts: 2, backoffMs: 20, timeoutMs: 1000 },
    });
    const offered = performance.now();
    for (let index = 0; index < 5; index++) exporter.offer(row(`g${index}`));
    expect(performance.now() - offered).toBeLessThan(50);
    expect(exporter.dropped.queue).toBe(3);
    await exporter.drain();
    expect(collector.received).toHaveLength(1);
    expect(exporter.dropped.failed).toBe(0);
    await Bun.sleep(30);
    await exporter.drain();
    expect(collector.received).toHaveLength(2);
    expect(exporter.dropped.failed).toBe(2);
    expect(exporter.exported).toBe(0);
    collector.state.status = 200;
    exporter.offer(row("g-ok"));
    await exporter.flush();
    expect(exporter.exported).toBe(1);
    await exporter.close();
  });
});
