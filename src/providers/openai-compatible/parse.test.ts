import { describe, expect, test } from "bun:test";
import { ResponseAccumulator } from "../../core/accumulate.ts";
import type { GatewayError } from "../../core/errors.ts";
import { openAiCompatibleAdapter } from "./adapter.ts";

const adapter = openAiCompatibleAdapter.chat;
import { fixtureJson, joined, makeEndpoint, replayStream } from "./test-support.ts";

/** Recorded bodies and streams of OpenAI, vLLM, Ollama and llama.cpp → canonical responses and parts. */

describe("parseResponse", () => {
  test("OpenAI text: the text, finish, ids and usage with cached tokens", async () => {
    const response = adapter.parseResponse(await fixtureJson("openai-chat-text.json"), makeEndpoint());
    expect(response).toEqual({
      output: [{ type: "text", text: "Oslo is the capital of Norway." }],
      finishReason: "stop",
      nativeFinishReason: "stop",
      upstreamId: "chatcmpl-CbXq9rT2pL0kVb3nYw8sQ1mZ4eRd",
      upstreamModel: "gpt-4.1-mini-2025-04-14",
      usage: { inputTokens: 1420, outputTokens: 9, cacheReadTokens: 1280, cacheWriteTokens: 0, reasoningTokens: 0 },
    });
  });

  test("OpenAI parallel tool calls, in order, with reasoning tokens", async () => {
    const response = adapter.parseResponse(await fixtureJson("openai-chat-parallel-tools.json"), makeEndpoint());
    expect(response.output).toEqual([
      { type: "tool-call", call: { id: "call_Jx1dW9pQm3ZkR7aB", name: "get_weather", arguments: '{"city":"Oslo"}' } },
      { type: "tool-call", call: { id: "call_T5vN2cLh8YsE0qUf", name: "get_weather", arguments: '{"city":"Bergen"}' } },
    ]);
    expect(response.finishReason).toBe("tool_calls");
    expect(response.usage?.reasoningTokens).toBe(128);
  });

  test("vLLM reasoning_content becomes a reasoning block before the text; a null details object is fine", async () => {
    const response = adapter.parseResponse(await fixtureJson("vllm-chat-reasoning.json"), makeEndpoint());
    expect(response.output).toEqual([
      { type: "reasoning", part: { text: "The user asks for 17 * 3. 17 * 3 = 51." } },
      { type: "text", text: "17 × 3 = 51." },
    ]);
    expect(response.usage).toEqual({ inputTokens: 18, outputTokens: 34, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
  });

  test("Ollama's `reasoning` field is reasoning too", async () => {
    const response = adapter.parseResponse(await fixtureJson("ollama-chat-reasoning.json"), makeEndpoint());
    expect(response.output[0]).toEqual({ type: "reasoning", part: { text: "Short answer wanted; mention Rayleigh scattering." } });
    expect(response.output[1]).toMatchObject({ type: "text" });
  });

  test("llama.cpp length finish maps to length; its timings are ignored", async () => {
    const response = adapter.parseResponse(await fixtureJson("llamacpp-chat-length.json"), makeEndpoint());
    expect(response.finishReason).toBe("length");
    expect(response.usage).toMatchObject({ inputTokens: 25, outputTokens: 16 });
  });

  test("content given as an array of parts keeps its text", () => {
    const body = {
      id: "x",
      choices: [{ index: 0, message: { role: "assistant", content: [{ type: "text", text: "Hello " }, { type: "text", text: "there" }] }, finish_reason: "stop" }],
    };
    expect(adapter.parseResponse(body, makeEndpoint()).output).toEqual([{ type: "text", text: "Hello there" }]);
  });

  test("an answer without a finish reason did not finish: its content is kept, reported as error", () => {
    for (const finish of [null, undefined, ""]) {
      const body = { id: "x", choices: [{ index: 0, message: { role: "assistant", content: "Half an ans" }, finish_reason: finish }] };
      const response = adapter.parseResponse(body, makeEndpoint());
      expect(response.finishReason).toBe("error");
      expect(response.nativeFinishReason).toBeUndefined();
      expect(response.output).toEqual([{ type: "text", text: "Half an ans" }]);
    }
  });

  test("tool calls with finish_reason stop are reported as tool_calls", () => {
    const body = {
      choices: [{ index: 0, message: { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: { a: 1 } } }] }, finish_reason: "stop" }],
    };
    const response = adapter.parseResponse(body, makeEndpoint());
    expect(response.finishReason).toBe("tool_calls");
    expect(response.nativeFinishReason).toBe("stop");
    expect(response.output).toEqual([{ type: "tool-call", call: { id: "c1", name: "f", arguments: '{"a":1}' } }]);
  });

  test("a 200 body without choices is an invalid response; one with an error object is that error", () => {
    expect(() => adapter.parseResponse({ object: "list" }, makeEndpoint())).toThrow("invalid response");
    let thrown: GatewayError | undefined;
    try {
      adapter.parseResponse({ error: { message: "upstream overloaded", code: 503 } }, makeEndpoint());
    } catch (error) {
      thrown = error as GatewayError;
    }
    expect(thrown?.status).toBe(503);
  });
});

