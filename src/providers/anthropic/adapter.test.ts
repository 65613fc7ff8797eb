import { describe, expect, test } from "bun:test";
import type { CanonicalRequest, Message } from "../../core/canonical.ts";
import { anthropicAdapter } from "./adapter.ts";
import { makeEndpoint } from "./test-support.ts";

const endpoint = makeEndpoint();
const ephemeral = { type: "ephemeral" } as const;

function canonical(overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    model: "anthropic/claude-sonnet-4.5",
    messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
    stream: false,
    streamUsage: false,
    ...overrides,
  };
}

function body(overrides: Partial<CanonicalRequest> = {}, target = endpoint): Record<string, any> {
  return anthropicAdapter.chat.buildRequest(canonical(overrides), target, { stream: false, apiKey: "sk-ant-test" }).body;
}

const user = (text: string, cacheControl?: typeof ephemeral): Message => ({
  role: "user",
  content: [{ type: "text", text, ...(cacheControl ? { cacheControl } : {}) }],
});

describe("buildRequest: envelope", () => {
  test("url, headers and required fields", () => {
    const request = anthropicAdapter.chat.buildRequest(canonical(), endpoint, { stream: true, apiKey: "sk-ant-test" });
    expect(request.url).toBe("https://api.anthropic.test/v1/messages");
    expect(request.headers).toEqual({
      "content-type": "application/json",
      "anthropic-version": "2023-06-01",
      "x-api-key": "sk-ant-test",
      "anthropic-beta": "prompt-caching-2024-07-31",
    });
    expect(request.body).toEqual({
      model: "claude-sonnet-4-5-20250929",
      max_tokens: 64_000,
      messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
      stream: true,
    });
  });

  test("no x-api-key without a key; stream omitted when not streaming", () => {
    const request = anthropicAdapter.chat.buildRequest(canonical(), endpoint, { stream: false, apiKey: undefined });
    expect(request.headers["x-api-key"]).toBeUndefined();
    expect(request.body.stream).toBeUndefined();
  });

  test("max_tokens: request, then endpoint max output, then 4096", () => {
    expect(body({ maxTokens: 300 }).max_tokens).toBe(300);
    expect(body({}, makeEndpoint({ maxOutput: null })).max_tokens).toBe(4096);
  });

  test("sampling, stop sequences and user", () => {
    const result = body({ temperature: 0.3, topP: 0.9, topK: 40, stop: ["###"], user: "user-42", seed: 7 });
    expect(result).toMatchObject({ temperature: 0.3, top_p: 0.9, top_k: 40, stop_sequences: ["###"], metadata: { user_id: "user-42" } });
    expect(result.seed).toBeUndefined();
    expect(body({ stop: [] }).stop_sequences).toBeUndefined();
  });
});

