import { describe, expect, test } from "bun:test";
import type { FunctionTool } from "../../core/canonical.ts";
import { upstreamError } from "../../transport/upstream-errors.ts";
import { openAiCompatibleAdapter as adapter } from "./adapter.ts";
import { fixtureText, makeEndpoint, makeRequest } from "./test-support.ts";

const WEATHER: FunctionTool = {
  type: "function",
  name: "get_weather",
  description: "Weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

function build(overrides: Parameters<typeof makeRequest>[0] = {}, endpoint = makeEndpoint(), options = { stream: false, apiKey: "sk-up" as string | undefined }) {
  return adapter.chat.buildRequest(makeRequest(overrides), endpoint, options);
}

describe("buildRequest: basics", () => {
  test("posts to {base}/chat/completions with the upstream model and a bearer credential", () => {
    const request = build({}, makeEndpoint({}, { headers: { "x-team": "ml" } }));
    expect(request.url).toBe("http://gpu-1.internal:8000/v1/chat/completions");
    expect(request.headers).toEqual({ "content-type": "application/json", "x-team": "ml", authorization: "Bearer sk-up" });
    expect(request.body).toEqual({ model: "Qwen/Qwen3-8B", messages: [{ role: "user", content: "hi" }] });
  });

  test("without a credential no authorization header is sent (local servers)", () => {
    expect(build({}, makeEndpoint(), { stream: false, apiKey: undefined }).headers.authorization).toBeUndefined();
  });

  test("max_tokens by default; max_completion_tokens when the provider's quirk says so (OpenAI)", () => {
    expect(build({ maxTokens: 256 }).body).toMatchObject({ max_tokens: 256 });
    const openai = makeEndpoint({}, { quirks: { maxTokensField: "max_completion_tokens", streamUsage: true, reasoningEffort: true, inlineImageUrls: false } });
    const body = build({ maxTokens: 256 }, openai).body;
    expect(body.max_completion_tokens).toBe(256);
    expect(body.max_tokens).toBeUndefined();
  });

  test("a stream asks for usage unless the stream_usage quirk is off", () => {
    expect(build({}, makeEndpoint(), { stream: true, apiKey: undefined }).body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const noUsage = makeEndpoint({}, { quirks: { maxTokensField: "max_tokens", streamUsage: false, reasoningEffort: true, inlineImageUrls: false } });
    const body = build({}, noUsage, { stream: true, apiKey: undefined }).body;
    expect(body.stream).toBe(true);
    expect(body.stream_options).toBeUndefined();
  });
});

describe("buildRequest: parameters gated by supported_parameters", () => {
  const sampling = { temperature: 0.2, topP: 0.9, topK: 40, minP: 0.05, repetitionPenalty: 1.1, seed: 7 };

  test("with no declared list, OpenAI's own parameters pass and extended ones (top_k, min_p, ...) do not", () => {
    const body = build(sampling).body;
    expect(body).toMatchObject({ temperature: 0.2, top_p: 0.9, seed: 7 });
    expect(body.top_k).toBeUndefined();
    expect(body.min_p).toBeUndefined();
    expect(body.repetition_penalty).toBeUndefined();
  });

  test("a declared list lets exactly its parameters through", () => {
    const endpoint = makeEndpoint({ supportedParameters: ["temperature", "top_k", "min_p"] });
    const body = build(sampling, endpoint).body;
    expect(body).toMatchObject({ temperature: 0.2, top_k: 40, min_p: 0.05 });
    expect(body.top_p).toBeUndefined();
    expect(body.seed).toBeUndefined();
    expect(body.repetition_penalty).toBeUndefined();
  });

  test("reasoning effort is sent when the endpoint supports reasoning and the quirk allows it", () => {
    const reasoning = { reasoning: { effort: "high" as const } };
    expect(build(reasoning, makeEndpoint({ supportedParameters: ["reasoning"] })).body.reasoning_effort).toBe("high");
    expect(build(reasoning, makeEndpoint({ supportedParameters: ["temperature"] })).body.reasoning_effort).toBeUndefined();
    const off = makeEndpoint({ supportedParameters: ["reasoning"] }, { quirks: { maxTokensField: "max_tokens", streamUsage: true, reasoningEffort: false, inlineImageUrls: false } });
    expect(build(reasoning, off).body.reasoning_effort).toBeUndefined();
  });

  test("a thinking budget becomes the nearest effort (low < 4096 <= medium < 12288 <= high); adaptive thinking is medium", () => {
    const capable = makeEndpoint({ supportedParameters: ["reasoning"] });
    const effortFor = (reasoning: NonNullable<Parameters<typeof makeRequest>[0]>["reasoning"]) => build({ reasoning }, capable).body.reasoning_effort;
    expect([1024, 2048, 4095, 4096, 8192, 12287, 12288, 16384, 32000].map((maxTokens) => effortFor({ enabled: true, maxTokens }))).toEqual([
      "low", "low", "low", "medium", "medium", "medium", "high", "high", "high",
    ]);
    expect(effortFor({ enabled: true })).toBe("medium");
    expect(effortFor({ enabled: true, maxTokens: 30000, effort: "low" })).toBe("low");
    expect(effortFor({ enabled: false, maxTokens: 30000 })).toBeUndefined();
    expect(effortFor({ exclude: true })).toBeUndefined();
  });

  test("context edits other than clearing thinking (which this wire never replays) are reported", () => {
    const clearThinking = { type: "clear_thinking_20251015", keep: "all" };
    expect(build({ contextManagement: { edits: [clearThinking] } }).warnings).toBeUndefined();
    const request = build({ contextManagement: { edits: [clearThinking, { type: "clear_tool_uses_20250919" }] } });
    expect(request.body.context_management).toBeUndefined();
    expect(request.warnings).toEqual([`context_management: edits clear_tool_uses_20250919 are not applied by ${makeEndpoint().key}`]);
  });

  test("reasoning an endpoint cannot take is reported in warnings, never silently dropped", () => {
    const reasoning = { reasoning: { enabled: true, maxTokens: 2048 } };
    const plain = build(reasoning, makeEndpoint({ supportedParameters: ["temperature"] }));
    expect(plain.body.reasoning_effort).toBeUndefined();
    expect(plain.warnings).toEqual([`reasoning: ${makeEndpoint().key} takes no reasoning effort; effort low was not sent`]);
    expect(build(reasoning, makeEndpoint({ supportedParameters: ["reasoning"] })).warnings).toBeUndefined();
    expect(build({}, makeEndpoint({ supportedParameters: ["temperature"] })).warnings).toBeUndefined();
  });

  test("a json_schema response format keeps its name, schema and strictness", () => {
    const body = build({ responseFormat: { type: "json_schema", name: "city", schema: { type: "object" }, strict: true } }).body;
    expect(body.response_format).toEqual({ type: "json_schema", json_schema: { name: "city", schema: { type: "object" }, strict: true } });
  });
});

describe("buildRequest: tools, images and tool results", () => {
  test("function tools in OpenAI's shape, with tool_choice and parallel_tool_calls", () => {
    const body = build({ tools: [WEATHER, { type: "function", name: "noop" }], toolChoice: { name: "get_weather" }, parallelToolCalls: false }).body;
    expect(body.tools).toEqual([
      { type: "function", function: { name: "get_weather", description: "Weather in a city", parameters: WEATHER.parameters } },
      { type: "function", function: { name: "noop", parameters: { type: "object", properties: {} } } },
    ]);
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } });
    expect(body.parallel_tool_calls).toBe(false);
  });

  test("tool_choice without tools is not sent (servers reject it)", () => {
    const body = build({ toolChoice: "required" }).body;
    expect(body.tool_choice).toBeUndefined();
    expect(body.tools).toBeUndefined();
  });

  test("an image part becomes an image_url part next to the text", () => {
    const body = build({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is in it?" },
            { type: "image", url: "data:image/jpeg;base64,/9j/4AAQ", detail: "high" },
          ],
        },
      ],
    }).body;
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is in it?" },
          { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ", detail: "high" } },
        ],
      },
    ]);
  });

  test("several text parts become one string with a line between them, never run together", () => {
    const body = build({
      messages: [
        { role: "system", content: [{ type: "text", text: "You are terse." }, { type: "text", text: "Answer in Norwegian." }] },
        { role: "user", content: [{ type: "text", text: "Hello" }, { type: "text", text: "world" }] },
      ],
    }).body;
    expect(body.messages).toEqual([
      { role: "system", content: "You are terse.\nAnswer in Norwegian." },
      { role: "user", content: "Hello\nworld" },
    ]);
  });

  test("an assistant tool call and its result become tool_calls and a tool message", () => {
    const body = build({
      tools: [WEATHER],
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather?" }] },
        {
          role: "assistant",
          content: [],
          reasoning: [{ text: "Need the tool." }],
          toolCalls: [{ id: "call_1", name: "get_weather", arguments: '{"city":"Oslo"}' }],
        },
        { role: "tool", toolCallId: "call_1", content: [{ type: "text", text: "12°C" }] },
      ],
    }).body;
    expect(body.messages).toEqual([
      { role: "user", content: "Weather?" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }] },
      { role: "tool", tool_call_id: "call_1", content: "12°C" },
    ]);
  });
});