describe("createStreamParser", () => {
  test("OpenAI text: start, deltas, then usage and finish held until [DONE]", async () => {
    const parts = await replayStream("openai-stream-text.sse");
    expect(parts[0]).toEqual({ type: "start", upstreamId: "chatcmpl-CbXs4kPq2Lw9nRt0YzVb7mEa1XcD", upstreamModel: "gpt-4.1-mini-2025-04-14" });
    expect(joined(parts, "text-delta")).toBe("Oslo is the capital.");
    expect(parts.slice(-2)).toEqual([
      { type: "usage", usage: { inputTokens: 1420, outputTokens: 5, cacheReadTokens: 1280, cacheWriteTokens: 0, reasoningTokens: 0 } },
      { type: "finish", reason: "stop", nativeReason: "stop" },
    ]);
  });

  test("OpenAI parallel tool calls: interleaved argument deltas land on the right call", async () => {
    const accumulator = new ResponseAccumulator();
    for (const part of await replayStream("openai-stream-parallel-tools.sse")) accumulator.add(part);
    expect(accumulator.output).toEqual([
      { type: "tool-call", call: { id: "call_Jx1dW9pQm3ZkR7aB", name: "get_weather", arguments: '{"city": "Oslo"}' } },
      { type: "tool-call", call: { id: "call_T5vN2cLh8YsE0qUf", name: "get_weather", arguments: '{"city": "Bergen"}' } },
    ]);
    expect(accumulator.finishReason).toBe("tool_calls");
  });

  test("vLLM reasoning_content deltas come before the text deltas", async () => {
    const parts = await replayStream("vllm-stream-reasoning.sse");
    expect(joined(parts, "reasoning-delta")).toBe("17 * 3 = 51.");
    expect(joined(parts, "text-delta")).toBe("\n\n51");
    const kinds = parts.map((part) => part.type);
    expect(kinds.lastIndexOf("reasoning-delta")).toBeLessThan(kinds.indexOf("text-delta"));
    expect(parts.at(-1)).toEqual({ type: "finish", reason: "stop", nativeReason: "stop" });
  });

  test("Ollama: a tool call whole in one chunk and no [DONE]; finish comes from end(), as tool_calls", async () => {
    const parts = await replayStream("ollama-stream-tool-call.sse");
    expect(parts).toEqual([
      { type: "start", upstreamId: "chatcmpl-412", upstreamModel: "llama3.2" },
      { type: "tool-call-start", index: 0, id: "call_4fz1k2ph", name: "get_weather" },
      { type: "tool-call-delta", index: 0, argumentsDelta: '{"city":"Oslo"}' },
      { type: "usage", usage: { inputTokens: 164, outputTokens: 18, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
      { type: "finish", reason: "tool_calls", nativeReason: "stop" },
    ]);
  });

  test("llama.cpp: null content, and usage in the same chunk as the finish reason", async () => {
    const parts = await replayStream("llamacpp-stream.sse");
    expect(joined(parts, "text-delta")).toBe("Hei på deg!");
    expect(parts.slice(-2)).toEqual([
      { type: "usage", usage: { inputTokens: 21, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
      { type: "finish", reason: "stop", nativeReason: "stop" },
    ]);
  });

  test("a stream with no finish reason yields no finish (the engine reports it cut)", async () => {
    const parts = await replayStream("openai-stream-cut.sse");
    expect(joined(parts, "text-delta")).toBe("Once upon a time");
    expect(parts.some((part) => part.type === "finish" || part.type === "usage")).toBe(false);
  });

  test("[DONE] without a finish reason does not invent one", () => {
    const parser = adapter.createStreamParser(makeEndpoint());
    parser.parse({ data: JSON.stringify({ id: "a", choices: [{ index: 0, delta: { content: "x" }, finish_reason: null }] }) });
    expect(parser.parse({ data: "[DONE]" })).toEqual([]);
    expect(parser.end()).toEqual([]);
  });

  test("vLLM's mid-stream error chunk is an error part with its status, and nothing after it", async () => {
    const parts = await replayStream("vllm-stream-error.sse");
    expect(joined(parts, "text-delta")).toBe("Partial");
    const last = parts.at(-1)!;
    expect(last.type).toBe("error");
    const error = (last as { error: GatewayError }).error;
    expect(error.status).toBe(502);
    expect(error.metadata).toMatchObject({ provider_code: "InternalServerError", upstream_status: 500 });
  });

  test("a chunk that is not JSON is a malformed-stream error", () => {
    const parser = adapter.createStreamParser(makeEndpoint());
    const [part] = parser.parse({ data: "{not json" });
    expect(part?.type).toBe("error");
    expect((part as { error: GatewayError }).error.metadata).toMatchObject({ provider_code: "malformed_stream" });
  });

  test("tool-call deltas without an index continue the open call, and a new id starts the next", () => {
    const parser = adapter.createStreamParser(makeEndpoint());
    const chunk = (call: Record<string, unknown>) => ({
      data: JSON.stringify({ id: "g", choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] }),
    });
    const parts = [
      ...parser.parse(chunk({ id: "a", type: "function", function: { name: "f", arguments: '{"x":' } })),
      ...parser.parse(chunk({ function: { arguments: "1}" } })),
      ...parser.parse(chunk({ id: "b", type: "function", function: { name: "g", arguments: "{}" } })),
    ];
    const accumulator = new ResponseAccumulator();
    for (const part of parts) accumulator.add(part);
    expect(accumulator.output).toEqual([
      { type: "tool-call", call: { id: "a", name: "f", arguments: '{"x":1}' } },
      { type: "tool-call", call: { id: "b", name: "g", arguments: "{}" } },
    ]);
  });
});
