import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { ResponsesRequest } from "../../schemas/responses-request.ts";
import { responsesCodec } from "./index.ts";
import { decode, decodeError, type Json } from "./testing.ts";

describe("responses codec: decode", () => {
  test("a string input is one user message; instructions come first as system", () => {
    const request = decode({ input: "hello", instructions: "be brief" });
    expect(request.messages).toEqual([
      { role: "system", content: [{ type: "text", text: "be brief" }] },
      { role: "user", content: [{ type: "text", text: "hello" }] },
    ]);
    expect(request.model).toBe("acme/model");
    expect(request.stream).toBe(false);
    expect(request.streamUsage).toBe(false);
  });

  test("message items of every role, with and without type", () => {
    const request = decode({
      input: [
        { type: "message", role: "system", content: "sys" },
        { role: "developer", content: [{ type: "input_text", text: "dev" }] },
        { role: "user", content: "question" },
        { type: "message", role: "assistant", id: "msg_1", status: "completed", content: [{ type: "output_text", text: "answer", annotations: [] }] },
        { type: "message", role: "assistant", content: [{ type: "refusal", refusal: "no" }] },
      ],
    });
    expect(request.messages).toEqual([
      { role: "system", content: [{ type: "text", text: "sys" }] },
      { role: "system", content: [{ type: "text", text: "dev" }] },
      { role: "user", content: [{ type: "text", text: "question" }] },
      { role: "assistant", content: [{ type: "text", text: "answer" }] },
      { role: "assistant", content: [{ type: "text", text: "no" }] },
    ]);
  });

  test("image and file parts", () => {
    const request = decode({
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "look", cache_control: { type: "ephemeral", ttl: "1h" } },
            { type: "input_image", image_url: "https://x.test/a.png", detail: "high" },
            { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "auto" },
            { type: "input_file", file_data: "data:application/pdf;base64,JVBER", filename: "a.pdf" },
            { type: "input_file", file_url: "https://x.test/b.pdf" },
            { type: "input_file", file_data: "JVBER", filename: "c.pdf" },
          ],
        },
      ],
    });
    expect(request.messages[0]?.content).toEqual([
      { type: "text", text: "look", cacheControl: { type: "ephemeral", ttl: "1h" } },
      { type: "image", url: "https://x.test/a.png", detail: "high" },
      { type: "image", url: "data:image/png;base64,AAAA", detail: "auto" },
      { type: "file", url: "data:application/pdf;base64,JVBER", filename: "a.pdf", mediaType: "application/pdf" },
      { type: "file", url: "https://x.test/b.pdf", mediaType: "application/pdf" },
      { type: "file", url: "data:application/pdf;base64,JVBER", filename: "c.pdf", mediaType: "application/pdf" },
    ]);
  });

  test("image file ids and unknown parts are refused, naming the item and part; an input_file's file_id is kept for the edge", () => {
    const image = decodeError({ input: [{ role: "user", content: "a" }, { role: "user", content: [{ type: "input_text", text: "x" }, { type: "input_image", file_id: "file-1" }] }] });
    expect(image.status).toBe(400);
    expect(image.message).toStartWith("input[1].content[1]: input_image with file_id is not supported");
    expect(decodeError({ input: [{ role: "user", content: [{ type: "input_file" }] }] }).message).toStartWith("input[0].content[0]: input_file needs");
    expect(decodeError({ input: [{ role: "user", content: [{ type: "input_audio", input_audio: {} }] }] }).message).toBe(
      'input[0].content[0]: content parts of type "input_audio" are not supported by this gateway',
    );
    expect(decodeError({ input: [{ role: "tool", content: "x" }] }).message).toStartWith("input[0].role:");
  });

  test("reasoning items attach to the next assistant message", () => {
    const request = decode({
      input: [
        { role: "user", content: "q" },
        { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "a" }, { type: "summary_text", text: "b" }], encrypted_content: "ENC" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "answer" }] },
        { role: "user", content: "q2" },
        { type: "reasoning", id: "rs_2", summary: [{ type: "summary_text", text: "think" }], signature: "SIG", format: "anthropic-claude-v1" },
        { type: "reasoning", id: "rs_3", summary: [], encrypted_content: "REDACTED", format: "anthropic-claude-v1" },
        { type: "reasoning", id: "rs_4", summary: [], content: [{ type: "reasoning_text", text: "raw" }] },
        { type: "function_call", call_id: "call_1", name: "f", arguments: "{}" },
        { type: "reasoning", id: "rs_5", summary: [{ type: "summary_text", text: "dangling" }] },
      ],
    });
    expect(request.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "q" }] },
      { role: "assistant", content: [{ type: "text", text: "answer" }], reasoning: [{ text: "a\n\nb", encrypted: "ENC" }] },
      { role: "user", content: [{ type: "text", text: "q2" }] },
      {
        role: "assistant",
        content: [],
        toolCalls: [{ id: "call_1", name: "f", arguments: "{}" }],
        reasoning: [{ text: "think", signature: "SIG" }, { text: "", redacted: "REDACTED" }, { text: "raw" }],
      },
      { role: "assistant", content: [], reasoning: [{ text: "dangling" }] },
    ]);
  });

  test("function calls merge with each other and with an adjacent assistant text; outputs become tool messages", () => {
    const request = decode({
      input: [
        { role: "user", content: "weather?" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "checking" }] },
        { type: "function_call", id: "fc_1", call_id: "call_a", name: "weather", arguments: '{"city":"Oslo"}', status: "completed" },
        { type: "function_call", id: "fc_2", call_id: "call_b", name: "weather", arguments: '{"city":"Rome"}' },
        { type: "function_call_output", call_id: "call_a", output: "cold" },
        { type: "function_call_output", call_id: "call_b", output: [{ type: "input_text", text: "warm" }, { type: "input_image", image_url: "https://x.test/sun.png" }] },
        { type: "function_call", call_id: "call_c", name: "time", arguments: "{}" },
        { type: "function_call_output", call_id: "call_c", output: "noon" },
      ],
    });
    expect(request.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "weather?" }] },
      {
        role: "assistant",
        content: [{ type: "text", text: "checking" }],
        toolCalls: [
          { id: "call_a", name: "weather", arguments: '{"city":"Oslo"}' },
          { id: "call_b", name: "weather", arguments: '{"city":"Rome"}' },
        ],
      },
      { role: "tool", toolCallId: "call_a", content: [{ type: "text", text: "cold" }] },
      { role: "tool", toolCallId: "call_b", content: [{ type: "text", text: "warm" }, { type: "image", url: "https://x.test/sun.png" }] },
      { role: "assistant", content: [], toolCalls: [{ id: "call_c", name: "time", arguments: "{}" }] },
      { role: "tool", toolCallId: "call_c", content: [{ type: "text", text: "noon" }] },
    ]);
    expect(decodeError({ input: [{ type: "function_call", name: "f", arguments: "{}" }] }).message).toBe("input[0].call_id: is required");
  });

  test("an item kind the gateway does not know is refused, naming its index and type", () => {
    for (const type of ["compaction", "made_up"]) {
      const error = decodeError({ input: [{ role: "user", content: "hi" }, { type, id: "x" }] });
      expect(error.status).toBe(400);
      expect(error.message).toBe(`input[1]: items of type "${type}" are not supported by this gateway`);
    }
  });

  test("items of server tools the gateway never ran are dropped with a warning", () => {
    for (const type of ["web_search_call", "file_search_call", "computer_call", "code_interpreter_call", "image_generation_call", "mcp_call", "mcp_list_tools", "mcp_approval_request"]) {
      const request = decode({ input: [{ role: "user", content: "hi" }, { type, id: "x" }] });
      expect(request.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
      expect(request.warnings).toEqual([`input[1]: a "${type}" item of a server tool this gateway does not run was dropped`]);
    }
  });


  test("stateless: previous_response_id and store: true are refused", () => {
    const previous = decodeError({ previous_response_id: "resp_1" });
    expect(previous.status).toBe(400);
    expect(previous.message).toBe("previous_response_id is not supported: Roundhouse stores no responses; send the full history in input");
    expect(decodeError({ store: true }).message).toStartWith("store: true is not supported");
    expect(decode({ previous_response_id: null, store: false, input: "x" }).messages).toHaveLength(1);
  });

  test("prompt: a stored template is accepted and dropped (no prompt store), refused only under require_parameters", () => {
    const prompt = { id: "pmpt_1", variables: { city: "Oslo", note: { type: "input_text", text: "brief" } } };
    expect(decode({ input: "x", prompt })).toEqual(decode({ input: "x" }));
    const strict = decodeError({ input: "x", prompt, provider: { require_parameters: true } });
    expect(strict.status).toBe(400);
    expect(strict.message).toStartWith("prompt: stored prompt templates cannot be applied");
  });

  test("tools and tool_choice", () => {
    const request = decode({
      tools: [
        { type: "function", name: "f", description: "does f", parameters: { type: "object" }, strict: true },
        { type: "function", name: "g", description: null, parameters: null, strict: null },
      ],
      tool_choice: { type: "function", name: "f" },
    });
    expect(request.tools).toEqual([
      { type: "function", name: "f", description: "does f", parameters: { type: "object" }, strict: true },
      { type: "function", name: "g" },
    ]);
    expect(request.toolChoice).toEqual({ name: "f" });
    for (const choice of ["auto", "none", "required"] as const) expect(decode({ tool_choice: choice }).toolChoice).toBe(choice);
  });

  test("a server tool no endpoint supports is dropped with a warning, or refused under require_parameters", () => {
    const dropped = decode({ tools: [{ type: "function", name: "f" }, { type: "web_search", external_web_access: false }] });
    expect(dropped.tools).toEqual([{ type: "function", name: "f" }]);
    expect(dropped.warnings).toEqual(['tools[1]: server tool "web_search" is not supported by any endpoint for this model and was dropped']);
    expect(decode({ tools: [{ type: "openrouter:web_fetch" }] }).tools).toEqual([]);
    const refused = decodeError({ tools: [{ type: "web_search" }], provider: { require_parameters: true } });
    expect(refused.status).toBe(400);
    expect(refused.message).toBe(
      'tools[0]: server tool "web_search" is not supported by any endpoint for this model, and provider.require_parameters is true',
    );
    const forced = decode({ tools: [{ type: "web_search_preview" }], tool_choice: { type: "web_search_preview" } });
    expect(forced.toolChoice).toBe("auto");
    expect(forced.warnings).toContain('tool_choice: forces server tool "web_search_preview", which was dropped; the model chooses freely');
  });

  test("sampling, format, reasoning and routing fields", () => {
    const request = decode({
      stream: true,
      max_output_tokens: 256,
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      frequency_penalty: 0.1,
      presence_penalty: -0.1,
      top_logprobs: 3,
      parallel_tool_calls: false,
      text: { format: { type: "json_schema", name: "out", schema: { type: "object" }, strict: true, description: "d" }, verbosity: "low" },
      reasoning: { effort: "high", max_tokens: 1000, enabled: true, summary: "auto", exclude: false },
      provider: { order: ["acme"] },
      plugins: [{ id: "web" }],
      route: "fallback",
      session_id: "s1",
      prompt_cache_key: "k1",
      user: "u1",
      metadata: { a: "b" },
      service_tier: "flex",
      cache_control: { type: "ephemeral" },
      debug: { echo_upstream_body: true },
      models: ["acme/model", "acme/other"],
      preset: "team-default",
    });
    expect(request).toEqual({
      model: "acme/model",
      models: ["acme/model", "acme/other"],
      preset: "team-default",
      messages: [],
      stream: true,
      streamUsage: false,
      parallelToolCalls: false,
      maxTokens: 256,
      temperature: 0.5,
      topP: 0.9,
      topK: 40,
      frequencyPenalty: 0.1,
      presencePenalty: -0.1,
      topLogprobs: 3,
      responseFormat: { type: "json_schema", name: "out", schema: { type: "object" }, strict: true, description: "d" },
      verbosity: "low",
      reasoning: { effort: "high", maxTokens: 1000, enabled: true, summary: "auto", exclude: false },
      provider: { order: ["acme"] },
      plugins: [{ id: "web" }],
      route: "fallback",
      sessionId: "s1",
      promptCacheKey: "k1",
      user: "u1",
      metadata: { a: "b" },
      serviceTier: "flex",
      cacheControl: { type: "ephemeral" },
      echoUpstreamBody: true,
    });
    expect(decode({ text: { format: { type: "json_object" } } }).responseFormat).toEqual({ type: "json_object" });
    expect(decode({ text: { format: { type: "text" } } }).responseFormat).toEqual({ type: "text" });
    expect(decode({ temperature: null, top_p: null, reasoning: null, metadata: null })).toEqual({
      model: "acme/model",
      messages: [],
      stream: false,
      streamUsage: false,
    });
  });

  test("model is required unless models or a preset name it", () => {
    expect(() => responsesCodec.decode({ input: "x" })).toThrow("model: is required");
    expect(() => responsesCodec.decode({ model: "", input: "x" })).toThrow("model: is required");
    expect(responsesCodec.decode({ models: ["a/b", "c/d"] })).toMatchObject({ model: "a/b", models: ["a/b", "c/d"] });
    expect(responsesCodec.decode({ preset: "p" })).toMatchObject({ model: "", preset: "p" });
    expect(responsesCodec.decode({ model: "@preset/p" }).model).toBe("@preset/p");
  });

  test("the schema accepts what the SDKs send", () => {
    expect(responsesCodec.schema).toBe(ResponsesRequest);
    const orSdk = { input: "hi", model: "m", service_tier: "auto", store: false, stream: false };
    expect(Value.Check(ResponsesRequest, orSdk)).toBe(true);
    expect(responsesCodec.decode(orSdk)).toMatchObject({ model: "m", serviceTier: "auto", stream: false });
  });
});

describe("replayed server tool output", () => {
  test("a service:<tool> item is the gateway's own output: left out, the message after it kept", () => {
    const request = decode({
      input: [
        { role: "user", content: "search" },
        { type: "service:web_search", id: "st_1", status: "completed", action: { type: "search", query: "q" } },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "found it" }] },
        { role: "user", content: "thanks" },
      ],
    });
    expect(request.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
  });
});
