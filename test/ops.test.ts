import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Counter, Histogram, Registry } from "../src/ops/metrics.ts";
import { DATABASE_FILE } from "../src/db/client.ts";
import { type Gateway, startGateway } from "../src/server.ts";
import { ADMIN_KEY, captureLogger, createKey, type InProcess, inProcess, MASTER_KEY, tempDir } from "./helpers/gateway.ts";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A strict reader of the text exposition format: every line is HELP, TYPE or a sample of a declared family. */
function parseMetrics(text: string): { samples: Sample[]; types: Map<string, string> } {
  expect(text.endsWith("\n")).toBe(true);
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split("\n")) {
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta) {
      if (meta[1] === "TYPE") {
        expect(["counter", "gauge", "histogram"]).toContain(meta[3]!);
        types.set(meta[2]!, meta[3]!);
      }
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`unparseable metrics line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    const body = sample[2] ?? "";
    const pair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;
    while (pair.lastIndex < body.length) {
      const match = pair.exec(body);
      if (!match) throw new Error(`unparseable labels: ${body}`);
      labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    }
    const value = sample[3] === "+Inf" ? Infinity : Number(sample[3]);
    expect(Number.isNaN(value)).toBe(false);
    const name = sample[1]!;
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, "");
    if (!types.has(family)) throw new Error(`sample ${name} before its TYPE line`);
    samples.push({ name, labels, value });
  }
  return { samples, types };
}

function find(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
}

function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return find(samples, name, labels).reduce((sum, sample) => sum + sample.value, 0);
}

function root(gateway: Pick<InProcess, "app">, path: string, key?: string): Promise<Response> {
  return gateway.app.handle(new Request(`http://localhost${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} }));
}

/** Elysia runs after-response hooks (metrics, access log) just after the response was handed over. */
const settle = () => Bun.sleep(10);

async function scrape(gateway: Pick<InProcess, "app">): Promise<{ text: string; samples: Sample[]; types: Map<string, string> }> {
  await settle();
  const response = await root(gateway, "/metrics");
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  const text = await response.text();
  return { text, ...parseMetrics(text) };
}

const PROMPT = "Tell me about the secret-prompt-marker please";

describe("/healthz and /readyz", () => {
  test("liveness answers ok; readiness names the failing check in the spec's envelope", async () => {
    const gateway = await inProcess();
    expect(await (await root(gateway, "/healthz")).json()).toEqual({ status: "ok" });
    const ready = await root(gateway, "/readyz");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ok", checks: { database: "ok", shutdown: "ok" } });
    gateway.services.lifecycle.beginShutdown();
    const draining = await root(gateway, "/readyz");
    expect(draining.status).toBe(503);
    const body = (await draining.json()) as any;
    expect(body.error.code).toBe(503);
    expect(body.error.message).toContain("shutdown");
    expect(body.error.metadata.failing).toEqual(["shutdown"]);

    const broken = await inProcess();
    broken.services.backend.sqlite!.close();
    const down = (await (await root(broken, "/readyz")).json()) as any;
    expect(down.error.metadata).toMatchObject({ failing: ["database"], checks: { database: "failing" } });
  });
});