describe("buildRequest: messages", () => {
  test("system messages anywhere are hoisted, keeping cache_control", () => {
    const result = body({
      messages: [
        { role: "system", content: [{ type: "text", text: "You are terse.", cacheControl: ephemeral }] },
        user("Hi"),
        { role: "system", content: [{ type: "text", text: "Answer in French." }] },
        user("Bonjour?"),
      ],
    });
    expect(result.system).toEqual([
      { type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } },
      { type: "text", text: "Answer in French." },
    ]);
    expect(result.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Hi" }, { type: "text", text: "Bonjour?" }] },
    ]);
  });

  test("consecutive same-role turns merge; empty text is dropped", () => {
    const result = body({
      messages: [
        user("one"),
        user("two"),
        { role: "assistant", content: [{ type: "text", text: "" }] },
        { role: "assistant", content: [{ type: "text", text: "three" }] },
        { role: "assistant", content: [{ type: "text", text: "four" }] },
        user("five"),
      ],
    });
    expect(result.messages.map((message: any) => [message.role, message.content.map((block: any) => block.text)])).toEqual([
      ["user", ["one", "two"]],
      ["assistant", ["three", "four"]],
      ["user", ["five"]],
    ]);
  });

  test("assistant turn: replayable reasoning, then text, then tool_use; tool results merge into one user turn", () => {
    const result = body({
      messages: [
        user("Weather in SF and Paris?"),
        {
          role: "assistant",
          content: [{ type: "text", text: "Checking both." }],
          reasoning: [
            { text: "Two cities, two calls.", signature: "sig-1" },
            { text: "", redacted: "opaque-data" },
            { text: "summary from another provider" },
            { text: "", encrypted: "openai-blob" },
          ],
          toolCalls: [
            { id: "toolu_1", name: "get_weather", arguments: '{"location":"SF"}' },
            { id: "toolu_2", name: "get_weather", arguments: "" },
            { id: "toolu_3", name: "get_weather", arguments: "{not json" },
          ],
        },
        { role: "tool", toolCallId: "toolu_1", content: [{ type: "text", text: "18°C" }] },
        { role: "tool", toolCallId: "toolu_2", content: [{ type: "text", text: "boom" }], isError: true },
        { role: "tool", toolCallId: "toolu_3", content: [] },
        user("Thanks"),
      ],
    });
    expect(result.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in SF and Paris?" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Two cities, two calls.", signature: "sig-1" },
          { type: "redacted_thinking", data: "opaque-data" },
          { type: "text", text: "Checking both." },
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { location: "SF" } },
          { type: "tool_use", id: "toolu_2", name: "get_weather", input: {} },
          { type: "tool_use", id: "toolu_3", name: "get_weather", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "18°C" }] },
          { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "boom" }], is_error: true },
          { type: "tool_result", tool_use_id: "toolu_3" },
          { type: "text", text: "Thanks" },
        ],
      },
    ]);
  });

  test("tool_result blocks come first in a merged user turn", () => {
    const result = body({
      messages: [
        { role: "assistant", content: [], toolCalls: [{ id: "toolu_1", name: "f", arguments: "{}" }] },
        user("note"),
        { role: "tool", toolCallId: "toolu_1", content: [{ type: "text", text: "ok" }] },
      ],
    });
    expect(result.messages[1].content.map((block: any) => block.type)).toEqual(["tool_result", "text"]);
  });

  test("images and PDFs: data URLs become base64 sources, http(s) URLs url sources", () => {
    const result = body({
      messages: [
        {
          role: "user",
          content: [
            { type: "image", url: "data:image/png;base64,iVBORw0KGgo=", cacheControl: ephemeral },
            { type: "image", url: "https://example.com/cat.jpg" },
            { type: "file", url: "data:application/pdf;base64,JVBERi0xLjQ=", filename: "report.pdf" },
            { type: "file", url: "https://example.com/paper.pdf" },
            { type: "file", url: "https://example.com/download?id=1", mediaType: "application/pdf" },
            { type: "file", url: "data:text/plain,hello%20world", filename: "notes.txt" },
            { type: "file", url: "data:image/webp;base64,UklGRg==" },
          ],
        },
      ],
    });
    expect(result.messages[0].content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" }, cache_control: { type: "ephemeral" } },
      { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQ=" }, title: "report.pdf" },
      { type: "document", source: { type: "url", url: "https://example.com/paper.pdf" } },
      { type: "document", source: { type: "url", url: "https://example.com/download?id=1" } },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "hello world" }, title: "notes.txt" },
      { type: "image", source: { type: "base64", media_type: "image/webp", data: "UklGRg==" } },
    ]);
  });

  test("unsupported files and image URLs are a bad request", () => {
    const file = () => body({ messages: [{ role: "user", content: [{ type: "file", url: "data:application/zip;base64,UEsDBA==" }] }] });
    expect(file).toThrow(expect.objectContaining({ code: "bad_request" }));
    const image = () => body({ messages: [{ role: "user", content: [{ type: "image", url: "ftp://example.com/a.png" }] }] });
    expect(image).toThrow(expect.objectContaining({ code: "bad_request" }));
  });
});

