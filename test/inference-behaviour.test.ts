import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { type InferenceSetup, sseEvents, startInference } from "./helpers/inference-setup.ts";

/** The last chunk of a chat stream the upstream cut: finish_reason error, carrying the stream_cut error. */
function expectStreamCutChunk(last: any): void {
  expect(last.choices[0].finish_reason).toBe("error");
  expect(last.error).toMatchObject({
    code: 502,
    message: expect.stringContaining("closed the stream before it finished"),
    metadata: { error_type: "provider_unavailable", provider_code: "stream_cut" },
  });
}

/** Gateway behaviours over a real socket with plain fetch: presets, streams that end badly, accounting. */
let setup: InferenceSetup;

beforeAll(async () => {
  setup = await startInference();
});

afterAll(async () => {
  await setup.stop();
});

beforeEach(() => setup.reset());

const tool = (name: string, description: string) => ({
  type: "function",
  function: { name, description, parameters: { type: "object", properties: {} } },
});

async function preset(slug: string, body: Record<string, unknown>): Promise<void> {
  const response = await setup.admin("POST", `/presets/${slug}/chat/completions`, body);
  expect(response.status).toBe(200);
}

/** Reads a stream's chunks until `until` says stop; returns what was read. */
async function readUntil(response: Response, until: (text: string) => boolean): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!until(text)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return text;
}

async function eventually(check: () => boolean, ms = 1000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await Bun.sleep(10);
  }
  return true;
}

const user = (content: string) => ({ role: "user", content });

describe("presets in use", () => {
  beforeAll(async () => {
    await preset("helper", {
      model: "test/gpt",
      temperature: 0.1,
      messages: [{ role: "system", content: "Old system." }, user("ignored")],
    });
    // The second version becomes the designated one; inference uses it.
    await preset("helper", {
      model: "test/gpt",
      temperature: 0.3,
      max_tokens: 77,
      tools: [tool("alpha", "preset alpha"), tool("beta", "preset beta")],
      messages: [{ role: "system", content: "Preset system." }, user("ignored")],
    });
  });

  test('"model": "@preset/slug" applies the designated version: model, parameters, tools, system prompt', async () => {
    const response = await setup.post("/chat/completions", { model: "@preset/helper", messages: [user("hi")] });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.model).toBe("test/gpt");
    const presetId = (await (await setup.admin("GET", "/presets/helper")).json()).data.id;
    expect((await setup.generation(body.id)).preset_id).toBe(presetId);
    const sent = setup.openai.requests.at(-1)!.body;
    expect(sent).toMatchObject({ model: "gpt-upstream", temperature: 0.3, max_tokens: 77 });
    expect(sent.messages).toEqual([{ role: "system", content: "Preset system." }, user("hi")]);
    expect(sent.tools.map((entry: any) => entry.function.name)).toEqual(["alpha", "beta"]);
  });

  test('"preset": "slug" beside a model: the request model and fields win, the rest comes from the preset', async () => {
    const response = await setup.post("/chat/completions", {
      model: "test/claude",
      preset: "helper",
      temperature: 0.9,
      messages: [{ role: "system", content: "Request system." }, user("hi")],
    });
    expect(response.status).toBe(200);
    const sent = setup.anthropic.requests.at(-1)!.body;
    expect(sent).toMatchObject({ model: "claude-upstream", temperature: 0.9, max_tokens: 77 });
    // The preset's system prompt is prepended to the request's own.
    expect(sent.system).toEqual([
      { type: "text", text: "Preset system." },
      { type: "text", text: "Request system." },
    ]);
  });

  test('"model": "vendor/model@preset/slug" picks the model and applies the preset', async () => {
    const response = await setup.post("/messages", { model: "test/claude@preset/helper", max_tokens: 10, messages: [user("hi")] });
    expect(response.status).toBe(200);
    expect((await response.json()).model).toBe("test/claude");
    const sent = setup.anthropic.requests.at(-1)!.body;
    expect(sent.temperature).toBe(0.3);
    expect(sent.max_tokens).toBe(10);
    expect(sent.system).toEqual([{ type: "text", text: "Preset system." }]);
  });

  test("tools are unioned by name: preset order kept, a request tool overrides, request-only tools appended", async () => {
    const response = await setup.post("/chat/completions", {
      model: "@preset/helper",
      tools: [tool("gamma", "request gamma"), tool("beta", "request beta")],
      tool_choice: "none",
      messages: [user("hi")],
    });
    expect(response.status).toBe(200);
    const sent = setup.openai.requests.at(-1)!.body.tools.map((entry: any) => [entry.function.name, entry.function.description]);
    expect(sent).toEqual([
      ["alpha", "preset alpha"],
      ["beta", "request beta"],
      ["gamma", "request gamma"],
    ]);
  });

  test("a Responses request with a preset", async () => {
    const response = await setup.post("/responses", { model: "@preset/helper", input: "hi", instructions: "Mine." });
    expect(response.status).toBe(200);
    const sent = setup.openai.requests.at(-1)!.body;
    expect(sent.messages).toEqual([
      { role: "system", content: "Preset system." },
      { role: "system", content: "Mine." },
      user("hi"),
    ]);
  });

  test("an unknown preset is a 404 in each style", async () => {
    const chat = await setup.post("/chat/completions", { model: "@preset/nope", messages: [user("hi")] });
    expect(chat.status).toBe(404);
    expect((await chat.json()).error.code).toBe(404);
    const messages = await setup.post("/messages", { model: "test/claude", preset: "nope", max_tokens: 5, messages: [user("hi")] });
    expect(messages.status).toBe(404);
    expect((await messages.json()).error.type).toBe("not_found_error");
  });
});