describe("/metrics", () => {
  test("parses line by line, and requests, attempts, tokens and cost move the counters", async () => {
    const gateway = await inProcess();
    const before = await scrape(gateway);
    for (const name of [
      "roundhouse_http_requests_total",
      "roundhouse_upstream_attempts_total",
      "roundhouse_upstream_failures_total",
      "roundhouse_tokens_total",
      "roundhouse_cost_usd_total",
    ]) {
      expect(before.types.get(name)).toBe("counter");
    }
    expect(before.types.get("roundhouse_http_request_duration_seconds")).toBe("histogram");
    expect(valueOf(before.samples, "roundhouse_active_streams")).toBe(0);
    expect(valueOf(before.samples, "roundhouse_generations_pending")).toBe(0);
    expect(valueOf(before.samples, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(find(before.samples, "roundhouse_uptime_seconds")).toHaveLength(1);

    const { key } = await createKey(gateway, { name: "ops" });
    const chat = (stream: boolean) =>
      gateway.call("POST", "/chat/completions", {
        key,
        body: { model: "roundhouse/simulated", stream, messages: [{ role: "user", content: PROMPT }] },
      });
    expect((await chat(false)).status).toBe(200);
    await (await chat(true)).text();

    const { samples } = await scrape(gateway);
    const route = "/api/v1/chat/completions";
    expect(valueOf(samples, "roundhouse_http_requests_total", { route, method: "POST", status: "200" })).toBe(2);
    expect(valueOf(samples, "roundhouse_http_requests_total", { route: "/api/v1/keys", method: "POST", status: "201" })).toBe(1);
    expect(valueOf(samples, "roundhouse_http_requests_total", { route: "/metrics", status: "200" })).toBe(1);
    expect(valueOf(samples, "roundhouse_http_request_duration_seconds_count", { route })).toBe(2);
    expect(valueOf(samples, "roundhouse_http_request_duration_seconds_bucket", { route, le: "+Inf" })).toBe(2);
    expect(valueOf(samples, "roundhouse_upstream_attempts_total", { provider: "simulated", status: "200" })).toBe(2);
    const model = "roundhouse/simulated";
    expect(valueOf(samples, "roundhouse_tokens_total", { model, type: "prompt" })).toBeGreaterThan(0);
    expect(valueOf(samples, "roundhouse_tokens_total", { model, type: "completion" })).toBeGreaterThan(0);
    expect(find(samples, "roundhouse_tokens_total", { model }).map((sample) => sample.labels.type).sort()).toEqual([
      "cached",
      "completion",
      "prompt",
      "reasoning",
    ]);
    expect(find(samples, "roundhouse_cost_usd_total", { model })).toHaveLength(1);
    expect(valueOf(samples, "roundhouse_active_streams")).toBe(0);
  });

  test("sticky sessions stay within routing.sticky_sessions.max_entries; evictions and size show in /metrics", async () => {
    const gateway = await inProcess({ routing: { sticky_sessions: { max_entries: 3 } } });
    const before = await scrape(gateway);
    expect(before.types.get("roundhouse_sticky_evictions_total")).toBe("counter");
    expect(before.types.get("roundhouse_router_memory_evictions_total")).toBe("counter");
    expect(valueOf(before.samples, "roundhouse_sticky_evictions_total", { reason: "size" })).toBe(0);
    const { key } = await createKey(gateway, { name: "sessions" });
    for (let index = 0; index < 8; index++) {
      const response = await gateway.call("POST", "/chat/completions", {
        key,
        body: { model: "roundhouse/simulated", session_id: `client-chosen-${index}`, messages: [{ role: "user", content: "Hi" }] },
      });
      expect(response.status).toBe(200);
    }
    const { samples } = await scrape(gateway);
    expect(valueOf(samples, "roundhouse_sticky_sessions")).toBe(3);
    expect(valueOf(samples, "roundhouse_sticky_evictions_total", { reason: "size" })).toBe(5);
    expect(valueOf(samples, "roundhouse_sticky_evictions_total", { reason: "expired" })).toBe(0);
    expect(valueOf(samples, "roundhouse_router_memory_entries")).toBe(0);
  });

  test("label values are escaped and histogram buckets are cumulative", () => {
    const registry = new Registry();
    const counter = registry.register(new Counter("test_total", "A help text with a \\ backslash\nand a line feed.", ["name"]));
    const histogram = registry.register(new Histogram("test_seconds", "Durations.", [], [0.1, 1]));
    const tricky = 'quote " backslash \\ newline \n end';
    counter.inc({ name: tricky }, 2);
    for (const value of [0.05, 0.5, 5]) histogram.observe({}, value);
    const text = registry.render();
    expect(text).toContain("# HELP test_total A help text with a \\\\ backslash\\nand a line feed.\n");
    const { samples } = parseMetrics(text);
    expect(find(samples, "test_total")).toEqual([{ name: "test_total", labels: { name: tricky }, value: 2 }]);
    expect(find(samples, "test_seconds_bucket").map((sample) => [sample.labels.le, sample.value])).toEqual([
      ["0.1", 1],
      ["1", 2],
      ["+Inf", 3],
    ]);
    expect(valueOf(samples, "test_seconds_sum")).toBeCloseTo(5.55);
  });

  test("failed attempts are counted by provider and code", async () => {
    const gateway = await inProcess({
      providers: { flaky: { type: "simulated", simulation: { ttft_ms: 0, failure: { mode: "status", status: 503 } } } },
      models: [{ id: "flaky/model", endpoints: [{ provider: "flaky" }] }],
    });
    const { key } = await createKey(gateway, { name: "ops" });
    const response = await gateway.call("POST", "/chat/completions", { key, body: { model: "flaky/model", messages: [{ role: "user", content: "Hi" }] } });
    expect(response.status).toBeGreaterThanOrEqual(500);
    const { samples } = await scrape(gateway);
    expect(valueOf(samples, "roundhouse_upstream_attempts_total", { provider: "flaky", status: "503" })).toBe(1);
    expect(valueOf(samples, "roundhouse_upstream_failures_total", { provider: "flaky", code: "unavailable" })).toBe(1);
  });

  test("labels use route patterns: key hashes and unknown paths never become label values", async () => {
    const gateway = await inProcess();
    const first = await createKey(gateway, { name: "one" });
    const second = await createKey(gateway, { name: "two" });
    expect((await gateway.call("GET", `/keys/${first.hash}`)).status).toBe(200);
    expect((await gateway.call("GET", `/keys/${second.hash}`)).status).toBe(200);
    expect((await gateway.call("GET", "/no/such/route-abc123")).status).toBe(404);
    expect((await root(gateway, "/other-xyz789")).status).toBe(404);
    const { text, samples } = await scrape(gateway);
    const routes = new Set(find(samples, "roundhouse_http_requests_total").map((sample) => sample.labels.route));
    expect(routes.has("/api/v1/keys/:hash")).toBe(true);
    expect(valueOf(samples, "roundhouse_http_requests_total", { route: "/api/v1/keys/:hash", method: "GET", status: "200" })).toBe(2);
    expect(valueOf(samples, "roundhouse_http_requests_total", { route: "unmatched", status: "404" })).toBe(2);
    for (const secret of [first.hash, second.hash, first.key, second.key, ADMIN_KEY, "route-abc123", "xyz789"]) {
      expect(text).not.toContain(secret);
    }
  });

  test("require_key asks for a management key; enabled: false removes the endpoint", async () => {
    const gateway = await inProcess({ metrics: { require_key: true } });
    const { key } = await createKey(gateway, { name: "inference" });
    expect((await root(gateway, "/metrics")).status).toBe(401);
    expect((await root(gateway, "/metrics", key)).status).toBe(403);
    const allowed = await root(gateway, "/metrics", ADMIN_KEY);
    expect(allowed.status).toBe(200);
    parseMetrics(await allowed.text());
    expect((await root(await inProcess({ metrics: { enabled: false } }), "/metrics")).status).toBe(404);
  });
});

describe("access log", () => {
  test("one JSON line per request with the route pattern, status, duration, key hash prefix, model and provider; no secrets", async () => {
    const gateway = await inProcess();
    const { key, hash } = await createKey(gateway, { name: "logged" });
    const response = await gateway.call("POST", "/chat/completions", {
      key,
      body: { model: "roundhouse/simulated", messages: [{ role: "user", content: PROMPT }] },
      headers: { "x-request-id": "req-ops-1", "x-custom-secret": "header-secret-value" },
    });
    expect(response.status).toBe(200);
    await gateway.call("GET", `/keys/${hash}`);
    await root(gateway, "/healthz");
    await settle();
    const entries = gateway.lines.map((line) => JSON.parse(line)).filter((entry) => entry.message === "request");
    expect(entries).toHaveLength(4);
    const inference = entries.find((entry) => entry.request_id === "req-ops-1");
    expect(inference).toMatchObject({
      level: "info",
      method: "POST",
      route: "/api/v1/chat/completions",
      status: 200,
      key_hash_prefix: hash.slice(0, 12),
      model: "roundhouse/simulated",
      provider: "simulated",
    });
    expect(inference.duration_ms).toBeGreaterThanOrEqual(0);
    expect(entries.find((entry) => entry.route === "/api/v1/keys/:hash")).toMatchObject({ status: 200, method: "GET" });
    const health = entries.find((entry) => entry.route === "/healthz");
    expect(health.key_hash_prefix).toBeUndefined();
    expect(typeof health.request_id).toBe("string");
    const all = gateway.lines.join("");
    for (const secret of [key, ADMIN_KEY, hash, "secret-prompt-marker", "header-secret-value", "authorization", MASTER_KEY]) {
      expect(all).not.toContain(secret);
    }
  });
});

/** A listening gateway whose only model streams slowly; the raw Gateway, so stop() takes options. */
async function slowGateway(simulation: Record<string, unknown>, serverConfig = "") {
  const dir = tempDir();
  const dataDir = join(dir.path, "data");
  const configPath = join(dir.path, "config.yaml");
  await Bun.write(
    configPath,
    `server:\n  port: 0\n${serverConfig}upstream:\n  stream_warmup_ms: 50\nproviders:\n  slow:\n    type: simulated\n    simulation: ${JSON.stringify(simulation)}\nmodels:\n  - id: slow/model\n    endpoints:\n      - provider: slow\n        pricing: {prompt: 1, completion: 2}\n`,
  );
  const { logger, lines } = captureLogger();
  const gateway: Gateway = await startGateway({
    configPath,
    env: { ROUNDHOUSE_ADMIN_KEY: ADMIN_KEY, ROUNDHOUSE_MASTER_KEY: MASTER_KEY, ROUNDHOUSE_DATA_DIR: dataDir },
    logger,
  });
  const call = (method: string, path: string, options: { key?: string; body?: unknown } = {}) =>
    fetch(`${gateway.url}/api/v1${path}`, {
      method,
      keepalive: false,
      headers: { authorization: `Bearer ${options.key ?? ADMIN_KEY}`, "content-type": "application/json", connection: "close" },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  const { key } = await createKey({ call: (method, path, options) => call(method, path, options as { body?: unknown }) }, { name: "stream" });
  const stream = () => call("POST", "/chat/completions", { key, body: { model: "slow/model", stream: true, messages: [{ role: "user", content: "Hi" }] } });
  return { gateway, dataDir, lines, stream, remove: dir.remove };
}

function generationIdOf(text: string): string {
  const frame = text.split("\n").find((line) => line.startsWith("data: {"));
  return JSON.parse(frame!.slice(6)).id;
}

describe("graceful shutdown", () => {
  test("readiness turns 503 over the socket, new requests get 503, a running stream finishes and its record is written", async () => {
    const output = "one two three four five six seven eight";
    const { gateway, dataDir, stream, remove } = await slowGateway({ ttft_ms: 100, tokens_per_second: 20, output });
    try {
      const response = await stream();
      expect(response.status).toBe(200);
      const body = response.text();
      expect(gateway.services.lifecycle.activeStreams).toBe(1);
      const started = performance.now();
      const stopping = gateway.stop({ graceMs: 5000 });
      const ready = await gateway.handle(new Request("http://localhost/readyz"));
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as any).error.metadata.failing).toEqual(["shutdown"]);
      // The listener stays open while the stream runs: a load balancer's probe gets an answer, not a refusal.
      const probed = await fetch(`${gateway.url}/readyz`, { keepalive: false });
      expect(probed.status).toBe(503);
      expect(((await probed.json()) as any).error.metadata.failing).toEqual(["shutdown"]);
      const refused = await fetch(`${gateway.url}/api/v1/models`, { keepalive: false });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as any).error.message).toContain("shutting down");
      const text = await body;
      await stopping;
      // Once the stream ended, the listener closed.
      await expect(fetch(`${gateway.url}/healthz`, { keepalive: false }).then((r) => r.status)).rejects.toThrow();
      expect(performance.now() - started).toBeLessThan(5000);
      expect(text).toContain("data: [DONE]");
      const content = text
        .split("\n")
        .filter((line) => line.startsWith("data: {"))
        .map((line) => JSON.parse(line.slice(6)).choices?.[0]?.delta?.content ?? "")
        .join("");
      expect(content).toBe(output);
      expect(gateway.services.lifecycle.activeStreams).toBe(0);

      const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
      const row = db.query("SELECT status, streamed, cancelled, tokens_completion FROM generations WHERE id = ?").get(generationIdOf(text)) as any;
      db.close();
      expect(row).toMatchObject({ status: 200, streamed: 1, cancelled: 0 });
      expect(row.tokens_completion).toBeGreaterThan(0);
    } finally {
      remove();
    }
  });

  test("after the grace period the remaining streams are aborted and still recorded", async () => {
    const { gateway, dataDir, stream, lines, remove } = await slowGateway(
      { ttft_ms: 0, tokens_per_second: 10, output: "word ".repeat(100).trim() },
      "  shutdown_grace_ms: 300\n",
    );
    try {
      const response = await stream();
      const body = response.text().catch(() => "");
      await Bun.sleep(150);
      const started = performance.now();
      await gateway.stop();
      const elapsed = performance.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(2000);
      const text = await body;
      expect(text).toContain("The gateway is shutting down");
      expect(text).not.toContain('"finish_reason":"stop"');
      expect(lines.some((line) => line.includes("shutdown grace period over"))).toBe(true);
      const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
      const rows = db.query("SELECT status, cancelled, tokens_completion FROM generations WHERE model = 'slow/model'").all() as any[];
      db.close();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ cancelled: 1 });
      expect(rows[0].tokens_completion).toBeGreaterThan(0);
    } finally {
      remove();
    }
  });
});
