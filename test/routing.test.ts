import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ADMIN_KEY, listening } from "./helpers/gateway.ts";
import { sseEvents } from "./helpers/inference-setup.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/**
 * Routing measured against real local upstreams: three OpenAI-compatible servers act as three
 * providers of one model (and of a second model for fallbacks); every assertion counts the calls each
 * upstream received.
 */
let alpha: Upstream;
let beta: Upstream;
let gamma: Upstream;
let gateway: Awaited<ReturnType<typeof listening>>;
let key: string;

function config(): string {
  return `upstream:
  stream_warmup_ms: 1000
  keepalive_interval_ms: 100
  first_byte_timeout_ms: 800
providers:
  alpha: { type: openai-compatible, base_url: ${alpha.url}/v1 }
  beta: { type: openai-compatible, base_url: ${beta.url}/v1 }
  gamma/eu: { type: openai-compatible, base_url: ${gamma.url}/v1, name: Gamma Europe }
models:
  - id: acme/chat
    endpoints:
      - { provider: alpha, model: chat-a, pricing: { prompt: 1, completion: 1 }, quantization: fp8, collects_data: true }
      - { provider: beta, model: chat-b, pricing: { prompt: 2, completion: 2 }, quantization: bf16, retains_prompts: true }
      - { provider: gamma/eu, model: chat-g, pricing: { prompt: 3, completion: 3 }, max_output: 100, region: eu-west }
  - id: acme/backup
    endpoints:
      - { provider: beta, model: backup-b, pricing: { prompt: 5, completion: 5 } }
  - id: acme/embed
    output_modalities: [embeddings]
    endpoints:
      - { provider: alpha, model: embed-a }
  - id: acme/chat:free
    free_until: 2020-01-31
    endpoints:
      - { provider: alpha, model: chat-free }
  - id: acme/leaky
    endpoints:
      - { provider: alpha, model: leaky-a, collects_data: true }
      - { provider: beta, model: leaky-b, retains_prompts: true }
`;
}

const calls = () => ({ alpha: alpha.requests.length, beta: beta.requests.length, gamma: gamma.requests.length });

async function chat(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return fetch(`${gateway.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "acme/chat", messages: [{ role: "user", content: "hi" }], ...body }),
  });
}

beforeAll(async () => {
  alpha = startOpenAiUpstream();
  beta = startOpenAiUpstream();
  gamma = startOpenAiUpstream();
  gateway = await listening({ configText: config() });
  const created = await fetch(`${gateway.url}/api/v1/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "routing" }),
  });
  key = (await created.json()).key;
});

afterAll(async () => {
  await gateway.stop();
  await Promise.all([alpha.stop(), beta.stop(), gamma.stop()]);
});

beforeEach(() => {
  gateway.services.health.reset();
  for (const upstream of [alpha, beta, gamma]) {
    upstream.requests.length = 0;
    upstream.behave({});
  }
});

