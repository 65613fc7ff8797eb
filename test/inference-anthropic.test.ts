import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { ADMIN_KEY } from "./helpers/gateway.ts";
import { type InferenceSetup, startInference } from "./helpers/inference-setup.ts";

/** The real @anthropic-ai/sdk 1.x against a listening gateway, in front of real local upstreams. */
let setup: InferenceSetup;

interface Sent {
  url: string;
  headers: Headers;
}

/** A client that records the URL and headers of what it sends. */
function client(options: { key?: string; baseURL?: string; defaultHeaders?: Record<string, string | null> } = {}) {
  const sent: Sent[] = [];
  const anthropic = new Anthropic({
    apiKey: options.key ?? setup.key,
    baseURL: options.baseURL ?? `${setup.gateway.url}/api`,
    maxRetries: 0,
    ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
    fetch: async (url: string | URL | Request, init?: RequestInit) => {
      sent.push({ url: String(url), headers: new Headers(init?.headers) });
      return await fetch(url, init);
    },
  });
  return { anthropic, sent };
}

const weatherTool = {
  name: "weather",
  description: "Weather of a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
};

beforeAll(async () => {
  setup = await startInference();
});

afterAll(async () => {
  await setup.stop();
});

beforeEach(() => setup.reset());

describe("@anthropic-ai/sdk: authentication and paths", () => {
  test("messages.create answers with Authorization: Bearer (the 1.x default) on /api/v1/messages", async () => {
    const { anthropic, sent } = client();
    const message = await anthropic.messages.create({ model: "test/claude", max_tokens: 100, messages: [{ role: "user", content: "hi" }] });
    expect(message.content).toHaveLength(1);
    expect(message.content[0]).toMatchObject({ type: "text", text: "Hello from upstream" });
    expect(message).toMatchObject({ type: "message", role: "assistant", model: "test/claude", stop_reason: "end_turn" });
    expect(message.id).toStartWith("gen-");
    expect(new URL(sent[0]!.url).pathname).toBe("/api/v1/messages");
    expect(sent[0]!.headers.get("authorization")).toBe(`Bearer ${setup.key}`);
    expect(sent[0]!.headers.get("x-api-key")).toBeNull();
    // The upstream got the gateway's own credential, never the client's key.
    const upstream = setup.anthropic.requests.at(-1)!;
    expect(upstream.headers["x-api-key"]).toBe("upstream-anthropic-key");
    expect(JSON.stringify(upstream.headers)).not.toContain(setup.key);
  });

  test("x-api-key alone (the 0.x style) is accepted", async () => {
    const { anthropic, sent } = client({ defaultHeaders: { authorization: null, "x-api-key": setup.key } });
    const message = await anthropic.messages.create({ model: "test/claude", max_tokens: 100, messages: [{ role: "user", content: "hi" }] });
    expect(message.content[0]).toMatchObject({ type: "text", text: "Hello from upstream" });
    expect(sent[0]!.headers.get("authorization")).toBeNull();
    expect(sent[0]!.headers.get("x-api-key")).toBe(setup.key);
  });

  test("a base URL of …/api/v1 lands on /api/v1/v1/messages and works", async () => {
    const { anthropic, sent } = client({ baseURL: setup.api });
    const message = await anthropic.messages.create({ model: "test/claude", max_tokens: 100, messages: [{ role: "user", content: "hi" }] });
    expect(message.content[0]).toMatchObject({ type: "text", text: "Hello from upstream" });
    expect(new URL(sent[0]!.url).pathname).toBe("/api/v1/v1/messages");
  });
});