describe("streams that end early", () => {
  test("a client that disconnects mid-stream aborts the upstream; the generation is recorded with usage so far", async () => {
    setup.anthropic.behave({ text: "one two three four five six seven eight nine ten", chunkDelayMs: 40, usage: { input: 100, output: 10 } });
    const controller = new AbortController();
    const body = { model: "test/claude", stream: true, max_tokens: 50, messages: [user("count")] };
    const response = await setup.post("/messages", body, undefined, controller.signal);
    expect(response.status).toBe(200);
    const text = await readUntil(response, (read) => read.includes('"text":"one"'));
    const id = sseEvents(text)[0]!.data.message.id as string;
    controller.abort();
    const upstream = setup.anthropic.requests.at(-1)!;
    expect(await eventually(() => upstream.aborted, 500)).toBe(true);
    const record = await setup.generation(id);
    expect(record).toMatchObject({ id, cancelled: true, streamed: true, status: 499, model: "test/claude" });
    // The prompt as the upstream counted it at message_start, and the output that was produced.
    expect(record.tokens_prompt).toBe(100);
    expect(record.tokens_completion).toBeGreaterThan(0);
    expect(record.total_cost).toBeGreaterThan(100 * 3e-6);
  });

  test("chat: a stream cut after the first token ends with a finish_reason error chunk carrying an error", async () => {
    setup.openai.behave({ text: "one two three", cutAfter: 2, chunkDelayMs: 15 });
    const response = await setup.post("/chat/completions", { model: "test/gpt", stream: true, messages: [user("hi")] });
    expect(response.status).toBe(200);
    const events = sseEvents(await response.text());
    expect(events.some((event) => event.data.choices?.[0]?.delta?.content === "one")).toBe(true);
    expectStreamCutChunk(events.at(-1)!.data);
    expect(events.filter((event) => event.data.choices?.[0]?.finish_reason === "stop")).toHaveLength(0);
  });

  test("responses: a cut stream ends with an error event and response.failed", async () => {
    setup.anthropic.behave({ text: "one two three", cutAfter: 2, chunkDelayMs: 15 });
    const response = await setup.post("/responses", { model: "test/claude", stream: true, input: "hi" });
    expect(response.status).toBe(200);
    const types = sseEvents(await response.text()).map((event) => event.data.type as string);
    expect(types).toContain("response.output_text.delta");
    expect(types).toContain("error");
    expect(types.at(-1)).toBe("response.failed");
    expect(types).not.toContain("response.completed");
  });

  test("messages: a cut stream ends with event: error", async () => {
    setup.anthropic.behave({ text: "one two three", cutAfter: 2, chunkDelayMs: 15 });
    const response = await setup.post("/messages", { model: "test/claude", stream: true, max_tokens: 20, messages: [user("hi")] });
    expect(response.status).toBe(200);
    const events = sseEvents(await response.text());
    expect(events.some((event) => event.event === "content_block_delta")).toBe(true);
    expect(events.at(-1)).toMatchObject({ event: "error", data: { type: "error", error: { type: "api_error" } } });
    expect(events.map((event) => event.event)).not.toContain("message_stop");
  });

  test("chat: a stream the upstream closes cleanly before it finished ends with a stream_cut error chunk, and is recorded as an error", async () => {
    setup.openai.behave({ text: "one two three", endAfter: 2, chunkDelayMs: 15 });
    const response = await setup.post("/chat/completions", { model: "test/gpt", stream: true, messages: [user("hi")] });
    expect(response.status).toBe(200);
    const events = sseEvents(await response.text());
    expect(events.filter((event) => event.data.choices?.[0]?.delta?.content).map((event) => event.data.choices[0].delta.content)).toEqual(["one", " two"]);
    const last = events.at(-1)!.data;
    expectStreamCutChunk(last);
    const record = await setup.generation(last.id as string);
    expect(record).toMatchObject({ status: 502, finish_reason: "error", streamed: true, cancelled: false, error_code: "provider_unavailable" });
  });

  test("a cut stream is still recorded, as an error with the output so far", async () => {
    setup.openai.behave({ text: "one two three", cutAfter: 2, chunkDelayMs: 15 });
    const response = await setup.post("/chat/completions", { model: "test/gpt", stream: true, messages: [user("hi")] });
    const id = sseEvents(await response.text())[0]!.data.id as string;
    const record = await setup.generation(id);
    // An upstream failure, not a client that left; the prompt is estimated, the upstream never counted it.
    expect(record).toMatchObject({ id, status: 502, finish_reason: "error", streamed: true, cancelled: false, error_code: "provider_unavailable" });
    expect(record.tokens_prompt).toBeGreaterThan(0);
    expect(record.tokens_completion).toBeGreaterThan(0);
  });
});