describe("provider order and failover", () => {
  test("order is tried in order; a retryable failure fails over to the next provider", async () => {
    beta.behave({ status: 503 });
    const response = await chat({ provider: { order: ["beta", "alpha"] } }, { "x-openrouter-metadata": "enabled" });
    expect(response.status).toBe(200);
    expect(calls()).toEqual({ alpha: 1, beta: 1, gamma: 0 });
    const body = await response.json();
    expect(body.provider).toBe("alpha");
    expect(body.openrouter_metadata).toMatchObject({
      requested: "acme/chat",
      attempt: 2,
      attempts: [
        { provider: "beta", status: 503 },
        { provider: "alpha", status: 200 },
      ],
    });
  });

  test("allow_fallbacks false returns the upstream's error and tries nobody else", async () => {
    beta.behave({ status: 503, errorBody: { error: { message: "beta is overloaded" } } });
    const response = await chat({ provider: { order: ["beta"], allow_fallbacks: false } });
    expect(response.status).toBe(503);
    const body = await response.json();
    expect(body.error.message).toContain("beta is overloaded");
    expect(body.error.availability).toBeUndefined();
    expect(calls()).toEqual({ alpha: 0, beta: 1, gamma: 0 });
  });

  test("a non-retryable upstream error (400) is returned without failover", async () => {
    alpha.behave({ status: 400, errorBody: { error: { message: "bad temperature" } } });
    const response = await chat({ provider: { order: ["alpha", "beta"] } });
    expect(response.status).toBe(400);
    expect(calls()).toEqual({ alpha: 1, beta: 0, gamma: 0 });
  });

  test("Retry-After is honoured: the endpoint is skipped until it passes, and the hint is the smallest", async () => {
    alpha.behave({ status: 429, headers: { "retry-after": "30" } });
    beta.behave({ status: 429, headers: { "retry-after": "12" } });
    gamma.behave({ status: 503 });
    const first = await chat({ provider: { order: ["alpha", "beta", "gamma"] } });
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("12");
    const body = await first.json();
    expect(body.error.availability).toMatchObject({ code: "temporarily_unavailable", retryable: true, retry_after: 12 });
    expect(body.error.metadata.previous_errors).toEqual([
      { provider: "alpha", code: "rate_limit_exceeded", status: 429 },
      { provider: "beta", code: "rate_limit_exceeded", status: 429 },
      { provider: "gamma/eu", code: "provider_overloaded", status: 503 },
    ]);
    gamma.behave({});
    const second = await chat({ provider: { order: ["alpha", "beta", "gamma"] } });
    expect(second.status).toBe(200);
    // alpha and beta were cooling down: not called again.
    expect(calls()).toEqual({ alpha: 1, beta: 1, gamma: 2 });
  });

  test("every provider at capacity is 429 capacity_exhausted with Retry-After", async () => {
    for (const upstream of [alpha, beta, gamma]) upstream.behave({ status: 429, headers: { "retry-after": "5" } });
    const response = await chat({});
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("5");
    const body = await response.json();
    expect(body.error.availability).toMatchObject({ code: "capacity_exhausted", retryable: true, retry_after: 5, requested_models: ["acme/chat"] });
    expect(body.error.metadata.availability).toEqual(body.error.availability);
    expect(calls()).toEqual({ alpha: 1, beta: 1, gamma: 1 });
  });

  test("a slow upstream past the first-byte timeout fails over", async () => {
    alpha.behave({ delayMs: 1500 });
    const response = await chat({ provider: { order: ["alpha", "beta"] } });
    expect(response.status).toBe(200);
    expect((await response.json()).provider).toBe("beta");
  });

  test("models[] falls back to the next model on any error, skipping the failed model's other endpoints", async () => {
    alpha.behave({ status: 400, errorBody: { error: { message: "context too long" } } });
    const response = await chat({ models: ["acme/backup"], provider: { order: ["alpha", "gamma"] } }, { "x-openrouter-metadata": "enabled" });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.model).toBe("acme/backup");
    expect(body.openrouter_metadata.strategy).toBe("fallback");
    // acme/chat failed on alpha with a 400: gamma (same model) is skipped, acme/backup (beta) answers.
    expect(calls()).toEqual({ alpha: 1, beta: 1, gamma: 0 });
    expect(beta.requests[0]!.body.model).toBe("backup-b");
  });
});

