import { afterAll, beforeAll, expect, test } from "bun:test";
import { closedPort } from "./helpers/fault-upstream.ts";
import { listening, newInferenceKey } from "./helpers/gateway.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/**
 * Failover is visible. Two providers over real sockets: `dead` refuses connections (a closed port),
 * `five` answers 500. The client's 503 names each real cause (not "overloaded"), without the upstream
 * hosts; the log has one warning per failed attempt with its provider, cause and latency.
 */
let five: Upstream;
let gateway: Awaited<ReturnType<typeof listening>>;
let key: string;
const dead = closedPort();

beforeAll(async () => {
  five = startOpenAiUpstream();
  five.behave({ status: 500 });
  gateway = await listening({
    configText: `providers:
  dead: { type: openai-compatible, base_url: "http://127.0.0.1:${dead}/v1" }
  five: { type: openai-compatible, base_url: "${five.url}/v1" }
models:
  - id: t/m
    endpoints:
      - { provider: dead, model: m }
      - { provider: five, model: m }
`,
  });
  key = await newInferenceKey(gateway.url, "failover");
});

afterAll(async () => {
  await gateway.stop();
  await five.stop();
});

const post = (path: string, body: unknown) =>
  fetch(`${gateway.url}/api/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ ...(body as object), provider: { order: ["dead", "five"] } }),
  });

const CAUSES = [
  { provider: "dead", code: "connection_error", status: 502 },
  { provider: "five", code: "provider_unavailable", status: 500 },
];

test("one provider refusing connections: the client reads what happened, not the upstream's address", async () => {
  gateway.services.health.reset();
  const response = await fetch(`${gateway.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "t/m", messages: [{ role: "user", content: "hi" }], provider: { order: ["dead"], allow_fallbacks: false } }),
  });
  expect(response.status).toBe(502);
  const body = await response.json();
  expect(body.error.message).toBe("dead could not be reached (connection refused)");
  expect(body.error.metadata).toMatchObject({ provider: "dead", provider_code: "connection_error" });
});

test.each([false, true])("every provider failed (stream: %p): previous_errors and the message name each real cause", async (stream) => {
  gateway.services.health.reset();
  const response = await post("/chat/completions", { model: "t/m", stream, messages: [{ role: "user", content: "hi" }] });
  expect(response.status).toBe(503);
  const body = await response.json();
  expect(body.error.metadata.previous_errors).toEqual(CAUSES);
  expect(body.error.metadata.error_type).toBe("provider_unavailable");
  expect(body.error.availability).toMatchObject({ code: "temporarily_unavailable", affected_providers: ["dead", "five"] });
  expect(body.error.message).toBe("All 2 attempts for t/m failed: dead could not be reached, five answered 500.");
  expect(body.error.message).not.toContain("127.0.0.1");
});

test("each failed attempt is a warning in the log: provider, endpoint, model, cause, latency, attempt index", async () => {
  gateway.services.health.reset();
  const before = gateway.lines.length;
  const response = await post("/responses", { model: "t/m", input: "hi" });
  expect(response.status).toBe(503);
  expect((await response.json()).error_type).toBe("provider_unavailable");
  const warnings = gateway.lines
    .slice(before)
    .map((line) => JSON.parse(line))
    .filter((line) => line.message === "upstream attempt failed");
  expect(warnings).toEqual(
    CAUSES.map((cause, attempt) =>
      expect.objectContaining({ level: "warn", attempt, ...cause, endpoint: `${cause.provider}:m`, model: "t/m", latency_ms: expect.any(Number) }),
    ),
  );
  // The operator reads what the client does not: the refused address.
  expect(warnings[0].error).toBe("dead could not be reached (connection refused)");
  expect(warnings[0].cause).toContain(`127.0.0.1:${dead}`);
  // One request: both lines carry its generation id.
  expect(new Set(warnings.map((line) => line.generation_id)).size).toBe(1);
});
