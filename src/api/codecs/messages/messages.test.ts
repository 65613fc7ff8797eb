import { describe, expect, test } from "bun:test";
import type { CanonicalResponse } from "../../../core/canonical.ts";
import { GatewayError } from "../../../core/errors.ts";
import { validate } from "../../../core/validation-errors.ts";
import { messagesCodec } from "./index.ts";
import { context, decode, decodeError, MODEL, usage } from "./test-fixtures.ts";

describe("decode", () => {
  test("system, text, cache control, and the OpenRouter extras", () => {
    const request = decode({
      system: [{ type: "text", text: "be brief", cache_control: { type: "ephemeral", ttl: "1h" } }],
      messages: [{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] }],
      max_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ["END"],
      metadata: { user_id: "u-1" },
      provider: { order: ["anthropic"] },
      plugins: [{ id: "web" }],
      route: "fallback",
      session_id: "s-1",
      service_tier: "auto",
      cache_control: { type: "ephemeral" },
      stream: true,
      preset: "my-preset",
    });
    expect(request).toEqual({
      model: MODEL,
      messages: [
        { role: "system", content: [{ type: "text", text: "be brief", cacheControl: { type: "ephemeral", ttl: "1h" } }] },
        { role: "user", content: [{ type: "text", text: "hi", cacheControl: { type: "ephemeral" } }] },
      ],
      stream: true,
      streamUsage: false,
      maxTokens: 100,
      temperature: 0.5,
      topP: 0.9,
      topK: 40,
      stop: ["END"],
      cacheControl: { type: "ephemeral" },
      serviceTier: "auto",
      provider: { order: ["anthropic"] },
      plugins: [{ id: "web" }],
      route: "fallback",
      sessionId: "s-1",
      user: "u-1",
      preset: "my-preset",
    });
  });

  test("defaults: string system, stream false, no optional fields", () => {
    const request = decode({ system: "sys" });
    expect(request).toEqual({
      model: MODEL,
      messages: [
        { role: "system", content: [{ type: "text", text: "sys" }] },
        { role: "user", content: [{ type: "text", text: "hi" }] },
      ],
      stream: false,
      streamUsage: false,
    });
  });

  test("images and documents", () => {
    const request = decode({
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: "AAA" } },
            { type: "image", source: { type: "url", url: "https://x/y.png" }, cache_control: { type: "ephemeral" } },
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVB" }, title: "a.pdf" },
            { type: "document", source: { type: "url", url: "https://x/doc.pdf" } },
            { type: "document", source: { type: "text", media_type: "text/plain", data: "plain" } },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "image", url: "data:image/png;base64,AAA" },
          { type: "image", url: "https://x/y.png", cacheControl: { type: "ephemeral" } },
          { type: "file", url: "data:application/pdf;base64,JVB", mediaType: "application/pdf", filename: "a.pdf" },
          { type: "file", url: "https://x/doc.pdf", mediaType: "application/pdf" },
          { type: "text", text: "plain" },
        ],
      },
    ]);
  });

  test("assistant thinking, redacted thinking, text and tool use; tool results come before the user's text", () => {
    const request = decode({
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "let me look", signature: "sig-1" },
            { type: "redacted_thinking", data: "opaque" },
            { type: "text", text: "Looking." },
            { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } },
            { type: "tool_use", id: "toolu_2", name: "time", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "text", text: "here you go" },
            { type: "tool_result", tool_use_id: "toolu_1", content: "sunny" },
            {
              type: "tool_result",
              tool_use_id: "toolu_2",
              is_error: true,
              content: [
                { type: "text", text: "failed" },
                { type: "image", source: { type: "url", url: "https://x/e.png" } },
              ],
              cache_control: { type: "ephemeral" },
            },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "weather?" }] },
      {
        role: "assistant",
        content: [{ type: "text", text: "Looking." }],
        toolCalls: [
          { id: "toolu_1", name: "weather", arguments: '{"city":"Paris"}' },
          { id: "toolu_2", name: "time", arguments: "{}" },
        ],
        reasoning: [
          { text: "let me look", signature: "sig-1" },
          { text: "", redacted: "opaque" },
        ],
      },
      { role: "tool", toolCallId: "toolu_1", content: [{ type: "text", text: "sunny" }] },
      {
        role: "tool",
        toolCallId: "toolu_2",
        isError: true,
        content: [
          { type: "text", text: "failed" },
          { type: "image", url: "https://x/e.png", cacheControl: { type: "ephemeral" } },
        ],
      },
      { role: "user", content: [{ type: "text", text: "here you go" }] },
    ]);
  });

  test("a user turn of tool results only emits no empty user message", () => {
    const request = decode({
      messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t1" }] }],
    });
    expect(request.messages).toEqual([{ role: "tool", toolCallId: "t1", content: [] }]);
  });

  test("tools, tool_choice and parallel calls", () => {
    const request = decode({
      tools: [
        {
          name: "weather",
          description: "Get weather",
          input_schema: { type: "object", properties: { city: { type: "string" } } },
          cache_control: { type: "ephemeral" },
        },
        { type: "custom", name: "time", input_schema: { type: "object" } },
      ],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
    });
    expect(request.tools).toEqual([
      {
        type: "function",
        name: "weather",
        description: "Get weather",
        parameters: { type: "object", properties: { city: { type: "string" } } },
        cacheControl: { type: "ephemeral" },
      },
      { type: "function", name: "time", parameters: { type: "object" } },
    ]);
    expect(request.toolChoice).toBe("required");
    expect(request.parallelToolCalls).toBe(false);
    expect(decode({ tool_choice: { type: "auto" } }).toolChoice).toBe("auto");
    expect(decode({ tool_choice: { type: "auto" } }).parallelToolCalls).toBeUndefined();
    expect(decode({ tool_choice: { type: "none" } }).toolChoice).toBe("none");
    const named = decode({ tool_choice: { type: "tool", name: "weather", disable_parallel_tool_use: false } });
    expect(named.toolChoice).toEqual({ name: "weather" });
    expect(named.parallelToolCalls).toBe(true);
  });

  test("thinking", () => {
    expect(decode({ thinking: { type: "enabled", budget_tokens: 2048 } }).reasoning).toEqual({ enabled: true, maxTokens: 2048 });
    expect(decode({ thinking: { type: "disabled" } }).reasoning).toEqual({ enabled: false });
    expect(decode({ thinking: { type: "adaptive" } }).reasoning).toEqual({ enabled: true });
  });

  test("output_config.effort with adaptive or budgeted thinking, or alone; disabled thinking wins", () => {
    const claudeCode = decode({ thinking: { type: "adaptive", display: "updates" }, output_config: { effort: "high" } });
    expect(claudeCode.reasoning).toEqual({ enabled: true, effort: "high" });
    expect(decode({ thinking: { type: "enabled", budget_tokens: 4096 }, output_config: { effort: "low" } }).reasoning).toEqual({
      enabled: true,
      maxTokens: 4096,
      effort: "low",
    });
    expect(decode({ output_config: { effort: "medium" } }).reasoning).toEqual({ effort: "medium" });
    expect(decode({ thinking: { type: "disabled" }, output_config: { effort: "high" } }).reasoning).toEqual({ enabled: false });
    expect(decode({ output_config: {} }).reasoning).toBeUndefined();
  });

  test("context_management is kept as sent", () => {
    const contextManagement = { edits: [{ type: "clear_thinking_20251015", keep: "all" }] };
    expect(decode({ context_management: contextManagement }).contextManagement).toEqual(contextManagement);
  });

  test("system turns stay system messages at their position", () => {
    const request = decode({
      system: "top",
      messages: [
        { role: "user", content: "a" },
        { role: "system", content: [{ type: "text", text: "mid", cache_control: { type: "ephemeral" } }] },
        { role: "assistant", content: "b" },
        { role: "system", content: "late" },
        { role: "system", content: "" },
      ],
    });
    expect(request.messages).toEqual([
      { role: "system", content: [{ type: "text", text: "top" }] },
      { role: "user", content: [{ type: "text", text: "a" }] },
      { role: "system", content: [{ type: "text", text: "mid", cacheControl: { type: "ephemeral" } }] },
      { role: "assistant", content: [{ type: "text", text: "b" }] },
      { role: "system", content: [{ type: "text", text: "late" }] },
    ]);
    expect(decodeError({ messages: [{ role: "user", content: "a" }, { role: "system", content: [{ type: "image", source: {} }] }] })).toBe(
      'messages.1.content.0: blocks of type "image" are not supported in system messages',
    );
  });

  test("fallbacks and models", () => {
    expect(decode({ fallbacks: [{ model: "a/b" }, { model: "c/d" }] }).models).toEqual([MODEL, "a/b", "c/d"]);
    expect(decode({ models: ["x/y", "z/w"] }).models).toEqual(["x/y", "z/w"]);
    expect(decodeError({ models: ["x/y"], fallbacks: [{ model: "a/b" }] })).toBe(
      "fallbacks: cannot be combined with models",
    );
  });

  test("user field wins over metadata.user_id", () => {
    expect(decode({ user: "top", metadata: { user_id: "meta" } }).user).toBe("top");
    expect(decode({ metadata: { user_id: null } }).user).toBeUndefined();
  });

  test("refusals name the path", () => {
    const user = (content: unknown[]) => ({ messages: [{ role: "user", content: "a" }, { role: "user", content }] });
    expect(decodeError(user([{ type: "text", text: "x" }, { type: "search_result" }]))).toBe(
      'messages.1.content.1: blocks of type "search_result" are not supported',
    );
    expect(decodeError(user([{ type: "tool_use", id: "a", name: "b", input: {} }]))).toBe(
      'messages.1.content.0: blocks of type "tool_use" are not supported in user messages',
    );
    expect(decodeError({ messages: [{ role: "assistant", content: [{ type: "image", source: {} }] }] })).toBe(
      'messages.0.content.0: blocks of type "image" are not supported in assistant messages',
    );
    expect(decodeError({ messages: [{ role: "assistant", content: [{ type: "container_upload" }] }] })).toBe(
      'messages.0.content.0: blocks of type "container_upload" are not supported',
    );
    expect(decodeError(user([{ type: "text" }]))).toBe("messages.1.content.0.text: expected a string");
    expect(decodeError(user([{ type: "image", source: { type: "file", file_id: "f" } }]))).toBe(
      'messages.1.content.0.source.type: image sources of type "file" are not supported',
    );
    expect(
      decodeError(user([{ type: "tool_result", tool_use_id: "t", content: [{ type: "search_result" }] }])),
    ).toBe('messages.1.content.0.content.0: blocks of type "search_result" are not supported in tool results');
    expect(decodeError(user([{ type: "text", text: "x", cache_control: { type: "forever" } }]))).toBe(
      'messages.1.content.0.cache_control: expected {type: "ephemeral", ttl?}',
    );
  });

  test("a server tool no endpoint supports is dropped with a warning; with require_parameters it is a 400 naming it", () => {
    const request = decode({ tools: [{ name: "ok", input_schema: {} }, { type: "bash_20250124", name: "bash" }] });
    expect(request.tools?.map((tool) => tool.name)).toEqual(["ok"]);
    expect(request.warnings).toEqual(['tools.1: server tool "bash_20250124" is not supported by any endpoint for this model and was dropped']);
    expect(decodeError({ tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 3 }], provider: { require_parameters: true } })).toBe(
      'tools.0: server tool "web_search_20250305" is not supported by any endpoint for this model, and provider.require_parameters is true',
    );
  });

  test("the codec's schema accepts a typical SDK body", () => {
    const body = {
      model: MODEL,
      max_tokens: 1024,
      system: [{ type: "text", text: "s", cache_control: { type: "ephemeral" } }],
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      tools: [{ name: "t", input_schema: { type: "object" } }, { type: "web_search_20250305", name: "web_search" }],
      thinking: { type: "enabled", budget_tokens: 1024 },
      stream: true,
    };
    expect(validate(messagesCodec.schema, body, "body")).toBeNull();
    expect(messagesCodec.style).toBe("messages");
  });
});

