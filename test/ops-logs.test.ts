import { afterAll, beforeAll, expect, test } from "bun:test";
import { closedPort } from "./helpers/fault-upstream.ts";
import { callApi, listening, newInferenceKey } from "./helpers/gateway.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/**
 * What an operator reads when upstreams fail, over real sockets: `dead` refuses connections (a closed
 * port), `slow` answers after its first-byte timeout, `five` answers 500 and `good` answers. Each failed
 * attempt is one warning line (no stack trace) before the request's access line; the access line and
 * the generation record name each other; a 503 after every upstream failed names each real cause.
 */
let slow: Upstream;
let five: Upstream;
let good: Upstream;
let gateway: Awaited<ReturnType<typeof listening>>;
let key: string;
const dead = closedPort();

beforeAll(async () => {
  slow = startOpenAiUpstream();
  slow.behave({ delayMs: 3000 });
  five = startOpenAiUpstream();
  five.behave({ status: 500 });
  good = startOpenAiUpstream();
  gateway = await listening({
    configText: `providers:
  dead: { type: openai-compatible, base_url: "http://127.0.0.1:${dead}/v1" }
  slow: { type: openai-compatible, base_url: "${slow.url}/v1", timeouts: { first_byte_timeout_ms: 300 } }
  five: { type: openai-compatible, base_url: "${five.url}/v1" }
  good: { type: openai-compatible, base_url: "${good.url}/v1" }
models:
  - id: t/m
    endpoints:
      - { provider: dead, model: m }
      - { provider: slow, model: m }
      - { provider: five, model: m }
      - { provider: good, model: m }
`,
  });
  key = await newInferenceKey(gateway.url, "ops-logs");
});

afterAll(async () => {
  await gateway.stop();
  await Promise.all([slow.stop(), five.stop(), good.stop()]);
});

function chat(order: string[], extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return fetch(`${gateway.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "t/m", messages: [{ role: "user", content: "hi" }], provider: { order, allow_fallbacks: true }, ...extra }),
  });
}

type Line = Record<string, unknown> & { level: string; message: string };

/** The log lines written since `from`, once the access line of `requestId` is among them. */
async function linesUntilAccess(from: number, requestId: string): Promise<{ lines: Line[]; raw: string[] }> {
  const done = () => gateway.lines.slice(from).some((line) => line.includes(`"request_id":"${requestId}"`) && line.includes(`"message":"request"`));
  for (let turn = 0; !done(); turn++) {
    if (turn > 500) throw new Error(`no access line for ${requestId}: ${gateway.lines.slice(from).join("")}`);
    await Bun.sleep(10);
  }
  const raw = gateway.lines.slice(from);
  return { raw, lines: raw.map((line) => JSON.parse(line) as Line) };
}

test("every upstream failed: the 503 names each real cause, and the log has one plain warning per attempt", async () => {
  gateway.services.health.reset();
  const from = gateway.lines.length;
  const response = await chat(["dead", "slow", "five"], { provider: { order: ["dead", "slow", "five"], ignore: ["good"] } });
  expect(response.status).toBe(503);
  const body = await response.json();
  expect(body.error.metadata.previous_errors).toEqual([
    { provider: "dead", code: "connection_error", status: 502 },
    { provider: "slow", code: "timeout", status: 504 },
    { provider: "five", code: "provider_unavailable", status: 500 },
  ]);
  expect(body.error.message).toBe("All 3 attempts for t/m failed: dead could not be reached, slow timed out, five answered 500.");
  // A refused connection is not an overloaded provider, in any word the client reads.
  expect(JSON.stringify(body).toLowerCase()).not.toContain("overloaded");
  expect(body.error.metadata.error_type).toBe("provider_unavailable");

  const requestId = response.headers.get("x-request-id")!;
  const { lines, raw } = await linesUntilAccess(from, requestId);
  const warnings = lines.filter((line) => line.message === "upstream attempt failed");
  expect(warnings).toEqual(
    ["dead", "slow", "five"].map((provider, attempt) =>
      expect.objectContaining({ level: "warn", attempt, provider, endpoint: `${provider}:m`, code: expect.any(String), latency_ms: expect.any(Number) }),
    ),
  );
  expect(warnings.map((line) => line.code)).toEqual(["connection_error", "timeout", "provider_unavailable"]);
  // Expected upstream failures: one line each, the access line, nothing at error level, no stack trace.
  const access = lines.findIndex((line) => line.message === "request" && line.request_id === requestId);
  expect(lines.findLastIndex((line) => line.message === "upstream attempt failed")).toBeLessThan(access);
  expect(lines[access]).toMatchObject({ status: 503, generation_id: warnings[0]!.generation_id });
  expect(lines.filter((line) => line.level === "error")).toEqual([]);
  for (const line of raw) {
    expect(line).not.toContain("stack");
    expect(line).not.toMatch(/\\n\s+at /);
  }
});

test("a failed attempt then a healthy fallback: a warning before the access line, which names the generation that names the request", async () => {
  gateway.services.health.reset();
  const from = gateway.lines.length;
  const response = await chat(["dead", "good"]);
  expect(response.status).toBe(200);
  const answer = await response.json();
  const requestId = response.headers.get("x-request-id")!;
  expect(requestId).toBeTruthy();

  const { lines, raw } = await linesUntilAccess(from, requestId);
  const warning = lines.findIndex((line) => line.message === "upstream attempt failed");
  const access = lines.findIndex((line) => line.message === "request" && line.request_id === requestId);
  expect(warning).toBeGreaterThanOrEqual(0);
  expect(warning).toBeLessThan(access);
  expect(lines[warning]).toMatchObject({ level: "warn", provider: "dead", endpoint: "dead:m", code: "connection_error", generation_id: answer.id });
  expect(lines[warning]!.latency_ms).toEqual(expect.any(Number));
  expect(lines[access]).toMatchObject({ level: "info", status: 200, provider: "good", model: "t/m", generation_id: answer.id });
  expect(raw.join("")).not.toContain("stack");

  const record = await callApi(gateway.url, "GET", `/generation?id=${answer.id}`, undefined, key);
  expect(record.status).toBe(200);
  expect((await record.json()).data).toMatchObject({ id: answer.id, request_id: requestId, provider_name: expect.any(String) });
});

test("a client's own x-request-id is the one the access line and the generation record carry", async () => {
  gateway.services.health.reset();
  const from = gateway.lines.length;
  const response = await chat(["good"], {}, { "x-request-id": "client-req-42" });
  expect(response.status).toBe(200);
  expect(response.headers.get("x-request-id")).toBe("client-req-42");
  const answer = await response.json();
  const { lines } = await linesUntilAccess(from, "client-req-42");
  expect(lines.find((line) => line.message === "request" && line.request_id === "client-req-42")).toMatchObject({ generation_id: answer.id, status: 200 });
  const record = await callApi(gateway.url, "GET", `/generation?id=${answer.id}`, undefined, key);
  expect((await record.json()).data.request_id).toBe("client-req-42");
});
