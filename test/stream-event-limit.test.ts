import { afterAll, beforeAll, expect, test } from "bun:test";
import { listening, newInferenceKey } from "./helpers/gateway.ts";
import { sseEvents } from "./helpers/inference-setup.ts";

/**
 * An upstream stream whose one event outgrows `max_response_bytes` after the first token: a real local
 * server sends a content chunk, then a `data:` line of 4 MB that never ends. The client gets the text
 * so far and a terminal error chunk that says what happened; the gateway stops reading and hangs up.
 */
const LIMIT = 1024 * 1024;
let upstreamClosed = false;
let written = 0;

const upstream = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  idleTimeout: 0,
  async fetch(request) {
    await request.json();
    const encoder = new TextEncoder();
    const first = { id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }] };
    const piece = encoder.encode("x".repeat(64 * 1024));
    return new Response(
      new ReadableStream({
        async pull(controller) {
          if (written === 0) {
            controller.enqueue(encoder.encode(`data: ${JSON.stringify(first)}\n\ndata: {"choices":[{"delta":{"content":"`));
            written = 1;
            return;
          }
          if (written > 4 * LIMIT) return new Promise(() => {});
          await Bun.sleep(1);
          controller.enqueue(piece);
          written += piece.byteLength;
        },
        cancel() {
          upstreamClosed = true;
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  },
});

let gateway: Awaited<ReturnType<typeof listening>>;
let key: string;

beforeAll(async () => {
  gateway = await listening({
    configText: `upstream:
  max_response_bytes: ${LIMIT}
  idle_timeout_ms: 5000
providers:
  big: { type: openai-compatible, base_url: "http://127.0.0.1:${upstream.port}/v1" }
models:
  - id: t/big
    endpoints:
      - { provider: big, model: m }
`,
  });
  key = await newInferenceKey(gateway.url, "limit");
});

afterAll(async () => {
  await gateway.stop();
  await upstream.stop(true);
});

test("an event over max_response_bytes after the first token: the text so far, then a clear error chunk", async () => {
  const response = await fetch(`${gateway.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "t/big", stream: true, messages: [{ role: "user", content: "hi" }] }),
    signal: AbortSignal.timeout(20_000),
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  const events = sseEvents(text).map((event) => event.data);
  expect(events.map((event) => event.choices?.[0]?.delta?.content ?? "").join("")).toBe("Hi");
  const last = events.at(-1);
  expect(last.choices[0].finish_reason).toBe("error");
  expect(last.error).toMatchObject({ code: 502, metadata: { provider_code: "response_too_large" } });
  expect(last.error.message).toBe(`big sent a stream event larger than ${LIMIT} bytes (max_response_bytes)`);
  expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
  // The gateway stopped reading at the limit and hung up instead of holding the rest.
  for (let waited = 0; !upstreamClosed && waited < 200; waited++) await Bun.sleep(10);
  expect(upstreamClosed).toBe(true);
  expect(written).toBeLessThan(4 * LIMIT);
});