describe("parseError through the one upstream error path", () => {
  const endpoint = makeEndpoint({}, { slug: "openai", name: "OpenAI" });

  test("429 is rate_limited with the upstream's retry-after and message", async () => {
    const error = upstreamError(endpoint, 429, adapter.parseError(await fixtureText("openai-error-429.json")), new Headers({ "retry-after": "2" }));
    expect(error.status).toBe(429);
    expect(error.retryAfter).toBe(2);
    expect(error.errorType).toBe("rate_limit_exceeded");
    expect(error.message).toContain("Rate limit reached");
    expect(error.metadata).toMatchObject({ provider: "openai", provider_code: "rate_limit_exceeded", upstream_status: 429 });
  });

  test("retry-after-ms is read as well", async () => {
    const error = upstreamError(endpoint, 429, adapter.parseError(await fixtureText("openai-error-429.json")), new Headers({ "retry-after-ms": "1500" }));
    expect(error.retryAfter).toBe(1.5);
  });

  test("401 is a 502 that neither says what the upstream said nor carries its body", async () => {
    const body = await fixtureText("openai-error-401.json");
    const error = upstreamError(endpoint, 401, adapter.parseError(body), new Headers());
    expect(error.status).toBe(502);
    expect(error.message).toBe("OpenAI rejected the gateway's credentials");
    expect(JSON.stringify(error.metadata)).not.toContain("sk-proj");
    expect(error.metadata).toMatchObject({ provider_code: "invalid_api_key", upstream_status: 401 });
  });

  test("a context-length 400 is a bad request typed context_length_exceeded (OpenAI and vLLM bodies)", async () => {
    for (const name of ["openai-error-context.json", "vllm-error-context.json"]) {
      const error = upstreamError(makeEndpoint(), 400, adapter.parseError(await fixtureText(name)), new Headers());
      expect(error.status).toBe(400);
      expect(error.errorType).toBe("context_length_exceeded");
      expect(error.message).toContain("maximum context length");
    }
  });

  test("llama.cpp loading the model is a 503 naming the upstream's error type", async () => {
    const error = upstreamError(makeEndpoint(), 503, adapter.parseError(await fixtureText("llamacpp-error-loading.json")), new Headers());
    expect(error.status).toBe(503);
    expect(error.metadata).toMatchObject({ provider_code: "unavailable_error" });
  });

  test("a non-JSON body (a proxy's HTML page) is reduced to the status", () => {
    const error = upstreamError(makeEndpoint(), 502, adapter.parseError("<html><body>502 Bad Gateway nginx/1.25</body></html>"), new Headers());
    expect(error.status).toBe(502);
    expect(error.message).not.toContain("nginx");
  });
});