describe("@anthropic-ai/sdk against the Anthropic upstream", () => {
  test("tools → tool_use; the tool_result fed back → text", async () => {
    const { anthropic } = client();
    const first = await anthropic.messages.create({
      model: "test/claude",
      max_tokens: 200,
      tools: [weatherTool],
      messages: [{ role: "user", content: "Weather in Oslo?" }],
    });
    expect(first.stop_reason).toBe("tool_use");
    const call = first.content.find((block) => block.type === "tool_use");
    expect(call).toMatchObject({ type: "tool_use", id: "toolu_up_1", name: "weather", input: { city: "Oslo" } });

    const second = await anthropic.messages.create({
      model: "test/claude",
      max_tokens: 200,
      tools: [weatherTool],
      messages: [
        { role: "user", content: "Weather in Oslo?" },
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: call!.type === "tool_use" ? call!.id : "", content: "Sunny, 21°C" }] },
      ],
    });
    expect(second.stop_reason).toBe("end_turn");
    expect(second.content[0]).toMatchObject({ type: "text", text: "Hello from upstream" });
    const sentUpstream = setup.anthropic.requests.at(-1)!.body;
    expect(sentUpstream.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_up_1", content: [{ type: "text", text: "Sunny, 21°C" }] }],
    });
    expect(sentUpstream.messages[1].content).toEqual([{ type: "tool_use", id: "toolu_up_1", name: "weather", input: { city: "Oslo" } }]);
  });

  test("thinking comes back with its signature and is replayed verbatim to the upstream on the next turn", async () => {
    const { anthropic } = client();
    setup.anthropic.behave({ reasoning: "Weighing the options." });
    const first = await anthropic.messages.create({
      model: "test/claude",
      max_tokens: 4000,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [{ role: "user", content: "Think, then answer." }],
    });
    expect(first.content[0]).toEqual({ type: "thinking", thinking: "Weighing the options.", signature: "sig-up-1" });
    expect(first.content[1]).toMatchObject({ type: "text", text: "Hello from upstream" });

    await anthropic.messages.create({
      model: "test/claude",
      max_tokens: 4000,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [
        { role: "user", content: "Think, then answer." },
        { role: "assistant", content: first.content },
        { role: "user", content: "And again?" },
      ],
    });
    const replayed = setup.anthropic.requests.at(-1)!.body.messages[1];
    expect(replayed.role).toBe("assistant");
    expect(replayed.content[0]).toEqual({ type: "thinking", thinking: "Weighing the options.", signature: "sig-up-1" });
  });

  test("usage carries cache reads and cache writes (input_tokens without them)", async () => {
    const { anthropic } = client();
    setup.anthropic.behave({ usage: { input: 100, output: 7, cacheRead: 60, cacheWrite: 30 } });
    const message = await anthropic.messages.create({ model: "test/claude", max_tokens: 100, messages: [{ role: "user", content: "hi" }] });
    expect(message.usage).toMatchObject({ input_tokens: 10, output_tokens: 7, cache_read_input_tokens: 60, cache_creation_input_tokens: 30 });
  });

  test("messages.stream(...).finalMessage() with text events, thinking and usage", async () => {
    const { anthropic } = client();
    setup.anthropic.behave({ text: "Streamed hello there", reasoning: "Quick thought.", usage: { input: 50, output: 9, cacheRead: 40 } });
    const stream = anthropic.messages.stream({
      model: "test/claude",
      max_tokens: 4000,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [{ role: "user", content: "hi" }],
    });
    const texts: string[] = [];
    stream.on("text", (text) => texts.push(text));
    const message = await stream.finalMessage();
    expect(texts.join("")).toBe("Streamed hello there");
    expect(texts.length).toBeGreaterThan(1);
    expect(message.content[0]).toEqual({ type: "thinking", thinking: "Quick thought.", signature: "sig-up-1" });
    expect(message.content[1]).toMatchObject({ type: "text", text: "Streamed hello there" });
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage).toMatchObject({ input_tokens: 10, output_tokens: 9, cache_read_input_tokens: 40 });
  });

  test("raw create({stream: true}): one message_start, blocks, message_delta, message_stop", async () => {
    const { anthropic } = client();
    const stream = await anthropic.messages.create({
      model: "test/claude",
      max_tokens: 100,
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    const types: string[] = [];
    let text = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
      // The real input count when the upstream knows it, not a 0 placeholder.
      if (event.type === "message_start") {
        expect(event.message).toMatchObject({ role: "assistant", content: [], model: "test/claude", usage: { input_tokens: 12 } });
      }
      if (event.type === "message_delta") expect(event.delta.stop_reason).toBe("end_turn");
    }
    expect(text).toBe("Hello from upstream");
    expect(types.filter((type) => type === "message_start")).toHaveLength(1);
    expect(types[0]).toBe("message_start");
    expect(types.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(types).toContain("content_block_start");
    expect(types).toContain("content_block_stop");
  });
});

