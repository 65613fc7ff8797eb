import { describe, expect, test } from "bun:test";
import type { StreamPart } from "../../core/canonical.ts";
import { ResponseAccumulator } from "../../core/accumulate.ts";
import { GatewayError } from "../../core/errors.ts";
import { anthropicAdapter } from "./adapter.ts";
import { fixtureJson, makeEndpoint, replayStream, splitSse } from "./test-support.ts";

describe("createStreamParser", () => {
  test("text stream: start, the input counts, deltas, final usage, finish", async () => {
    expect(await replayStream("stream-text.sse")).toEqual([
      { type: "start", upstreamId: "msg_01StrEamTextExample4kq", upstreamModel: "claude-sonnet-4-5-20250929" },
      { type: "usage", usage: { inputTokens: 25, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
      { type: "text-delta", text: "Hello" },
      { type: "text-delta", text: "! How can I help?" },
      { type: "usage", usage: { inputTokens: 25, outputTokens: 15, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
      { type: "finish", reason: "stop", nativeReason: "end_turn" },
    ]);
  });

  test("a message_stop without any stop reason finishes as error, the rule of a whole message", () => {
    const parser = anthropicAdapter.chat.createStreamParser(makeEndpoint());
    const event = (data: unknown) => parser.parse({ data: JSON.stringify(data) });
    event({ type: "message_start", message: { id: "msg_1", model: "m", usage: { input_tokens: 3 } } });
    event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Half" } });
    event({ type: "message_delta", delta: {}, usage: { output_tokens: 1 } });
    expect(event({ type: "message_stop" }).at(-1)).toEqual({ type: "finish", reason: "error" });
  });

  test("tool use: calls numbered among tool calls, input_json_delta chunks, argument-less call gets {}", async () => {
    const parts = await replayStream("stream-tool-use.sse");
    expect(parts.filter((part) => part.type.startsWith("tool-call"))).toEqual([
      { type: "tool-call-start", index: 0, id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather" },
      { type: "tool-call-delta", index: 0, argumentsDelta: '{"location":' },
      { type: "tool-call-delta", index: 0, argumentsDelta: ' "San Francisc' },
      { type: "tool-call-delta", index: 0, argumentsDelta: 'o, CA", "unit": "fahrenheit"}' },
      { type: "tool-call-start", index: 1, id: "toolu_01Vq8m7cWzXg3hB5nE2rYpLk", name: "get_time" },
      { type: "tool-call-delta", index: 1, argumentsDelta: "{}" },
    ]);
    expect(parts.at(-1)).toEqual({ type: "finish", reason: "tool_calls", nativeReason: "tool_use" });
    const accumulator = new ResponseAccumulator();
    for (const part of parts) accumulator.add(part);
    expect(JSON.parse((accumulator.output[1] as { type: "tool-call"; call: { arguments: string } }).call.arguments)).toEqual({
      location: "San Francisco, CA",
      unit: "fahrenheit",
    });
  });

  test("thinking with signature_delta, then text; cache usage summed into input", async () => {
    const parts = await replayStream("stream-thinking.sse");
    expect(parts.map((part) => part.type)).toEqual([
      "start",
      "usage",
      "reasoning-delta",
      "reasoning-delta",
      "reasoning-signature",
      "text-delta",
      "usage",
      "finish",
    ]);
    expect(parts[4]).toEqual({ type: "reasoning-signature", signature: expect.stringMatching(/^EqQBCgIYAhIM/) });
    expect(parts[1]).toEqual({
      type: "usage",
      usage: { inputTokens: 40 + 1800 + 100, outputTokens: 1, cacheReadTokens: 1800, cacheWriteTokens: 100, reasoningTokens: 0 },
    });
    expect(parts[6]).toEqual({
      type: "usage",
      usage: { inputTokens: 40 + 1800 + 100, outputTokens: 178, cacheReadTokens: 1800, cacheWriteTokens: 100, reasoningTokens: 0 },
    });
  });

  test("redacted thinking and initial block text", () => {
    const parser = anthropicAdapter.chat.createStreamParser(makeEndpoint());
    const event = (data: unknown) => parser.parse({ data: JSON.stringify(data) });
    expect(event({ type: "content_block_start", index: 0, content_block: { type: "redacted_thinking", data: "opaque" } })).toEqual([
      { type: "reasoning-redacted", data: "opaque" },
    ]);
    expect(event({ type: "content_block_start", index: 1, content_block: { type: "text", text: "Hi" } })).toEqual([{ type: "text-delta", text: "Hi" }]);
    expect(event({ type: "content_block_delta", index: 1, delta: { type: "citations_delta", citation: {} } })).toEqual([]);
  });

  test("missing event: lines are read from data.type", async () => {
    const parts = await replayStream("stream-no-event-lines.sse");
    expect(parts.filter((part) => part.type === "text-delta").map((part) => (part as { text: string }).text).join("")).toBe("Sure, here it is.");
    expect(parts.at(-1)).toEqual({ type: "finish", reason: "stop", nativeReason: "stop_sequence" });
  });

  test("overloaded error mid-stream becomes a 503 error part, with no finish", async () => {
    const parts = await replayStream("stream-overloaded.sse");
    expect(parts.map((part) => part.type)).toEqual(["start", "usage", "text-delta", "error"]);
    const error = (parts.at(-1) as { error: GatewayError }).error;
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: "unavailable", status: 503, message: "Anthropic reported overloaded_error: Overloaded" });
    expect(error.metadata).toEqual({ provider: "anthropic", provider_code: "overloaded_error", upstream_status: 529 });
  });

  test("stream error types map to gateway codes", () => {
    const cases = {
      overloaded_error: ["unavailable", 503],
      rate_limit_error: ["rate_limited", 429],
      api_error: ["bad_gateway", 502],
      invalid_request_error: ["bad_request", 400],
      authentication_error: ["bad_gateway", 502],
      permission_error: ["bad_gateway", 502],
      not_found_error: ["not_found", 404],
      request_too_large: ["payload_too_large", 413],
      timeout_error: ["gateway_timeout", 504],
      something_new: ["bad_gateway", 502],
    } as const;
    for (const [type, [code, status]] of Object.entries(cases)) {
      const parser = anthropicAdapter.chat.createStreamParser(makeEndpoint());
      const [part] = parser.parse({ event: "error", data: JSON.stringify({ type: "error", error: { type, message: "secret-ish upstream detail" } }) });
      const error = (part as { error: GatewayError }).error;
      expect([error.code, error.status, error.metadata?.provider_code]).toEqual([code, status, type]);
    }
    const parser = anthropicAdapter.chat.createStreamParser(makeEndpoint());
    const [part] = parser.parse({ data: JSON.stringify({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }) });
    expect((part as { error: GatewayError }).error.message).toBe("Anthropic rejected the gateway's credentials");
  });

  test("a malformed chunk is a bad gateway error, and the parser then stays silent", async () => {
    const parts = await replayStream("stream-malformed.sse");
    expect(parts.map((part) => part.type)).toEqual(["start", "usage", "error"]);
    const error = (parts[2] as { error: GatewayError }).error;
    expect(error).toMatchObject({ code: "bad_gateway", metadata: { provider_code: "malformed_stream", provider: "anthropic" } });
    expect(error.message).not.toContain("text_delta");
  });

  test("a stream cut before message_stop gets no invented finish", async () => {
    const parts = await replayStream("stream-cut.sse");
    expect(parts.map((part) => part.type)).toEqual(["start", "usage", "text-delta"]);
  });

  test("ping, duplicate message_start and events after message_stop emit nothing", () => {
    const parser = anthropicAdapter.chat.createStreamParser(makeEndpoint());
    const start = { type: "message_start", message: { id: "msg_1", model: "m", usage: { input_tokens: 3 } } };
    expect(parser.parse({ event: "message_start", data: JSON.stringify(start) }).map((part: StreamPart) => part.type)).toEqual(["start", "usage"]);
    expect(parser.parse({ event: "message_start", data: JSON.stringify(start) })).toEqual([]);
    expect(parser.parse({ event: "ping", data: '{"type":"ping"}' })).toEqual([]);
    const stop = parser.parse({ event: "message_stop", data: '{"type":"message_stop"}' });
    expect(stop.map((part: StreamPart) => part.type)).toEqual(["usage", "finish"]);
    expect(parser.parse({ event: "message_stop", data: '{"type":"message_stop"}' })).toEqual([]);
    expect(parser.end()).toEqual([]);
  });

  test("a streamed message accumulates to the same output as the equivalent whole message", async () => {
    const parts = await replayStream("stream-tool-use.sse");
    const accumulator = new ResponseAccumulator();
    for (const part of parts) accumulator.add(part);
    expect(accumulator.output.map((block) => block.type)).toEqual(["text", "tool-call", "tool-call"]);
    const whole = anthropicAdapter.chat.parseResponse(await fixtureJson("message-tool-use.json"), makeEndpoint());
    expect(whole.output.map((block) => block.type)).toEqual(["text", "tool-call", "tool-call"]);
  });

  test("the SSE splitter joins multi-line data and skips comments", () => {
    expect(splitSse(": keepalive\n\nevent: a\ndata: {\"x\":\ndata: 1}\n\ndata: 2\n\n")).toEqual([
      { event: "a", data: '{"x":\n1}' },
      { data: "2" },
    ]);
  });
});