describe("encodeResponse", () => {
  const response: CanonicalResponse = {
    output: [
      { type: "reasoning", part: { text: "think", signature: "sig" } },
      { type: "reasoning", part: { text: "", redacted: "opaque" } },
      { type: "reasoning", part: { text: "unsigned" } },
      { type: "text", text: "Hello" },
      { type: "tool-call", call: { id: "toolu_1", name: "weather", arguments: '{"city":"Paris"}' } },
      { type: "tool-call", call: { id: "toolu_2", name: "broken", arguments: '{"city":' } },
    ],
    finishReason: "tool_calls",
    usage,
  };

  test("content in output order, stop reason, usage without cached tokens, provider", () => {
    expect(messagesCodec.encodeResponse(response, context())).toEqual({
      id: "gen-123",
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [
        { type: "thinking", thinking: "think", signature: "sig" },
        { type: "redacted_thinking", data: "opaque" },
        { type: "thinking", thinking: "unsigned", signature: "" },
        { type: "text", text: "Hello" },
        { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } },
        { type: "tool_use", id: "toolu_2", name: "broken", input: {} },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 30, output_tokens: 30, cache_read_input_tokens: 80, cache_creation_input_tokens: 10 },
      provider: "Anthropic",
    });
  });

  test("stop reasons and missing usage", () => {
    const stopOf = (finishReason: CanonicalResponse["finishReason"], nativeFinishReason?: string) =>
      messagesCodec.encodeResponse(
        { output: [{ type: "text", text: "x" }], finishReason, ...(nativeFinishReason ? { nativeFinishReason } : {}) },
        context(),
      );
    expect(stopOf("stop").stop_reason).toBe("end_turn");
    expect(stopOf("stop", "stop_sequence").stop_reason).toBe("stop_sequence");
    expect(stopOf("length").stop_reason).toBe("max_tokens");
    expect(stopOf("tool_calls").stop_reason).toBe("tool_use");
    expect(stopOf("content_filter").stop_reason).toBe("refusal");
    // An unfinished answer never passes for a complete turn.
    expect(stopOf("error").stop_reason).toBe("max_tokens");
    expect(stopOf("stop").usage).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    // A `stop` with tool calls still asks the client to run them.
    expect(messagesCodec.encodeResponse({ ...response, finishReason: "stop" }, context()).stop_reason).toBe("tool_use");
  });
});

