/**
 * Telemetry by convention: a gateway started with OpenTelemetry's standard OTEL_* variables exports a
 * span per generation with the GenAI semantic conventions' attributes and the GenAI client histograms
 * to a real local OTLP/HTTP collector (protobuf decoded with protobufjs), with the headers, service
 * name and resource attributes given; /metrics keeps answering Prometheus text. gRPC is refused with a
 * start warning; OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none turn the export off.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { otelFromEnv } from "../src/ops/otel-env.ts";
import { ADMIN_KEY, listening, newInferenceKey } from "./helpers/gateway.ts";
import { startCollector } from "./helpers/otlp-collector.ts";
import { startAnthropicUpstream, startOpenAiUpstream, upstreamConfig } from "./helpers/upstreams.ts";

const openai = startOpenAiUpstream();
const anthropic = startAnthropicUpstream();
const collector = startCollector();

afterAll(async () => {
  collector.stop();
  await openai.stop();
  await anthropic.stop();
});

async function until<T>(what: string, probe: () => T | undefined): Promise<T> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const found = probe();
    if (found !== undefined) return found;
    await Bun.sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function chat(url: string, key: string, content: string): Promise<Response> {
  return fetch(`${url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "test/gpt", messages: [{ role: "user", content }] }),
  });
}

describe("a gateway started with OTEL_EXPORTER_OTLP_*", () => {
  let gateway: Awaited<ReturnType<typeof listening>>;
  let key: string;

  beforeAll(async () => {
    gateway = await listening({
      configText: upstreamConfig(openai, anthropic),
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/otlp/`,
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20collector-token,x-tenant=ops",
        OTEL_SERVICE_NAME: "gateway-east",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=staging,service.name=ignored",
        OTEL_METRIC_EXPORT_INTERVAL: "100",
      },
    });
    key = await newInferenceKey(gateway.url, "otel");
  }, 30_000);

  afterAll(async () => {
    await gateway?.stop();
  });

  test("a chat request becomes a span with the GenAI attributes, at <endpoint>/v1/traces with the headers and resource", async () => {
    const answer = await chat(gateway.url, key, "trace me");
    expect(answer.status).toBe(200);
    const id = ((await answer.json()) as { id: string }).id;
    const span = await until("the generation's span", () => collector.spans().find((item) => item.attributes["gen_ai.response.id"] === id));
    expect(span.name).toBe("chat test/gpt");
    expect(span.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "test/gpt",
      "gen_ai.response.model": "gpt-upstream",
      "gen_ai.provider.name": "local-openai",
      "gen_ai.usage.input_tokens": 12,
      "gen_ai.usage.output_tokens": 5,
      "server.address": "127.0.0.1",
      "server.port": Number(new URL(openai.url).port),
    });
    // Prompts and completions stay out unless OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is true.
    expect(span.attributes["gen_ai.input.messages"]).toBeUndefined();
    const delivery = collector.received.find((item) => item.spans.includes(span))!;
    expect(delivery.path).toBe("/otlp/v1/traces");
    expect(delivery.contentType).toBe("application/x-protobuf");
    expect(delivery.headers.get("authorization")).toBe("Bearer collector-token");
    expect(delivery.headers.get("x-tenant")).toBe("ops");
    expect(delivery.resource).toMatchObject({ "service.name": "gateway-east", "deployment.environment": "staging" });
  });

  test("the GenAI client histograms arrive at <endpoint>/v1/metrics, and /metrics keeps Prometheus text", async () => {
    const answer = await chat(gateway.url, key, "measure me");
    expect(answer.status).toBe(200);
    const tokens = await until("gen_ai.client.token.usage with input and output points", () => {
      const metric = collector.metrics().findLast((item) => item.name === "gen_ai.client.token.usage");
      const types = new Set(metric?.points.map((point) => point.attributes["gen_ai.token.type"]));
      return types.has("input") && types.has("output") ? metric : undefined;
    });
    expect(tokens.unit).toBe("{token}");
    const input = tokens.points.find((point) => point.attributes["gen_ai.token.type"] === "input")!;
    expect(input.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.request.model": "test/gpt", "gen_ai.provider.name": "local-openai" });
    expect(input.count).toBeGreaterThanOrEqual(1);
    expect(input.sum).toBe(12 * input.count);
    const duration = collector.metrics().findLast((item) => item.name === "gen_ai.client.operation.duration")!;
    expect(duration.unit).toBe("s");
    expect(duration.points[0]!.count).toBeGreaterThanOrEqual(1);
    const delivery = collector.received.find((item) => item.metrics.includes(tokens))!;
    expect(delivery.path).toBe("/otlp/v1/metrics");
    expect(delivery.headers.get("authorization")).toBe("Bearer collector-token");
    expect(delivery.resource["service.name"]).toBe("gateway-east");

    const prometheus = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(prometheus.status).toBe(200);
    expect(prometheus.headers.get("content-type")).toContain("text/plain");
    expect(await prometheus.text()).toContain("# TYPE ");
  });
});

test("signal endpoints, http/json and OTEL_TRACES_EXPORTER=none: only metrics go out, as JSON, where told", async () => {
  const gateway = await listening({
    configText: upstreamConfig(openai, anthropic),
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9/never",
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${collector.url}/json-metrics/v1/metrics`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_TRACES_EXPORTER: "none",
      OTEL_METRIC_EXPORT_INTERVAL: "100",
    },
  });
  try {
    const answer = await chat(gateway.url, await newInferenceKey(gateway.url, "json"), "json please");
    expect(answer.status).toBe(200);
    const delivery = await until("a JSON metrics export", () => collector.received.find((item) => item.path === "/json-metrics/v1/metrics" && item.metrics.length > 0));
    expect(delivery.contentType).toBe("application/json");
    expect(delivery.metrics.map((metric) => metric.name)).toContain("gen_ai.client.token.usage");
    expect(gateway.lines.join("\n")).toContain("OTLP/HTTP");
    expect(gateway.lines.join("\n")).toContain('"traces":"off"');
  } finally {
    await gateway.stop();
  }
}, 30_000);

test("grpc is refused with a start warning that says what to set instead; nothing is exported", async () => {
  const gateway = await listening({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" } });
  try {
    const warning = gateway.lines.find((line) => line.includes("OTEL_EXPORTER_OTLP_PROTOCOL=grpc"));
    expect(warning).toBeDefined();
    expect(warning).toContain("not supported");
    expect(warning).toContain("http/protobuf");
    expect(gateway.services.genAiMetrics).toBeUndefined();
  } finally {
    await gateway.stop();
  }
}, 30_000);

test("the settings follow the specification: precedence, decoding, and the off switches", () => {
  expect(otelFromEnv({})).toBeUndefined();
  expect(otelFromEnv({ OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toBeUndefined();
  const base = otelFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })!;
  expect(base.traces).toEqual({ url: "http://c:4318/v1/traces", headers: {}, encoding: "protobuf" });
  expect(base.metrics).toMatchObject({ url: "http://c:4318/v1/metrics", encoding: "protobuf", intervalMs: 60_000 });
  expect(base.resource).toEqual({ "service.name": "roundhouse" });
  const specific = otelFromEnv({
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:1/custom",
    OTEL_EXPORTER_OTLP_HEADERS: "a=1,b=2",
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: "b=3",
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
    OTEL_METRICS_EXPORTER: "none",
    OTEL_RESOURCE_ATTRIBUTES: "team=a%2Cb,broken",
  })!;
  expect(specific.traces).toEqual({ url: "http://t:1/custom", headers: { a: "1", b: "3" }, encoding: "json" });
  expect(specific.metrics).toBeUndefined();
  expect(specific.resource).toEqual({ "service.name": "roundhouse", team: "a,b" });
  expect(specific.warnings).toEqual(['OTEL_RESOURCE_ATTRIBUTES: "broken" is not key=value; ignored']);
});