describe("buildRequest: tools", () => {
  const tools: CanonicalRequest["tools"] = [
    { type: "function", name: "get_weather", description: "Weather by city", parameters: { type: "object", properties: { city: { type: "string" } } } },
    { type: "function", name: "get_time", cacheControl: ephemeral },
  ];

  test("tools map to input_schema with a default empty object schema", () => {
    expect(body({ tools }).tools).toEqual([
      { name: "get_weather", description: "Weather by city", input_schema: { type: "object", properties: { city: { type: "string" } } } },
      { name: "get_time", input_schema: { type: "object", properties: {} }, cache_control: { type: "ephemeral" } },
    ]);
  });

  test("tool choice mapping and disable_parallel_tool_use", () => {
    expect(body({ tools, toolChoice: "auto" }).tool_choice).toEqual({ type: "auto" });
    expect(body({ tools, toolChoice: "required" }).tool_choice).toEqual({ type: "any" });
    expect(body({ tools, toolChoice: "none" }).tool_choice).toEqual({ type: "none" });
    expect(body({ tools, toolChoice: { name: "get_time" } }).tool_choice).toEqual({ type: "tool", name: "get_time" });
    expect(body({ tools, toolChoice: "required", parallelToolCalls: false }).tool_choice).toEqual({ type: "any", disable_parallel_tool_use: true });
    expect(body({ tools, parallelToolCalls: false }).tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(body({ tools }).tool_choice).toBeUndefined();
  });

  test("no tools, no tool_choice", () => {
    const result = body({ tools: [], toolChoice: "required" });
    expect(result.tools).toBeUndefined();
    expect(result.tool_choice).toBeUndefined();
  });
});

describe("buildRequest: reasoning", () => {
  test("effort maps to a thinking budget", () => {
    const efforts = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 24576, max: 32000 } as const;
    for (const [effort, budget] of Object.entries(efforts)) {
      expect(body({ reasoning: { effort: effort as keyof typeof efforts } }).thinking).toEqual({ type: "enabled", budget_tokens: budget });
    }
    expect(body({ reasoning: { enabled: true } }).thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    expect(body({ reasoning: { maxTokens: 5000, effort: "high" } }).thinking).toEqual({ type: "enabled", budget_tokens: 5000 });
  });

  test("off when disabled, effort none, or not asked for", () => {
    expect(body({ reasoning: { enabled: false, effort: "high" } }).thinking).toBeUndefined();
    expect(body({ reasoning: { effort: "none" } }).thinking).toBeUndefined();
    expect(body({ reasoning: { exclude: true } }).thinking).toBeUndefined();
    expect(body().thinking).toBeUndefined();
  });

  test("budget is at least 1024 and below max_tokens, raising max_tokens within the endpoint's max output", () => {
    expect(body({ reasoning: { maxTokens: 100 } }).thinking.budget_tokens).toBe(1024);
    const raised = body({ maxTokens: 2000, reasoning: { effort: "medium" } });
    expect(raised.thinking.budget_tokens).toBe(8192);
    expect(raised.max_tokens).toBe(8192 + 1024);
    const capped = body({ maxTokens: 2000, reasoning: { effort: "max" } }, makeEndpoint({ maxOutput: 16_000 }));
    expect(capped.max_tokens).toBe(16_000);
    expect(capped.thinking.budget_tokens).toBe(15_999);
    const noRoom = body({ maxTokens: 500, reasoning: { effort: "low" } }, makeEndpoint({ maxOutput: 1024 }));
    expect(noRoom.thinking).toBeUndefined();
    expect(noRoom.max_tokens).toBe(500);
  });

  test("with thinking on, incompatible sampling is dropped and forced tools turn thinking off", () => {
    const result = body({ reasoning: { effort: "low" }, temperature: 0.2, topK: 5, topP: 0.5 });
    expect([result.temperature, result.top_k, result.top_p]).toEqual([undefined, undefined, undefined]);
    expect(body({ reasoning: { effort: "low" }, temperature: 1, topP: 0.97 })).toMatchObject({ temperature: 1, top_p: 0.97 });
    const tools: CanonicalRequest["tools"] = [{ type: "function", name: "f" }];
    expect(body({ reasoning: { effort: "low" }, tools, toolChoice: "required" }).thinking).toBeUndefined();
    expect(body({ reasoning: { effort: "low" }, tools, toolChoice: "auto" }).thinking).toBeDefined();
  });

  test("what thinking displaces, or thinking that cannot be sent, is reported in warnings", () => {
    const warnings = (overrides: Partial<CanonicalRequest>, target = endpoint) =>
      anthropicAdapter.chat.buildRequest(canonical(overrides), target, { stream: false, apiKey: undefined }).warnings;
    expect(warnings({ reasoning: { effort: "low" }, temperature: 0.2, topK: 5 })).toEqual([
      "temperature, top_k: not accepted together with thinking on the Anthropic wire; not sent",
    ]);
    const tools: CanonicalRequest["tools"] = [{ type: "function", name: "f" }];
    expect(warnings({ reasoning: { enabled: true }, tools, toolChoice: "required" })).toEqual([
      "reasoning: thinking cannot be combined with a forced tool on the Anthropic wire; thinking was left off",
    ]);
    expect(warnings({ maxTokens: 500, reasoning: { effort: "low" } }, makeEndpoint({ maxOutput: 1024 }))).toEqual([
      "reasoning: a thinking budget of at least 1024 tokens does not fit in max_tokens 500; thinking was left off",
    ]);
    expect(warnings({ reasoning: { effort: "low" }, temperature: 1 })).toBeUndefined();
    expect(warnings({ temperature: 0.2 })).toBeUndefined();
  });
});

describe("buildRequest: context_management", () => {
  const clearThinking = { type: "clear_thinking_20251015", keep: "all" };
  const clearTools = { type: "clear_tool_uses_20250919", trigger: { type: "input_tokens", value: 30000 } };
  const build = (overrides: Partial<CanonicalRequest>, target = endpoint) =>
    anthropicAdapter.chat.buildRequest(canonical(overrides), target, { stream: false, apiKey: undefined });

  test("sent as is under a context-management beta flag", () => {
    const request = build({
      anthropicBeta: ["context-management-2025-06-27"],
      reasoning: { enabled: true },
      contextManagement: { edits: [clearThinking, clearTools] },
    });
    expect(request.body.context_management).toEqual({ edits: [clearThinking, clearTools] });
    expect(request.warnings).toBeUndefined();
  });

  test("without thinking, edits that clear thinking are dropped (nothing to clear)", () => {
    const beta = { anthropicBeta: ["context-management-2025-06-27"] };
    expect(build({ ...beta, contextManagement: { edits: [clearThinking] } }).body.context_management).toBeUndefined();
    expect(build({ ...beta, contextManagement: { edits: [clearThinking, clearTools] } }).body.context_management).toEqual({ edits: [clearTools] });
  });

  test("without the beta flag it is reported, not sent", () => {
    const request = build({ contextManagement: { edits: [clearTools] } });
    expect(request.body.context_management).toBeUndefined();
    expect(request.warnings).toEqual(["context_management: not sent (the upstream takes it only with a context-management anthropic-beta flag)"]);
  });
});

describe("buildRequest: anthropic-beta", () => {
  const headers = (anthropicBeta: string[] | undefined, target = endpoint) =>
    anthropicAdapter.chat.buildRequest(canonical(anthropicBeta ? { anthropicBeta } : {}), target, { stream: false, apiKey: undefined });

  test("the client's allowed flags join the provider's own; others are reported and not sent", () => {
    const request = headers(["claude-code-20250219", "interleaved-thinking-2025-05-14", "secret-beta-1", "prompt-caching-2024-07-31"]);
    expect(request.headers["anthropic-beta"]).toBe("prompt-caching-2024-07-31,claude-code-20250219,interleaved-thinking-2025-05-14");
    expect(request.warnings).toEqual(["anthropic-beta: secret-beta-1 not forwarded (not in the provider's anthropic_beta_allow)"]);
  });

  test("the provider's allow-list adds to the defaults; without client flags the provider's header stands", () => {
    const extended = makeEndpoint({}, { headers: {}, anthropicBetaAllow: new Set(["secret-beta-1"]) });
    expect(headers(["secret-beta-1"], extended).headers["anthropic-beta"]).toBe("secret-beta-1");
    expect(headers(["claude-code-20250219", "other-beta-2"], extended).headers["anthropic-beta"]).toBe("claude-code-20250219");
    expect(headers(undefined).headers["anthropic-beta"]).toBe("prompt-caching-2024-07-31");
    expect(headers(undefined).warnings).toBeUndefined();
  });
});

describe("buildRequest: response format", () => {
  test("json_schema appends an instruction to the system prompt", () => {
    const schema = { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] };
    const result = body({
      messages: [{ role: "system", content: [{ type: "text", text: "Be exact." }] }, user("2+2?")],
      responseFormat: { type: "json_schema", name: "math", schema },
    });
    expect(result.system).toHaveLength(2);
    expect(result.system[0]).toEqual({ type: "text", text: "Be exact." });
    expect(result.system[1].text).toContain(JSON.stringify(schema));
    expect(result.system[1].text).toContain('"math"');
  });

  test("json_object asks for a JSON object; text adds nothing", () => {
    expect(body({ responseFormat: { type: "json_object" } }).system[0].text).toContain("JSON object");
    expect(body({ responseFormat: { type: "text" } }).system).toBeUndefined();
  });
});

