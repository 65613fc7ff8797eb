import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import type { CanonicalResponse, StreamPart } from "../../../core/canonical.ts";
import { GatewayError } from "../../../core/errors.ts";
import { messagesCodec } from "./index.ts";
import { context, events, MODEL, run, TEXT_PARTS, THINKING_TOOL_PARTS, usage } from "./test-fixtures.ts";

describe("stream encoder", () => {
  test("text: event sequence, one message_start, final usage in message_delta", () => {
    const list = events(run(TEXT_PARTS));
    expect(list.map((e) => e.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(list[0]!.data.message).toEqual({
      id: "gen-123",
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
      provider: "Anthropic",
    });
    expect(list[2]!.data).toEqual({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    expect(list[3]!.data).toEqual({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } });
    expect(list[5]!.data).toEqual({ type: "content_block_stop", index: 0 });
    expect(list[6]!.data).toEqual({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { input_tokens: 30, output_tokens: 30, cache_read_input_tokens: 80, cache_creation_input_tokens: 10 },
    });
  });

  test("thinking with signature, redacted thinking, text and two tool calls", () => {
    const list = events(run(THINKING_TOOL_PARTS));
    expect(list.filter((e) => e.event === "message_start")).toHaveLength(1);
    const blocks = list.filter((e) => e.event.startsWith("content_block"));
    expect(blocks.map((e) => [e.event, e.data.index])).toEqual([
      ["content_block_start", 0],
      ["content_block_delta", 0],
      ["content_block_delta", 0],
      ["content_block_delta", 0],
      ["content_block_stop", 0],
      ["content_block_start", 1],
      ["content_block_stop", 1],
      ["content_block_start", 2],
      ["content_block_delta", 2],
      ["content_block_stop", 2],
      ["content_block_start", 3],
      ["content_block_delta", 3],
      ["content_block_delta", 3],
      ["content_block_stop", 3],
      ["content_block_start", 4],
      ["content_block_delta", 4],
      ["content_block_stop", 4],
    ]);
    expect(blocks[0]!.data.content_block).toEqual({ type: "thinking", thinking: "", signature: "" });
    expect(blocks[1]!.data.delta).toEqual({ type: "thinking_delta", thinking: "Let me " });
    expect(blocks[3]!.data.delta).toEqual({ type: "signature_delta", signature: "sig-xyz" });
    expect(blocks[5]!.data.content_block).toEqual({ type: "redacted_thinking", data: "opaque" });
    expect(blocks[10]!.data.content_block).toEqual({ type: "tool_use", id: "toolu_1", name: "weather", input: {} });
    expect(blocks[11]!.data.delta).toEqual({ type: "input_json_delta", partial_json: '{"city":' });
    const delta = list.find((e) => e.event === "message_delta")!;
    expect(delta.data.delta).toEqual({ stop_reason: "tool_use", stop_sequence: null });
    expect(list.at(-1)!.event).toBe("message_stop");
  });

  test("usage before any content goes into message_start; message_delta always has delta and usage", () => {
    const list = events(run([{ type: "usage", usage }, { type: "finish", reason: "length" }]));
    expect(list.map((e) => e.event)).toEqual(["message_start", "ping", "message_delta", "message_stop"]);
    expect((list[0]!.data.message as Record<string, unknown>).usage).toEqual({
      input_tokens: 30,
      output_tokens: 0,
      cache_read_input_tokens: 80,
      cache_creation_input_tokens: 10,
    });
    expect(list[2]!.data).toEqual({
      type: "message_delta",
      delta: { stop_reason: "max_tokens", stop_sequence: null },
      usage: { input_tokens: 30, output_tokens: 30, cache_read_input_tokens: 80, cache_creation_input_tokens: 10 },
    });
  });

  test("an input-count snapshot right after start goes into message_start (the real count, not a 0 placeholder)", () => {
    const early = { ...usage, outputTokens: 1 };
    const list = events(run([{ type: "start" }, { type: "usage", usage: early }, { type: "text-delta", text: "x" }, { type: "usage", usage }, { type: "finish", reason: "stop" }]));
    expect(list.filter((e) => e.event === "message_start")).toHaveLength(1);
    expect((list[0]!.data.message as Record<string, unknown>).usage).toMatchObject({ input_tokens: 30, output_tokens: 0 });
    expect(list.find((e) => e.event === "message_delta")!.data.usage).toMatchObject({ output_tokens: 30 });
  });

  test("without usage or finish, end() still closes the message properly", () => {
    const list = events(run([{ type: "text-delta", text: "x" }]));
    expect(list.map((e) => e.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(list[5]!.data).toEqual({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 0 },
    });
  });

  test("an error mid-stream ends with one error event", () => {
    const list = events(run([{ type: "start" }, { type: "text-delta", text: "partial" }], new GatewayError("unavailable", "upstream died")));
    expect(list.map((e) => e.event)).toEqual(["message_start", "ping", "content_block_start", "content_block_delta", "error"]);
    expect(list.at(-1)!.data).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "upstream died", error_type: "provider_overloaded" },
    });
  });

  test("an error part is rendered like error(); nothing follows it", () => {
    const encoder = messagesCodec.createStreamEncoder(context());
    const frames = [
      ...encoder.start(),
      ...encoder.part({ type: "error", error: new GatewayError("timeout", "too slow") }),
      ...encoder.part({ type: "text-delta", text: "late" }),
      ...encoder.end(),
    ];
    const list = events(frames);
    expect(list.map((e) => e.event)).toEqual(["error"]);
    expect((list[0]!.data.error as Record<string, unknown>).type).toBe("timeout_error");
  });
});

describe("with the Anthropic SDK", () => {
  let server: ReturnType<typeof Bun.serve>;
  let client: Anthropic;
  let parts: StreamPart[] = [];
  let failWith: GatewayError | undefined;
  let json: CanonicalResponse | undefined;
  const paths: string[] = [];

  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      async fetch(request) {
        const url = new URL(request.url);
        paths.push(`${request.method} ${url.pathname}`);
        const body = (await request.json()) as Record<string, unknown>;
        if (body.stream !== true) {
          return Response.json(messagesCodec.encodeResponse(json!, context()));
        }
        return new Response(run(parts, failWith).join(""), { headers: { "content-type": "text/event-stream" } });
      },
    });
    client = new Anthropic({ apiKey: "x", baseURL: server.url.origin, maxRetries: 0 });
  });

  afterAll(() => {
    server.stop(true);
  });

  const params = { model: MODEL, max_tokens: 1024, messages: [{ role: "user" as const, content: "hi" }] };

  test("stream().finalMessage() with text", async () => {
    parts = TEXT_PARTS;
    failWith = undefined;
    const message = await client.messages.stream(params).finalMessage();
    expect(paths.at(-1)).toBe("POST /v1/messages");
    expect(message.id).toBe("gen-123");
    expect(message.role).toBe("assistant");
    expect(message.content).toEqual([{ type: "text", text: "Hello" }] as never);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage).toMatchObject({
      input_tokens: 30,
      output_tokens: 30,
      cache_read_input_tokens: 80,
      cache_creation_input_tokens: 10,
    });
  });

  test("stream().finalMessage() with thinking, signature and tool use", async () => {
    parts = THINKING_TOOL_PARTS;
    failWith = undefined;
    const stream = client.messages.stream(params);
    const texts: string[] = [];
    stream.on("text", (text) => texts.push(text));
    const message = await stream.finalMessage();
    expect(texts.join("")).toBe("Checking.");
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Let me think.", signature: "sig-xyz" },
      { type: "redacted_thinking", data: "opaque" },
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } },
      { type: "tool_use", id: "toolu_2", name: "time", input: {} },
    ] as never);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage.output_tokens).toBe(30);
  });

  test("raw create({stream: true}) yields the events", async () => {
    parts = TEXT_PARTS;
    failWith = undefined;
    const stream = await client.messages.create({ ...params, stream: true });
    const types: string[] = [];
    let text = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
    }
    expect(text).toBe("Hello");
    expect(types[0]).toBe("message_start");
    expect(types.at(-1)).toBe("message_stop");
  });

  test("an error event makes the SDK throw an APIError", async () => {
    parts = [{ type: "text-delta", text: "partial" }];
    failWith = new GatewayError("unavailable", "upstream died");
    const error = await client.messages
      .stream(params)
      .finalMessage()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(String((error as Error).message)).toContain("upstream died");
  });

  test("messages.create (non-stream) parses encodeResponse", async () => {
    json = {
      output: [
        { type: "reasoning", part: { text: "hmm", signature: "s" } },
        { type: "text", text: "Hi there" },
        { type: "tool-call", call: { id: "toolu_9", name: "weather", arguments: '{"city":"Oslo"}' } },
      ],
      finishReason: "tool_calls",
      usage,
    };
    const message = await client.messages.create(params);
    expect(message.content).toEqual([
      { type: "thinking", thinking: "hmm", signature: "s" },
      { type: "text", text: "Hi there" },
      { type: "tool_use", id: "toolu_9", name: "weather", input: { city: "Oslo" } },
    ] as never);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage).toMatchObject({ input_tokens: 30, output_tokens: 30 });
  });

  test("an encodeError body becomes a typed SDK error", async () => {
    const errorServer = Bun.serve({
      port: 0,
      fetch: () =>
        Response.json(messagesCodec.encodeError(new GatewayError("bad_request", "body.model: expected a string")), {
          status: 400,
        }),
    });
    try {
      const errorClient = new Anthropic({ apiKey: "x", baseURL: errorServer.url.origin, maxRetries: 0 });
      const error = await errorClient.messages.create(params).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect((error as InstanceType<typeof Anthropic.BadRequestError>).status).toBe(400);
      expect(String((error as Error).message)).toContain("body.model: expected a string");
    } finally {
      errorServer.stop(true);
    }
  });
});
