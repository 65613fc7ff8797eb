import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../core/errors.ts";
import { anthropicAdapter } from "./adapter.ts";
import { fixtureJson, makeEndpoint } from "./test-support.ts";

const endpoint = makeEndpoint();
const parse = (body: unknown) => anthropicAdapter.chat.parseResponse(body, endpoint);

describe("parseResponse", () => {
  test("a text message", async () => {
    expect(parse(await fixtureJson("message-text.json"))).toEqual({
      upstreamId: "msg_01XFDUDYJgAACzvnptvVoYEL",
      upstreamModel: "claude-sonnet-4-5-20250929",
      output: [{ type: "text", text: "Hello! How can I help you today?" }],
      finishReason: "stop",
      nativeFinishReason: "end_turn",
      usage: { inputTokens: 12, outputTokens: 11, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    });
  });

  test("tool_use blocks become tool calls with JSON text arguments", async () => {
    const response = parse(await fixtureJson("message-tool-use.json"));
    expect(response.finishReason).toBe("tool_calls");
    expect(response.nativeFinishReason).toBe("tool_use");
    expect(response.output).toEqual([
      { type: "text", text: "I'll check the weather in both cities." },
      {
        type: "tool-call",
        call: { id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
      },
      { type: "tool-call", call: { id: "toolu_01B7xZ3kq0Lw2mNnP4rT8vYc", name: "get_weather", arguments: '{"location":"Paris, France","unit":"celsius"}' } },
    ]);
  });

  test("thinking keeps its signature, redacted thinking its data; adjacent text joins", async () => {
    const response = parse(await fixtureJson("message-thinking.json"));
    expect(response.output).toEqual([
      {
        type: "reasoning",
        part: {
          text: "The user asks for 27 * 453. 27 * 453 = 27 * 400 + 27 * 53 = 10800 + 1431 = 12231.",
          signature: expect.stringMatching(/^EqQBCgIYAhIM/),
        },
      },
      { type: "reasoning", part: { text: "", redacted: expect.stringMatching(/^EmwKAhgBEgy3/) } },
      { type: "text", text: "27 × 453 = 12,231." },
    ]);
    expect(response.usage?.reasoningTokens).toBe(0);
  });

  test("cache usage: input counts cached tokens too", async () => {
    const response = parse(await fixtureJson("message-cache-usage.json"));
    expect(response.usage).toEqual({ inputTokens: 21 + 2051 + 188, outputTokens: 393, cacheReadTokens: 2051, cacheWriteTokens: 188, reasoningTokens: 0 });
    expect(response.finishReason).toBe("length");
  });

  test("stop reasons", async () => {
    const base = (await fixtureJson("message-text.json")) as Record<string, unknown>;
    const reasons = {
      end_turn: "stop",
      stop_sequence: "stop",
      pause_turn: "stop",
      max_tokens: "length",
      tool_use: "tool_calls",
      refusal: "content_filter",
    } as const;
    for (const [native, finish] of Object.entries(reasons)) {
      const response = parse({ ...base, stop_reason: native });
      expect([response.finishReason, response.nativeFinishReason]).toEqual([finish, native]);
    }
    // No stop reason: the message did not finish. Its content stays, reported as `error`, never a clean stop.
    for (const unfinished of [{ ...base, stop_reason: null }, { ...base, stop_reason: undefined }]) {
      const response = parse(unfinished);
      expect(response.finishReason).toBe("error");
      expect(response.nativeFinishReason).toBeUndefined();
      expect(response.output.length).toBeGreaterThan(0);
    }
  });

  test("unknown block types are skipped; missing usage stays absent", () => {
    const response = parse({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "m",
      content: [{ type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} }, { type: "text", text: "ok" }],
      stop_reason: "end_turn",
    });
    expect(response.output).toEqual([{ type: "text", text: "ok" }]);
    expect(response.usage).toBeUndefined();
  });

  test("an invalid body is a bad gateway with provider_code invalid_response", () => {
    for (const invalid of [null, "text", [], { type: "message" }, { type: "completion", content: [] }, { content: [{ type: "text" }] }]) {
      let caught: unknown;
      try {
        parse(invalid);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(GatewayError);
      expect(caught).toMatchObject({ code: "bad_gateway", status: 502, message: "Anthropic returned an invalid response: not a Messages API answer" });
      expect((caught as GatewayError).metadata?.provider_code).toBe("invalid_response");
    }
  });

  test("an error body where a message was expected maps by error type", () => {
    expect(() => parse({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })).toThrow(
      expect.objectContaining({ code: "unavailable", metadata: { provider: "anthropic", provider_code: "overloaded_error", upstream_status: 529 } }),
    );
  });
});
