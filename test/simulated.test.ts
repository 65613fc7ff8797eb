import { describe, expect, test } from "bun:test";
import { createKey, inProcess } from "./helpers/gateway.ts";

/** A gateway whose only provider is the simulator with the given settings. */
async function simulator(simulation: Record<string, unknown>, upstream: Record<string, unknown> = {}) {
  const gateway = await inProcess({
    upstream: { stream_warmup_ms: 5000, ...upstream },
    providers: { sim: { type: "simulated", simulation } },
    models: [{ id: "sim/model", endpoints: [{ provider: "sim", pricing: { prompt: 1, completion: 2 } }] }],
  });
  const { key } = await createKey(gateway, { name: "inference" });
  const chat = (body: Record<string, unknown>) =>
    gateway.call("POST", "/chat/completions", { key, body: { model: "sim/model", messages: [{ role: "user", content: "Hi there" }], ...body } });
  return { gateway, key, chat };
}

function dataFrames(text: string): any[] {
  return text
    .split("\n\n")
    .filter((frame) => frame.startsWith("data: ") && !frame.includes("[DONE]"))
    .map((frame) => JSON.parse(frame.slice(6)));
}

describe("the simulated provider", () => {
  test("answers deterministically, the configured output or one derived from the prompt", async () => {
    const derived = await simulator({ ttft_ms: 0, tokens_per_second: 0 });
    const first = await (await derived.chat({})).json();
    const second = await (await derived.chat({})).json();
    expect(first.choices[0].message.content).toBe("Simulated answer from sim/model. You said: Hi there");
    expect(second.choices[0].message.content).toBe(first.choices[0].message.content);
    expect(first.usage.completion_tokens).toBeGreaterThan(0);
    const fixed = await simulator({ ttft_ms: 0, tokens_per_second: 0, output: "Fixed words here." });
    expect((await (await fixed.chat({})).json()).choices[0].message.content).toBe("Fixed words here.");
  });

  test("honours max_tokens with finish_reason length", async () => {
    const { chat } = await simulator({ ttft_ms: 0, tokens_per_second: 0, output: "one two three four five" });
    const body = await (await chat({ max_tokens: 2 })).json();
    expect(body.choices[0]).toMatchObject({ finish_reason: "length", message: { content: "one two" } });
  });

  test("calls a tool with arguments from its schema, then answers the tool result", async () => {
    const { chat } = await simulator({ ttft_ms: 0, tokens_per_second: 0 });
    const tools = [{ type: "function", function: { name: "weather", parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] } } }];
    const call = await (await chat({ tools })).json();
    expect(call.choices[0].finish_reason).toBe("tool_calls");
    expect(call.choices[0].message.tool_calls[0].function).toEqual({ name: "weather", arguments: '{"city":"example"}' });
    const answer = await (
      await chat({
        tools,
        messages: [
          { role: "user", content: "Weather?" },
          { role: "assistant", content: null, tool_calls: call.choices[0].message.tool_calls },
          { role: "tool", tool_call_id: call.choices[0].message.tool_calls[0].id, content: "sunny" },
        ],
      })
    ).json();
    expect(answer.choices[0].message.content).toBe("The tool returned: sunny");
  });

  test("time to first token and tokens per second shape the stream", async () => {
    const { chat } = await simulator({ ttft_ms: 120, tokens_per_second: 50, output: "a b c d e" });
    const started = performance.now();
    const text = await (await chat({ stream: true })).text();
    const elapsed = performance.now() - started;
    const content = dataFrames(text).flatMap((chunk) => chunk.choices.map((choice: any) => choice.delta.content ?? "")).join("");
    expect(content).toBe("a b c d e");
    // 120 ms to the first token, then 4 gaps of 20 ms.
    expect(elapsed).toBeGreaterThanOrEqual(190);
  });

  test("a status failure is an HTTP error in the client's envelope, with Retry-After", async () => {
    const { chat } = await simulator({ ttft_ms: 0, failure: { mode: "status", status: 429, retry_after_seconds: 7 } });
    const response = await chat({});
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("7");
    const body = await response.json();
    expect(body.error.code).toBe(429);
    expect(body.error.metadata.error_type).toBe("rate_limit_exceeded");
  });

  test("every: n fails only every n-th request", async () => {
    const { chat } = await simulator({ ttft_ms: 0, tokens_per_second: 0, failure: { mode: "status", status: 503, every: 2 } });
    expect((await chat({})).status).toBe(200);
    expect((await chat({})).status).toBe(503);
    expect((await chat({})).status).toBe(200);
  });

  test("a cut mid-stream ends with a terminal error chunk, never a clean close", async () => {
    const { chat } = await simulator({ ttft_ms: 0, tokens_per_second: 0, output: "a b c d", failure: { mode: "cut", after_tokens: 2 } });
    const response = await chat({ stream: true });
    expect(response.status).toBe(200);
    const chunks = dataFrames(await response.text());
    const last = chunks.at(-1);
    expect(last.choices[0].finish_reason).toBe("error");
    expect(last.error.code).toBe(502);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? "").join("")).toBe("a b");
  });

  test("a stall past the idle timeout ends the stream with a timeout error", async () => {
    const gateway = await inProcess({
      upstream: { stream_warmup_ms: 5000, idle_timeout_ms: 150 },
      providers: { sim: { type: "simulated", simulation: { ttft_ms: 0, tokens_per_second: 0, output: "a b c", failure: { mode: "stall", after_tokens: 1 } } } },
      models: [{ id: "sim/model", endpoints: [{ provider: "sim" }] }],
    });
    const { key } = await createKey(gateway, { name: "inference" });
    const response = await gateway.call("POST", "/chat/completions", {
      key,
      body: { model: "sim/model", stream: true, messages: [{ role: "user", content: "x" }] },
    });
    const last = dataFrames(await response.text()).at(-1);
    expect(last.choices[0].finish_reason).toBe("error");
    expect(last.error.code).toBe(504);
  });
});