describe("upstream errors before the first token are ordinary HTTP errors", () => {
  test("chat: the status and the spec envelope", async () => {
    setup.openai.behave({ status: 429, headers: { "retry-after": "7" } });
    const response = await setup.post("/chat/completions", { model: "test/gpt", stream: true, messages: [user("hi")] });
    expect(response.status).toBe(429);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expect(response.headers.get("retry-after")).toBe("7");
    expect((await response.json()).error).toMatchObject({
      code: 429,
      availability: { code: "capacity_exhausted", retryable: true, retry_after: 7 },
      metadata: { previous_errors: [{ provider: "local-openai", code: "rate_limit_exceeded", status: 429 }] },
    });
  });

  test("responses: the status and the Responses envelope", async () => {
    setup.anthropic.behave({ status: 503 });
    const response = await setup.post("/responses", { model: "test/claude", stream: true, input: "hi" });
    expect(response.status).toBe(503);
    const body = await response.json();
    expect(body.error.code).toBe(503);
    expect(body.error_type).toBe("provider_overloaded");
  });

  test("messages: the status and the Anthropic envelope", async () => {
    setup.anthropic.behave({ status: 503 });
    const response = await setup.post("/messages", { model: "test/claude", stream: true, max_tokens: 5, messages: [user("hi")] });
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ type: "error", error: { type: "overloaded_error", code: 503 } });
  });
});

describe("an upstream that starts and then stalls before its first token", () => {
  let stalling: InferenceSetup;
  beforeAll(async () => {
    const idle = "\n    timeouts: { idle_timeout_ms: 100 }";
    stalling = await startInference({
      configure: (text) =>
        text.replace("api_key: upstream-openai-key", `api_key: upstream-openai-key${idle}`).replace("api_key: upstream-anthropic-key", `api_key: upstream-anthropic-key${idle}`),
    });
  });
  afterAll(async () => {
    await stalling.stop();
  });

  test("chat: the role chunk alone is no output; the stall is an HTTP error, temporarily unavailable", async () => {
    stalling.openai.behave({ stallAfter: 0 });
    const response = await stalling.post("/chat/completions", { model: "test/gpt", stream: true, messages: [user("hi")] });
    expect(response.status).toBe(503);
    expect((await response.json()).error).toMatchObject({
      code: 503,
      availability: { code: "temporarily_unavailable", retryable: true },
      metadata: { previous_errors: [{ provider: "local-openai", status: 504 }] },
    });
  });

  test("messages: message_start alone is no output; the stall is an HTTP error, never message_start then error", async () => {
    stalling.anthropic.behave({ stallAfter: 0 });
    const response = await stalling.post("/messages", { model: "test/claude", stream: true, max_tokens: 5, messages: [user("hi")] });
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ type: "error", error: { type: "overloaded_error", code: 503 } });
  });
});