describe("buildRequest: cache breakpoints", () => {
  test("top-level cache control marks the last block of the last message", () => {
    const result = body({ messages: [user("context"), user("question")], cacheControl: { type: "ephemeral", ttl: "1h" } });
    expect(result.messages[0].content).toEqual([
      { type: "text", text: "context" },
      { type: "text", text: "question", cache_control: { type: "ephemeral", ttl: "1h" } },
    ]);
  });

  test("falls back to the last system block, and skips thinking blocks", () => {
    const systemOnly = body({ messages: [{ role: "system", content: [{ type: "text", text: "sys" }] }], cacheControl: ephemeral });
    expect(systemOnly.system).toEqual([{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }]);
    const prefill = body({
      messages: [user("q"), { role: "assistant", content: [], reasoning: [{ text: "t", signature: "s" }], toolCalls: [{ id: "a", name: "f", arguments: "{}" }] }],
      cacheControl: ephemeral,
    });
    expect(prefill.messages[1].content[1]).toEqual({ type: "tool_use", id: "a", name: "f", input: {}, cache_control: { type: "ephemeral" } });
  });

  test("never exceeds 4 breakpoints across system, messages, tool results and tools", () => {
    const request: Partial<CanonicalRequest> = {
      messages: [
        { role: "system", content: [{ type: "text", text: "sys", cacheControl: ephemeral }] },
        user("doc", ephemeral),
        { role: "assistant", content: [], toolCalls: [{ id: "t1", name: "f", arguments: "{}" }] },
        { role: "tool", toolCallId: "t1", content: [{ type: "text", text: "result", cacheControl: ephemeral }] },
        user("question"),
      ],
      tools: [{ type: "function", name: "f", cacheControl: ephemeral }],
      cacheControl: ephemeral,
    };
    const full = body(request);
    expect(full.messages.at(-1).content.at(-1)).toEqual({ type: "text", text: "question" });
    const json = JSON.stringify(full);
    expect(json.match(/cache_control/g)).toHaveLength(4);

    const three = body({ ...request, tools: [{ type: "function", name: "f" }] });
    expect(three.messages.at(-1).content.at(-1)).toEqual({ type: "text", text: "question", cache_control: { type: "ephemeral" } });
    expect(JSON.stringify(three).match(/cache_control/g)).toHaveLength(4);
  });

  test("an already-marked last block is not marked twice", () => {
    const result = body({ messages: [user("q", ephemeral)], cacheControl: { type: "ephemeral", ttl: "1h" } });
    expect(result.messages[0].content[0].cache_control).toEqual({ type: "ephemeral" });
  });
});