describe("filters and availability errors", () => {
  test("an unknown model is 400 model_not_found on every style", async () => {
    for (const [path, body] of [
      ["/chat/completions", { model: "acme/nope", messages: [{ role: "user", content: "hi" }] }],
      ["/responses", { model: "acme/nope", input: "hi" }],
      ["/messages", { model: "acme/nope", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }],
    ] as const) {
      const response = await fetch(`${gateway.url}/api/v1${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      const json = await response.json();
      expect(json.error.availability).toMatchObject({ code: "model_not_found", retryable: false, requested_models: ["acme/nope"] });
    }
    expect(calls()).toEqual({ alpha: 0, beta: 0, gamma: 0 });
  });

  test("max_price is a hard filter: constraint_filtered with excluded_by", async () => {
    const response = await chat({ provider: { max_price: { prompt: "0.5" } } });
    expect(response.status).toBe(404);
    const availability = (await response.json()).error.availability;
    expect(availability).toMatchObject({ code: "constraint_filtered", retryable: false, excluded_by: ["max_price"] });
    expect(availability.constraint.field).toBe("provider.max_price");
    expect(availability).not.toHaveProperty("retry_after");
    expect(calls()).toEqual({ alpha: 0, beta: 0, gamma: 0 });
  });

  test("data_collection deny and zdr leave only compliant endpoints; none left is privacy_restricted", async () => {
    const response = await chat({ provider: { data_collection: "deny", zdr: true, order: ["alpha", "beta", "gamma"] } });
    expect(response.status).toBe(200);
    expect(calls()).toEqual({ alpha: 0, beta: 0, gamma: 1 });
    const none = await chat({ model: "acme/leaky", provider: { data_collection: "deny", zdr: true } });
    expect(none.status).toBe(404);
    expect((await none.json()).error.availability).toMatchObject({
      code: "privacy_restricted",
      excluded_by: ["data_policy:training", "data_policy:zdr"],
      affected_providers: ["alpha", "beta"],
    });
  });

  test("quantizations, the workspace allow-list and the max_tokens capacity filter", async () => {
    const bf16 = await chat({ provider: { quantizations: ["bf16"] } });
    expect((await bf16.json()).provider).toBe("beta");
    const capacity = await chat({ max_tokens: 500, provider: { order: ["gamma", "alpha"] } });
    expect((await capacity.json()).provider).toBe("alpha");
    const workspaceId = (await gateway.services.keys.findByHash(new Bun.CryptoHasher("sha256").update(key).digest("hex")))!.workspaceId;
    const patch = (body: Record<string, unknown>) =>
      fetch(`${gateway.url}/api/v1/workspaces/${workspaceId}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    await patch({ allowed_providers: ["gamma"] });
    try {
      const ceiling = await chat({ provider: { order: ["alpha"] } });
      expect((await ceiling.json()).provider).toBe("Gamma Europe");
      const narrowed = await chat({ provider: { only: ["alpha"] } });
      expect(narrowed.status).toBe(404);
      expect((await narrowed.json()).error.availability.excluded_by).toEqual(["allowed_providers"]);
    } finally {
      await patch({ allowed_providers: null });
    }
  });

  test("wrong_endpoint, free_variant_ended and region_restricted", async () => {
    const embed = await chat({ model: "acme/embed" });
    expect(embed.status).toBe(400);
    expect((await embed.json()).error.availability).toMatchObject({ code: "wrong_endpoint", retryable: false });
    const free = await chat({ model: "acme/chat:free" });
    expect(free.status).toBe(404);
    expect((await free.json()).error.availability).toMatchObject({ code: "free_variant_ended", fallback_models: ["acme/chat"] });
    const workspaceId = (await gateway.services.keys.findByHash(new Bun.CryptoHasher("sha256").update(key).digest("hex")))!.workspaceId;
    const region = (data_region: string | null) =>
      fetch(`${gateway.url}/api/v1/workspaces/${workspaceId}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ data_region }),
      });
    await region("eu");
    try {
      const europe = await chat({});
      expect((await europe.json()).provider).toBe("Gamma Europe");
      await region("us");
      const none = await chat({});
      expect(none.status).toBe(403);
      expect((await none.json()).error.availability).toMatchObject({ code: "region_restricted", excluded_by: ["data_region"] });
      const me = await (await fetch(`${gateway.url}/api/v1/key`, { headers: { authorization: `Bearer ${key}` } })).json();
      expect(me.data.allowed_data_regions).toEqual(["us"]);
    } finally {
      await region(null);
    }
    expect(calls()).toEqual({ alpha: 0, beta: 0, gamma: 1 });
  });

  test("a base slug matches its variants", async () => {
    const response = await chat({ provider: { only: ["gamma"] } });
    expect(response.status).toBe(200);
    expect(calls().gamma).toBe(1);
  });
});

describe("sticky sessions", () => {
  test("a session keeps its endpoint (body session_id wins over x-session-id); order skips stickiness", async () => {
    const firstResponse = await chat({ session_id: "s-1" }, { "x-session-id": "other" });
    const first = (await firstResponse.json()).provider;
    for (let index = 0; index < 8; index++) {
      const again = await (await chat({ session_id: "s-1" })).json();
      expect(again.provider).toBe(first);
    }
    const viaHeader = (await (await chat({}, { "x-session-id": "s-2" })).json()).provider;
    for (let index = 0; index < 5; index++) expect((await (await chat({}, { "x-session-id": "s-2" })).json()).provider).toBe(viaHeader);
    const ordered = await (await chat({ session_id: "s-1", provider: { order: first === "alpha" ? ["beta"] : ["alpha"] } })).json();
    expect(ordered.provider).not.toBe(first);
  });

  test("a sticky endpoint that fails yields to the next best", async () => {
    const first = (await (await chat({ session_id: "s-3" })).json()).provider as string;
    const failing = { alpha, beta, "Gamma Europe": gamma }[first]!;
    failing.behave({ status: 503 });
    const second = await (await chat({ session_id: "s-3" })).json();
    expect(second.provider).not.toBe(first);
  });

  test("Claude Code's x-claude-code-session-id keeps its endpoint; x-session-id wins over it", async () => {
    const claudeCode = { "x-claude-code-session-id": "cc-1" };
    const first = (await (await chat({}, claudeCode)).json()).provider;
    for (let index = 0; index < 8; index++) expect((await (await chat({}, claudeCode)).json()).provider).toBe(first);
    const id = (await (await chat({}, { ...claudeCode, "x-session-id": "s-9" })).json()).id;
    // The record is written behind the response.
    let record = await fetch(`${gateway.url}/api/v1/generation?id=${id}`, { headers: { authorization: `Bearer ${key}` } });
    for (let attempt = 0; record.status === 404 && attempt < 40; attempt++) {
      await Bun.sleep(25);
      record = await fetch(`${gateway.url}/api/v1/generation?id=${id}`, { headers: { authorization: `Bearer ${key}` } });
    }
    expect(((await record.json()) as any).data.session_id).toBe("s-9");
    expect((await chat({}, { "x-claude-code-session-id": "c".repeat(257) })).status).toBe(400);
  });

  test("an x-session-id over 256 characters is 400", async () => {
    expect((await chat({}, { "x-session-id": "s".repeat(257) })).status).toBe(400);
  });
});

describe("streams", () => {
  test("before the first token a failure fails over; the debug echo shows each attempted body", async () => {
    alpha.behave({ status: 502 });
    const response = await chat({ stream: true, debug: { echo_upstream_body: true }, provider: { order: ["alpha", "beta"] } });
    expect(response.status).toBe(200);
    const events = sseEvents(await response.text());
    const echoes = events.filter((event) => event.data.debug);
    expect(echoes.map((event) => event.data.debug.echo_upstream_body.model)).toEqual(["chat-a", "chat-b"]);
    expect(events.indexOf(echoes[0]!)).toBeLessThan(events.findIndex((event) => event.data.choices?.[0]?.delta?.content));
    expect(calls()).toEqual({ alpha: 1, beta: 1, gamma: 0 });
  });

  test("after the first token there is no failover: the stream ends with a terminal error", async () => {
    alpha.behave({ cutAfter: 1, chunkDelayMs: 5 });
    const response = await chat({ stream: true, provider: { order: ["alpha", "beta"] } });
    const events = sseEvents(await response.text());
    const last = events.filter((event) => event.data !== "[DONE]").at(-1)!;
    expect(last.data.choices[0].finish_reason).toBe("error");
    expect(calls()).toEqual({ alpha: 1, beta: 0, gamma: 0 });
  });

  test("routing metadata arrives on the final chunk", async () => {
    const response = await chat({ stream: true }, { "x-openrouter-metadata": "enabled" });
    const events = sseEvents(await response.text());
    const metadata = events.find((event) => event.data.openrouter_metadata);
    expect(metadata?.data.openrouter_metadata).toMatchObject({ requested: "acme/chat", strategy: "direct", attempt: 1 });
  });

  test("when the stream had already started, an availability error arrives as an error chunk", async () => {
    for (const upstream of [alpha, beta, gamma]) upstream.behave({ delayMs: 1200, status: 503 });
    const response = await chat({ stream: true });
    expect(response.status).toBe(200);
    const events = sseEvents(await response.text());
    const error = events.find((event) => event.data.error);
    expect(error?.data.error.availability).toMatchObject({ code: "temporarily_unavailable" });
    expect(error?.data.choices[0].finish_reason).toBe("error");
  });
});