describe("@anthropic-ai/sdk against the OpenAI-compatible upstream (cross-style)", () => {
  test("text, with usage", async () => {
    const { anthropic } = client();
    setup.openai.behave({ text: "Hi from GPT", usage: { input: 20, output: 4, cacheRead: 5 } });
    const message = await anthropic.messages.create({ model: "test/gpt", max_tokens: 100, system: "Be brief.", messages: [{ role: "user", content: "hi" }] });
    expect(message.content[0]).toMatchObject({ type: "text", text: "Hi from GPT" });
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage).toMatchObject({ input_tokens: 15, output_tokens: 4, cache_read_input_tokens: 5 });
    expect(setup.openai.requests.at(-1)!.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
    ]);
  });

  test("tools → tool_use (JSON and stream); the tool_result goes upstream as a tool message", async () => {
    const { anthropic } = client();
    const first = await anthropic.messages.create({ model: "test/gpt", max_tokens: 100, tools: [weatherTool], messages: [{ role: "user", content: "Oslo?" }] });
    expect(first.stop_reason).toBe("tool_use");
    expect(first.content as unknown[]).toEqual([{ type: "tool_use", id: "call_up_1", name: "weather", input: { city: "Oslo" } }]);
    expect(setup.openai.requests.at(-1)!.body.tools[0]).toMatchObject({ type: "function", function: { name: "weather" } });

    const streamed = await anthropic.messages
      .stream({ model: "test/gpt", max_tokens: 100, tools: [weatherTool], messages: [{ role: "user", content: "Oslo?" }] })
      .finalMessage();
    expect(streamed.stop_reason).toBe("tool_use");
    expect(streamed.content as unknown[]).toEqual([{ type: "tool_use", id: "call_up_1", name: "weather", input: { city: "Oslo" } }]);

    const answer = await anthropic.messages.create({
      model: "test/gpt",
      max_tokens: 100,
      tools: [weatherTool],
      messages: [
        { role: "user", content: "Oslo?" },
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_up_1", content: "Rainy" }] },
      ],
    });
    expect(answer.content[0]).toMatchObject({ type: "text", text: "Hello from upstream" });
    const messages = setup.openai.requests.at(-1)!.body.messages;
    expect(messages[1]).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_up_1", type: "function", function: { name: "weather" } }] });
    expect(JSON.parse(messages[1].tool_calls[0].function.arguments)).toEqual({ city: "Oslo" });
    expect(messages[2]).toEqual({ role: "tool", tool_call_id: "call_up_1", content: "Rainy" });
  });
});

describe("@anthropic-ai/sdk: errors in the Anthropic shape", () => {
  test("an invalid body is a 400 BadRequestError", async () => {
    const { anthropic } = client();
    const error = await anthropic.messages
      .create({ model: "test/claude", max_tokens: 100, messages: "not a list" as never })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).status).toBe(400);
    expect((error as { error: unknown }).error).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
  });

  test("a management key is a 403 PermissionDeniedError", async () => {
    const { anthropic } = client({ key: ADMIN_KEY });
    const error = await anthropic.messages
      .create({ model: "test/claude", max_tokens: 100, messages: [{ role: "user", content: "hi" }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect((error as { error: unknown }).error).toMatchObject({ type: "error", error: { type: "permission_error" } });
  });

  test("an upstream 503 is an APIError with status 503 in the Anthropic error shape", async () => {
    const { anthropic } = client();
    setup.anthropic.behave({ status: 503, errorBody: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } });
    const error = await anthropic.messages
      .create({ model: "test/claude", max_tokens: 100, messages: [{ role: "user", content: "hi" }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(503);
    expect((error as { error: unknown }).error).toMatchObject({ type: "error", error: { type: "overloaded_error" } });
  });

  test("a stream the upstream cuts after the first token throws an APIError from the event: error", async () => {
    const { anthropic } = client();
    setup.anthropic.behave({ text: "one two three four", cutAfter: 2, chunkDelayMs: 15 });
    const stream = anthropic.messages.stream({ model: "test/claude", max_tokens: 100, messages: [{ role: "user", content: "hi" }] });
    const texts: string[] = [];
    stream.on("text", (text) => texts.push(text));
    const error = await stream.finalMessage().catch((caught: unknown) => caught);
    expect(texts.join("")).toStartWith("one");
    expect(texts.join("")).not.toContain("four");
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as { error: unknown }).error).toMatchObject({ type: "error", error: { type: "api_error" } });
  });

  test("an upstream 503 before a stream starts is the same APIError on messages.stream()", async () => {
    const { anthropic } = client();
    setup.anthropic.behave({ status: 503 });
    const error = await anthropic.messages
      .stream({ model: "test/claude", max_tokens: 100, messages: [{ role: "user", content: "hi" }] })
      .finalMessage()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(503);
  });
});