describe("keep-alives while an upstream is slow to start", () => {
  let slow: InferenceSetup;
  beforeAll(async () => {
    slow = await startInference({ configure: (text) => text.replace("stream_warmup_ms: 2000", "stream_warmup_ms: 30").replace("keepalive_interval_ms: 200", "keepalive_interval_ms: 100") });
  });
  afterAll(async () => {
    await slow.stop();
  });

  test("the 200 and ': OPENROUTER PROCESSING' comments arrive before the first token", async () => {
    slow.openai.behave({ delayMs: 450, text: "late answer" });
    const started = Date.now();
    const response = await slow.post("/chat/completions", { model: "test/gpt", stream: true, messages: [user("hi")] });
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(300);
    const text = await response.text();
    const beforeData = text.slice(0, text.indexOf("data:"));
    expect(beforeData.match(/^: OPENROUTER PROCESSING$/gm)!.length).toBeGreaterThanOrEqual(3);
    expect(sseEvents(text).map((event) => event.data.choices?.[0]?.delta?.content ?? "").join("")).toBe("late answer");
  });

  test("an upstream error after the warm-up arrives as the style's error frame", async () => {
    slow.anthropic.behave({ delayMs: 200, status: 503 });
    const response = await slow.post("/messages", { model: "test/claude", stream: true, max_tokens: 5, messages: [user("hi")] });
    expect(response.status).toBe(200);
    const events = sseEvents(await response.text());
    expect(events).toEqual([{ event: "error", data: expect.objectContaining({ type: "error", error: expect.objectContaining({ type: "overloaded_error" }) }) }]);
  });

  test("chat: an error after the warm-up carries the generation's own id, which is recorded", async () => {
    slow.openai.behave({ delayMs: 200, status: 503 });
    const response = await slow.post("/chat/completions", { model: "test/gpt", stream: true, messages: [user("hi")] });
    const last = sseEvents(await response.text()).at(-1)!.data;
    expect(last).toMatchObject({ choices: [{ finish_reason: "error" }], error: { code: 503 } });
    expect(await slow.generation(last.id)).toMatchObject({ id: last.id, status: 503, model: "test/gpt" });
  });
});

describe("usage and accounting", () => {
  test("usage is requested from the upstream stream but not passed on unless the client asked", async () => {
    setup.openai.behave({ usage: { input: 11, output: 3 } });
    const plain = await setup.post("/chat/completions", { model: "test/gpt", stream: true, messages: [user("hi")] });
    const plainEvents = sseEvents(await plain.text());
    expect(setup.openai.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });
    expect(plainEvents.filter((event) => event.data.usage !== undefined)).toHaveLength(0);
    // The record still has the upstream's counts.
    const record = await setup.generation(plainEvents[0]!.data.id);
    expect(record).toMatchObject({ tokens_prompt: 11, tokens_completion: 3 });

    const asked = await setup.post("/chat/completions", { model: "test/gpt", stream: true, stream_options: { include_usage: true }, messages: [user("hi")] });
    const usage = sseEvents(await asked.text()).filter((event) => event.data.usage !== undefined);
    expect(usage).toHaveLength(1);
    expect(usage[0]!.data).toMatchObject({ choices: [], usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 } });
  });

  test("OpenAI-compatible pricing: cache reads at their own price", async () => {
    setup.openai.behave({ usage: { input: 1000, output: 100, cacheRead: 400 } });
    const response = await setup.post("/chat/completions", { model: "test/gpt", messages: [user("hi")] });
    const body = await response.json();
    const record = await setup.generation(body.id);
    // 600 × $1 + 400 × $0.5 + 100 × $2, per million.
    expect(record).toMatchObject({ tokens_prompt: 1000, tokens_completion: 100, native_tokens_cached: 400, streamed: false, status: 200 });
    expect(record.total_cost).toBeCloseTo(0.001, 12);
    expect(body.usage.cost).toBeCloseTo(0.001, 12);
  });

  test("Anthropic pricing over a stream: cache reads and writes at their own prices", async () => {
    setup.anthropic.behave({ usage: { input: 1000, output: 100, cacheRead: 500, cacheWrite: 200 } });
    const response = await setup.post("/messages", { model: "test/claude", stream: true, max_tokens: 50, messages: [user("hi")] });
    const events = sseEvents(await response.text());
    const record = await setup.generation(events[0]!.data.message.id);
    // 300 × $3 + 500 × $0.3 + 200 × $3.75 + 100 × $15, per million.
    expect(record).toMatchObject({ tokens_prompt: 1000, tokens_completion: 100, native_tokens_cached: 500, streamed: true, finish_reason: "stop" });
    expect(record.total_cost).toBeCloseTo(0.0033, 12);
  });
});
