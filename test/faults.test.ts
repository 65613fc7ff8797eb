import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ADMIN_KEY, listening } from "./helpers/gateway.ts";
import { closedPort, expectedText, type Fault, type FaultUpstream, startFaultUpstream } from "./helpers/fault-upstream.ts";
import { sseEvents } from "./helpers/inference-setup.ts";
import { trackTimers } from "./helpers/leaks.ts";

/**
 * Upstream and client faults over real sockets. A fault-injecting upstream (`bad`) misbehaves at the
 * socket or HTTP level; a healthy one (`good`) stands behind it. Each case checks the answer (failover
 * before the first token, a terminal error chunk after it, the client's error envelope when nobody is
 * left) and the calls each upstream received, then that nothing is left behind: no open connection to
 * either upstream, no pending gateway timer, no stream in flight.
 */
const timers = trackTimers(join(import.meta.dir, "..", "src") + "/");

let bad: FaultUpstream;
let good: FaultUpstream;
let gateway: Awaited<ReturnType<typeof listening>>;
let key: string;

const WIRES = [
  { wire: "openai", model: "f/oa", suffix: "oa", path: "/chat/completions" },
  { wire: "anthropic", model: "f/an", suffix: "an", path: "/messages" },
] as const;
type Wire = (typeof WIRES)[number];