describe("encodeError", () => {
  test("satisfies the spec envelope and the Anthropic shape", () => {
    const error = new GatewayError("rate_limited", "slow down", { metadata: { provider_code: 429 } });
    expect(messagesCodec.encodeError(error)).toEqual({
      type: "error",
      error: {
        type: "rate_limit_error",
        code: 429,
        message: "slow down",
        error_type: "rate_limit_exceeded",
        metadata: { provider_code: 429 },
      },
      service_metadata: null,
      user_id: null,
      request_id: null,
    });
    const plain = messagesCodec.encodeError(new GatewayError("bad_request", "nope"));
    expect(plain.error).toEqual({ type: "invalid_request_error", code: 400, message: "nope", error_type: "invalid_request" });
  });
});

describe("replayed server tool output", () => {
  test("server_tool_use and its result block in an assistant turn are the gateway's own output: left out, the text kept", () => {
    const request = decode({
      messages: [
        { role: "user", content: "search" },
        {
          role: "assistant",
          content: [
            { type: "server_tool_use", id: "st_1", name: "web_search", input: { query: "q" } },
            { type: "web_search_tool_result", tool_use_id: "st_1", content: [] },
            { type: "text", text: "found it" },
          ],
        },
        { role: "user", content: "thanks" },
      ],
    });
    expect(request.messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "found it" }] });
  });
});
