import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { OpenResponsesResult$inboundSchema } from "@openrouter/sdk/models";
import type { CanonicalResponse } from "../../../core/canonical.ts";
import { GatewayError } from "../../../core/errors.ts";
import { responsesCodec } from "./index.ts";
import { context, decode, type Json, NOW, NOW_SECONDS, outputText, USAGE } from "./testing.ts";

beforeAll(() => setSystemTime(NOW));
afterAll(() => setSystemTime());

const TEXT_RESPONSE: CanonicalResponse = { output: [{ type: "text", text: "Hello!" }], finishReason: "stop", usage: USAGE };

describe("responses codec: encodeResponse", () => {
  test("a text answer, field by field", () => {
    const encoded = responsesCodec.encodeResponse(TEXT_RESPONSE, context());
    expect(encoded).toEqual({
      id: "gen-1762000000-abc",
      object: "response",
      created_at: 1762000000,
      completed_at: NOW_SECONDS,
      status: "completed",
      model: "acme/model",
      output: [
        {
          type: "message",
          id: "msg_1762000000-abc_0",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: "Hello!", annotations: [], logprobs: [] }],
        },
      ],
      error: null,
      incomplete_details: null,
      instructions: null,
      metadata: {},
      parallel_tool_calls: true,
      temperature: null,
      top_p: null,
      frequency_penalty: null,
      presence_penalty: null,
      tool_choice: "auto",
      tools: [],
      max_output_tokens: null,
      text: { format: { type: "text" } },
      reasoning: null,
      store: false,
      background: false,
      service_tier: "auto",
      user: null,
      usage: {
        input_tokens: 100,
        input_tokens_details: { cached_tokens: 20 },
        output_tokens: 40,
        output_tokens_details: { reasoning_tokens: 10 },
        total_tokens: 140,
        cost: 100 * 0.000001 + 40 * 0.000002,
        is_byok: false,
      },
      provider: "Acme",
    });
    expect("output_text" in encoded).toBe(false);
    expect(OpenResponsesResult$inboundSchema.safeParse(encoded).success).toBe(true);
    expect(outputText(encoded)).toBe("Hello!");
  });

  test("the request is echoed", () => {
    const body = {
      model: "acme/model",
      input: "hi",
      instructions: "be brief",
      metadata: { k: "v" },
      parallel_tool_calls: false,
      temperature: 0.2,
      top_p: 0.8,
      frequency_penalty: 0.5,
      presence_penalty: 0.25,
      tool_choice: "required",
      tools: [{ type: "function", name: "f" }],
      max_output_tokens: 99,
      text: { format: { type: "json_object" }, verbosity: "high" },
      reasoning: { effort: "low" },
      service_tier: "flex",
      user: "u-1",
    };
    const encoded = responsesCodec.encodeResponse(TEXT_RESPONSE, context(body));
    expect(encoded).toMatchObject({
      instructions: "be brief",
      metadata: { k: "v" },
      parallel_tool_calls: false,
      temperature: 0.2,
      top_p: 0.8,
      frequency_penalty: 0.5,
      presence_penalty: 0.25,
      tool_choice: "required",
      tools: [{ type: "function", name: "f", description: null, parameters: null, strict: null }],
      max_output_tokens: 99,
      text: { format: { type: "json_object" }, verbosity: "high" },
      reasoning: { effort: "low" },
      service_tier: "flex",
      user: "u-1",
    });
    expect(OpenResponsesResult$inboundSchema.safeParse(encoded).success).toBe(true);
  });

  test("reasoning, text and function calls in output order with stable ids", () => {
    const response: CanonicalResponse = {
      output: [
        { type: "reasoning", part: { text: "thinking", signature: "SIG" } },
        { type: "reasoning", part: { text: "", encrypted: "ENC" } },
        { type: "text", text: "calling" },
        { type: "tool-call", call: { id: "call_1", name: "f", arguments: '{"a":1}' } },
        { type: "tool-call", call: { id: "call_2", name: "g", arguments: "{}" } },
      ],
      finishReason: "tool_calls",
    };
    const encoded = responsesCodec.encodeResponse(response, context());
    expect(encoded.output).toEqual([
      { type: "reasoning", id: "rs_1762000000-abc_0", summary: [{ type: "summary_text", text: "thinking" }], signature: "SIG", format: "anthropic-claude-v1" },
      { type: "reasoning", id: "rs_1762000000-abc_1", summary: [], encrypted_content: "ENC" },
      {
        type: "message",
        id: "msg_1762000000-abc_2",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: "calling", annotations: [], logprobs: [] }],
      },
      { type: "function_call", id: "fc_1762000000-abc_3", call_id: "call_1", name: "f", arguments: '{"a":1}', status: "completed" },
      { type: "function_call", id: "fc_1762000000-abc_4", call_id: "call_2", name: "g", arguments: "{}", status: "completed" },
    ]);
    expect(encoded.status).toBe("completed");
    expect("usage" in encoded).toBe(false);
    expect(OpenResponsesResult$inboundSchema.safeParse(encoded).success).toBe(true);
  });

  test("output items decode back into the same assistant turn", () => {
    const response: CanonicalResponse = {
      output: [
        { type: "reasoning", part: { text: "thinking", signature: "SIG" } },
        { type: "reasoning", part: { text: "", redacted: "RED" } },
        { type: "tool-call", call: { id: "call_1", name: "f", arguments: "{}" } },
      ],
      finishReason: "tool_calls",
    };
    const output = responsesCodec.encodeResponse(response, context()).output as Json[];
    const request = decode({ input: [{ role: "user", content: "q" }, ...output, { type: "function_call_output", call_id: "call_1", output: "ok" }] });
    expect(request.messages[1]).toEqual({
      role: "assistant",
      content: [],
      toolCalls: [{ id: "call_1", name: "f", arguments: "{}" }],
      reasoning: [{ text: "thinking", signature: "SIG" }, { text: "", redacted: "RED" }],
    });
  });

  test("an unfinished answer (finish error) is incomplete, its last item too, never completed or failed", () => {
    const response: CanonicalResponse = {
      output: [
        { type: "tool-call", call: { id: "c1", name: "f", arguments: "{}" } },
        { type: "text", text: "Half an ans" },
      ],
      finishReason: "error",
      usage: USAGE,
    };
    const body = responsesCodec.encodeResponse(response, context());
    expect(body).toMatchObject({ status: "incomplete", incomplete_details: { reason: "error" }, error: null, completed_at: NOW_SECONDS });
    expect((body.output as Json[]).map((item) => item.status)).toEqual(["completed", "incomplete"]);
    expect(OpenResponsesResult$inboundSchema.safeParse(body).success).toBe(true);
  });

  test("length and content_filter are incomplete; excluded reasoning is dropped", () => {
    const length = responsesCodec.encodeResponse({ ...TEXT_RESPONSE, finishReason: "length" }, context());
    expect(length).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, completed_at: NOW_SECONDS });
    const filtered = responsesCodec.encodeResponse({ ...TEXT_RESPONSE, finishReason: "content_filter" }, context());
    expect(filtered).toMatchObject({ status: "incomplete", incomplete_details: { reason: "content_filter" } });
    expect(OpenResponsesResult$inboundSchema.safeParse(length).success).toBe(true);
    const excluded = responsesCodec.encodeResponse(
      { output: [{ type: "reasoning", part: { text: "secret" } }, { type: "text", text: "hi" }], finishReason: "stop" },
      context({ model: "acme/model", input: "x", reasoning: { exclude: true } }),
    );
    expect((excluded.output as Json[]).map((item) => item.id)).toEqual(["msg_1762000000-abc_0"]);
  });
});

describe("responses codec: encodeError", () => {
  test("the spec envelope plus a top-level error_type", () => {
    expect(responsesCodec.encodeError(new GatewayError("bad_request", "model: is required"))).toEqual({
      error: { code: 400, message: "model: is required" },
      service_metadata: null,
      user_id: null,
      error_type: "invalid_request",
    });
    const limited = new GatewayError("rate_limited", "slow down", { metadata: { provider_code: "429" }, errorType: "rate_limit_exceeded" });
    expect(responsesCodec.encodeError(limited)).toEqual({
      error: { code: 429, message: "slow down", metadata: { provider_code: "429" } },
      service_metadata: null,
      user_id: null,
      error_type: "rate_limit_exceeded",
    });
  });
});