function config(dead: number): string {
  const providers = (suffix: string, base: (url: string) => string, type: string) =>
    [`bad-${suffix}`, `good-${suffix}`, `dead-${suffix}`]
      .map((name, i) => `  ${name}: { type: ${type}, base_url: ${base([bad.url, good.url, `http://127.0.0.1:${dead}`][i]!)} }`)
      .join("\n");
  const model = (id: string, suffix: string) => `  - id: ${id}\n    endpoints:\n${["bad", "good", "dead"].map((p) => `      - { provider: ${p}-${suffix}, model: m }`).join("\n")}`;
  return `upstream:
  stream_warmup_ms: 5000
  keepalive_interval_ms: 100
  connect_timeout_ms: 600
  first_byte_timeout_ms: 800
  idle_timeout_ms: 500
  max_response_bytes: 1048576
providers:
${providers("oa", (url) => `${url}/v1`, "openai-compatible")}
${providers("an", (url) => url, "anthropic")}
models:
${model("f/oa", "oa")}
${model("f/an", "an")}
`;
}

beforeAll(async () => {
  bad = startFaultUpstream();
  good = startFaultUpstream();
  gateway = await listening({ configText: config(closedPort()) });
  // The gateway's lifetime timers (the hourly housekeeping) are not left behind by a request.
  timers.forgetStarted();
  const created = await fetch(`${gateway.url}/api/v1/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "faults" }),
  });
  key = ((await created.json()) as { key: string }).key;
});

afterAll(async () => {
  timers.restore();
  await gateway.stop();
  await Promise.all([bad.stop(), good.stop()]);
});

beforeEach(() => {
  gateway.services.health.reset();
  bad.requests.length = 0;
  good.requests.length = 0;
  bad.behave({ kind: "ok" });
  good.behave({ kind: "ok" });
});

async function eventually(check: () => boolean, ms = 2000): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) return false;
    await Bun.sleep(10);
  }
  return true;
}

/** Nothing left behind: connections to both upstreams closed, no gateway timer pending, no stream in flight. */
afterEach(async () => {
  await eventually(() => bad.open === 0 && good.open === 0);
  expect({ badOpen: bad.open, goodOpen: good.open }).toEqual({ badOpen: 0, goodOpen: 0 });
  // The generation store's write-behind (50 ms) may still be queued; anything longer is a leak.
  await eventually(() => timers.pending(60).length === 0, 500);
  expect(timers.pending(60)).toEqual([]);
  expect(gateway.services.lifecycle.activeStreams).toBe(0);
});

interface Answer {
  status: number;
  headers: Headers;
  json?: any;
  events?: Array<{ event?: string; data: any }>;
  text: string;
}

/** One request in the wire's own client style, read to its end (so the stream was closed). */
async function call(wire: Wire, stream: boolean, first: "bad" | "dead", solo: boolean, signal?: AbortSignal): Promise<Answer> {
  const providers = solo ? [`${first}-${wire.suffix}`] : [`${first}-${wire.suffix}`, `good-${wire.suffix}`];
  const body = {
    model: wire.model,
    stream,
    messages: [{ role: "user", content: "hi" }],
    ...(wire.wire === "anthropic" ? { max_tokens: 50 } : {}),
    provider: { order: providers, only: providers },
  };
  const response = await fetch(`${gateway.url}/api/v1${wire.path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: signal ?? AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  const streamed = response.headers.get("content-type")?.startsWith("text/event-stream");
  return { status: response.status, headers: response.headers, text, ...(streamed ? { events: sseEvents(text) } : { json: JSON.parse(text) }) };
}

/** The answer's text, and whether it finished cleanly. */
function outcome(wire: Wire, answer: Answer): { text: string; finished: boolean; error?: any } {
  if (answer.json) {
    const text = wire.wire === "openai" ? answer.json.choices?.[0]?.message?.content : answer.json.content?.[0]?.text;
    return { text: text ?? "", finished: answer.status === 200 };
  }
  const events = answer.events!;
  if (wire.wire === "openai") {
    const text = events.map((event) => event.data.choices?.[0]?.delta?.content ?? "").join("");
    const last = events.at(-1)?.data;
    const failed = last?.choices?.[0]?.finish_reason === "error";
    return { text, finished: !failed && answer.text.trimEnd().endsWith("data: [DONE]"), ...(failed ? { error: last.error } : {}) };
  }
  const text = events.map((event) => (event.event === "content_block_delta" ? event.data.delta.text : "")).join("");
  const last = events.at(-1)!;
  return { text, finished: last.event === "message_stop", ...(last.event === "error" ? { error: last.data.error } : {}) };
}

const calls = () => ({ bad: bad.requests.length, good: good.requests.length });

/** Failed over to `good` before anything reached the client: a clean, complete answer from it. */
async function expectFailover(wire: Wire, stream: boolean, first: "bad" | "dead" = "bad") {
  const answer = await call(wire, stream, first, false);
  expect(answer.status).toBe(200);
  expect(outcome(wire, answer)).toEqual({ text: expectedText(), finished: true });
  expect(calls()).toEqual({ bad: first === "bad" ? 1 : 0, good: 1 });
}

/** With nobody to fail over to: the client's error envelope with the status and availability code. */
async function expectError(wire: Wire, stream: boolean, status: number, availability: string | undefined, first: "bad" | "dead" = "bad") {
  const answer = await call(wire, stream, first, true);
  expect(answer.status).toBe(status);
  expect(answer.headers.get("content-type")).toStartWith("application/json");
  const error = answer.json.error;
  expect(error.code).toBe(status);
  if (wire.wire === "anthropic") {
    expect(answer.json.type).toBe("error");
    expect(error.type).toBe(status === 429 ? "rate_limit_error" : status === 503 ? "overloaded_error" : "api_error");
  }
  if (availability === undefined) expect(error.availability).toBeUndefined();
  else expect(error.availability).toMatchObject({ code: availability, retryable: true });
  expect(calls()).toEqual({ bad: first === "bad" ? 1 : 0, good: 0 });
  return answer;
}

/** After the first token: no failover, the partial answer ends with the style's terminal error. */
async function expectTerminal(wire: Wire, code: number, providerCode: string) {
  const answer = await call(wire, true, "bad", false);
  expect(answer.status).toBe(200);
  const result = outcome(wire, answer);
  expect(result.finished).toBe(false);
  expect(result.text.length).toBeGreaterThan(0);
  expect(expectedText().startsWith(result.text)).toBe(true);
  if (wire.wire === "openai") expect(result.error).toMatchObject({ code, metadata: { provider_code: providerCode } });
  else expect(result.error.type).toBe(code === 504 ? "timeout_error" : "api_error");
  expect(calls()).toEqual({ bad: 1, good: 0 });
}

for (const wire of WIRES) {
  describe(`${wire.wire} wire: faults before the first token fail over; with nobody left, the client's error`, () => {
    const both = [false, true] as const;
    const mode = (stream: boolean) => (stream ? "stream" : "json");
    // [name, fault, error status with nobody left, availability code]
    const cases: Array<[string, Fault, number, string | undefined]> = [
      ["reset before the headers", { kind: "reset", after: -1 }, 503, "temporarily_unavailable"],
      ["stall before the headers", { kind: "stall", after: -1 }, 503, "temporarily_unavailable"],
      ["malformed JSON body", { kind: "malformed-json" }, 502, undefined],
      ["text/html 200", { kind: "html" }, 502, undefined],
      ["429 with Retry-After", { kind: "status", status: 429, headers: { "retry-after": "7" } }, 429, "capacity_exhausted"],
      ["500", { kind: "status", status: 500 }, 503, "temporarily_unavailable"],
      ["502", { kind: "status", status: 502 }, 503, "temporarily_unavailable"],
      ["503", { kind: "status", status: 503 }, 503, "temporarily_unavailable"],
      ["a 50 MB answer", { kind: "huge", bytes: 50 * 1024 * 1024 }, 502, undefined],
    ];
    for (const stream of both) {
      test(`${mode(stream)}: connection refused`, async () => {
        await expectFailover(wire, stream, "dead");
        good.requests.length = 0;
        await expectError(wire, stream, 503, "temporarily_unavailable", "dead");
      });
      for (const [name, fault, status, availability] of cases) {
        test(`${mode(stream)}: ${name}`, async () => {
          bad.behave(fault);
          await expectFailover(wire, stream);
          // Bounded: the gateway stopped reading at max_response_bytes and closed the connection.
          if (fault.kind === "huge") expect(bad.requests[0]!.written).toBeLessThan(16 * 1024 * 1024);
          gateway.services.health.reset();
          bad.requests.length = good.requests.length = 0;
          const answer = await expectError(wire, stream, status, availability);
          if (status === 429) expect(answer.headers.get("retry-after")).toBe("7");
        });
      }
      // (A 50 MB answer to a stream request is one SSE line that never ends: bounded the same way.)
      test(`${mode(stream)}: a 50 MB error body is not read past its first bytes`, async () => {
        bad.behave({ kind: "huge", bytes: 50 * 1024 * 1024, status: 500 });
        await expectFailover(wire, stream);
        await eventually(() => bad.open === 0);
        expect(bad.requests[0]!.written).toBeLessThan(16 * 1024 * 1024);
      });
    }

    test("json: a 500 whose error body stalls (past the first-byte timeout)", async () => {
      bad.behave({ kind: "status", status: 500, stallBody: true });
      await expectFailover(wire, false);
    });
    test("json: reset halfway through the body", async () => {
      bad.behave({ kind: "reset", after: 0 });
      await expectFailover(wire, false);
      bad.requests.length = good.requests.length = 0;
      await expectError(wire, false, 503, "temporarily_unavailable");
    });
    test("json: a stall halfway through the body (past the first-byte timeout)", async () => {
      bad.behave({ kind: "stall", after: 0 });
      await expectFailover(wire, false);
    });
    test("json: a drip slower than the timeout fails over; a faster one completes", async () => {
      bad.behave({ kind: "ok", intervalMs: 400 });
      await expectFailover(wire, false);
      bad.requests.length = good.requests.length = 0;
      bad.behave({ kind: "ok", intervalMs: 60 });
      const answer = await call(wire, false, "bad", false);
      expect(outcome(wire, answer)).toEqual({ text: expectedText(), finished: true });
      expect(calls()).toEqual({ bad: 1, good: 0 });
    });
    test("stream: a stall after the preamble, before the first token", async () => {
      bad.behave({ kind: "stall", after: 0 });
      await expectFailover(wire, true);
    });
    test("stream: an invalid JSON chunk before the first token", async () => {
      bad.behave({ kind: "garbage-sse", badChunkAfter: 0 });
      await expectFailover(wire, true);
      gateway.services.health.reset();
      bad.requests.length = good.requests.length = 0;
      await expectError(wire, true, 503, "temporarily_unavailable");
    });
  });

  describe(`${wire.wire} wire: faults after the first token end the stream with a terminal error`, () => {
    test("reset mid-stream", async () => {
      bad.behave({ kind: "reset", after: 2 });
      await expectTerminal(wire, 502, "stream_cut");
    });
    test("a stall past the idle timeout", async () => {
      bad.behave({ kind: "stall", after: 2 });
      await expectTerminal(wire, 504, "idle_timeout");
    });
    test("a drip slower than the idle timeout", async () => {
      bad.behave({ kind: "ok", intervalMs: 700 });
      await expectTerminal(wire, 504, "idle_timeout");
    });
    test("an invalid JSON chunk", async () => {
      bad.behave({ kind: "garbage-sse", badChunkAfter: 2 });
      await expectTerminal(wire, 502, "malformed_stream");
    });
  });

  describe(`${wire.wire} wire: tolerated oddities complete`, () => {
    test("a drip slower in total than the idle timeout, each chunk within it", async () => {
      bad.behave({ kind: "ok", intervalMs: 100, chunks: 8 });
      const answer = await call(wire, true, "bad", false);
      expect(outcome(wire, answer)).toEqual({ text: expectedText(8), finished: true });
      expect(calls()).toEqual({ bad: 1, good: 0 });
    });
    test("garbage lines and comments between the events", async () => {
      bad.behave({ kind: "garbage-sse" });
      const answer = await call(wire, true, "bad", false);
      expect(outcome(wire, answer)).toEqual({ text: expectedText(), finished: true });
      expect(calls()).toEqual({ bad: 1, good: 0 });
    });
  });

  describe(`${wire.wire} wire: client faults`, () => {
    async function generation(id: string): Promise<any> {
      for (let attempt = 0; attempt < 40; attempt++) {
        const response = await fetch(`${gateway.url}/api/v1/generation?id=${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${key}` } });
        if (response.status === 200) return ((await response.json()) as { data: unknown }).data;
        await Bun.sleep(25);
      }
      throw new Error(`generation ${id} not recorded`);
    }

    test("a client that leaves mid-stream: the upstream connection closes within 500 ms; usage so far is recorded", async () => {
      bad.behave({ kind: "ok", intervalMs: 100, chunks: 40 });
      const controller = new AbortController();
      const providers = [`bad-${wire.suffix}`];
      const response = await fetch(`${gateway.url}/api/v1${wire.path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: wire.model, stream: true, max_tokens: 50, messages: [{ role: "user", content: "hi" }], provider: { only: providers } }),
        signal: controller.signal,
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      let text = "";
      while (!text.includes("w1 ")) {
        const read = await reader.read();
        if (read.done) throw new Error(`the stream ended early: ${text}`);
        text += new TextDecoder().decode(read.value);
      }
      const first = sseEvents(text.slice(0, text.lastIndexOf("\n\n") + 2))[0]!.data;
      const id = (wire.wire === "openai" ? first.id : first.message.id) as string;
      const left = performance.now();
      controller.abort();
      const upstream = bad.requests[0]!;
      expect(await eventually(() => upstream.closedAt !== undefined, 500)).toBe(true);
      expect(upstream.closedAt! - left).toBeLessThan(500);
      expect(upstream.complete).toBe(false);
      const record = await generation(id);
      expect(record).toMatchObject({ id, cancelled: true, streamed: true, status: 499 });
      expect(record.tokens_completion).toBeGreaterThan(0);
      expect(record.tokens_prompt).toBeGreaterThan(0);
    });

    test("a client that leaves before the upstream answered (stream warm-up, and JSON): the upstream is aborted", async () => {
      bad.behave({ kind: "stall", after: -1 });
      for (const stream of [true, false]) {
        bad.requests.length = 0;
        const controller = new AbortController();
        const pending = call(wire, stream, "bad", true, controller.signal).catch((error: unknown) => error);
        expect(await eventually(() => bad.requests.length === 1 && bad.open === 1)).toBe(true);
        const left = performance.now();
        controller.abort();
        expect(await pending).toBeInstanceOf(Error);
        expect(await eventually(() => bad.requests[0]!.closedAt !== undefined, 500)).toBe(true);
        expect(bad.requests[0]!.closedAt! - left).toBeLessThan(500);
      }
    });
  });
}
