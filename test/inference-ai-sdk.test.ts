import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createOpenRouter } from "@openrouter/ai-sdk-provider";
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";
import { type InferenceSetup, startInference } from "./helpers/inference-setup.ts";

/** The Vercel AI SDK (ai 6) with @openrouter/ai-sdk-provider 2.x against a listening gateway. */
let setup: InferenceSetup;
let openrouter: ReturnType<typeof createOpenRouter>;

beforeAll(async () => {
  setup = await startInference();
  openrouter = createOpenRouter({ apiKey: setup.key, baseURL: setup.api });
});

afterAll(async () => {
  await setup.stop();
});

beforeEach(() => setup.reset());

describe("AI SDK generateText", () => {
  test("text from the OpenAI-compatible upstream, with usage numbers", async () => {
    setup.openai.behave({ text: "Hi from GPT", usage: { input: 30, output: 6, cacheRead: 10 } });
    const result = await generateText({ model: openrouter.chat("test/gpt"), prompt: "hi", maxRetries: 0 });
    expect(result.text).toBe("Hi from GPT");
    expect(result.finishReason).toBe("stop");
    expect(result.usage).toMatchObject({ inputTokens: 30, outputTokens: 6, totalTokens: 36, cachedInputTokens: 10 });
    expect(setup.openai.requests.at(-1)!.body.messages).toEqual([{ role: "user", content: "hi" }]);
  });

  test("text from the Anthropic upstream, with usage numbers", async () => {
    setup.anthropic.behave({ text: "Hi from Claude", usage: { input: 40, output: 8, cacheRead: 25 } });
    const result = await generateText({ model: openrouter.chat("test/claude"), system: "Be kind.", prompt: "hi", maxRetries: 0 });
    expect(result.text).toBe("Hi from Claude");
    expect(result.finishReason).toBe("stop");
    expect(result.usage).toMatchObject({ inputTokens: 40, outputTokens: 8, totalTokens: 48, cachedInputTokens: 25 });
    const sent = setup.anthropic.requests.at(-1)!.body;
    expect(sent.system).toEqual([{ type: "text", text: "Be kind." }]);
    expect(sent.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
  });

  test("a zod tool is called, its result fed back, and the model answers (OpenAI upstream)", async () => {
    const result = await generateText({
      model: openrouter.chat("test/gpt"),
      prompt: "Weather in Oslo?",
      maxRetries: 0,
      tools: {
        weather: tool({
          description: "Weather of a city",
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => `Sunny in ${city}`,
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.finishReason).toBe("tool-calls");
    expect(result.steps[0]!.toolCalls).toMatchObject([{ toolCallId: "call_up_1", toolName: "weather", input: { city: "Oslo" } }]);
    expect(result.text).toBe("Hello from upstream");
    const second = setup.openai.requests.at(-1)!.body;
    expect(second.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_up_1", content: "Sunny in Oslo" });
  });

  test("a jsonSchema tool call against the Anthropic upstream", async () => {
    const result = await generateText({
      model: openrouter.chat("test/claude"),
      prompt: "Weather in Oslo?",
      maxRetries: 0,
      tools: {
        weather: tool({
          description: "Weather of a city",
          inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
        }),
      },
    });
    expect(result.finishReason).toBe("tool-calls");
    expect(result.toolCalls).toMatchObject([{ toolCallId: "toolu_up_1", toolName: "weather", input: { city: "Oslo" } }]);
    const sent = setup.anthropic.requests.at(-1)!.body;
    expect(sent.tools).toMatchObject([{ name: "weather", description: "Weather of a city", input_schema: { type: "object", required: ["city"] } }]);
  });
});

describe("AI SDK streamText", () => {
  test("textStream and finishReason from the Anthropic upstream", async () => {
    setup.anthropic.behave({ text: "One two three four" });
    const result = streamText({ model: openrouter.chat("test/claude"), prompt: "count", maxRetries: 0 });
    const pieces: string[] = [];
    for await (const piece of result.textStream) pieces.push(piece);
    expect(pieces.join("")).toBe("One two three four");
    expect(pieces.length).toBeGreaterThan(1);
    expect(await result.finishReason).toBe("stop");
  });

  test("textStream and finishReason from the OpenAI-compatible upstream", async () => {
    setup.openai.behave({ text: "Streaming from GPT" });
    const result = streamText({ model: openrouter.chat("test/gpt"), prompt: "hi", maxRetries: 0 });
    const pieces: string[] = [];
    for await (const piece of result.textStream) pieces.push(piece);
    expect(pieces.join("")).toBe("Streaming from GPT");
    expect(await result.finishReason).toBe("stop");
  });

  test("a streamed tool call ends with finishReason tool-calls", async () => {
    const result = streamText({
      model: openrouter.chat("test/gpt"),
      prompt: "Weather in Oslo?",
      maxRetries: 0,
      tools: { weather: tool({ description: "Weather of a city", inputSchema: z.object({ city: z.string() }) }) },
    });
    await result.consumeStream();
    expect(await result.finishReason).toBe("tool-calls");
    expect(await result.toolCalls).toMatchObject([{ toolName: "weather", input: { city: "Oslo" } }]);
  });

  test("usage on the stream when the client asks for it (strict mode sends stream_options.include_usage)", async () => {
    const strict = createOpenRouter({ apiKey: setup.key, baseURL: setup.api, compatibility: "strict" });
    setup.anthropic.behave({ usage: { input: 21, output: 9 } });
    const result = streamText({ model: strict.chat("test/claude"), prompt: "hi", maxRetries: 0 });
    await result.consumeStream();
    expect(await result.usage).toMatchObject({ inputTokens: 21, outputTokens: 9, totalTokens: 30 });
  });

  test("a stream the upstream cuts after the first tokens ends with finishReason error, the text so far kept", async () => {
    setup.openai.behave({ text: "one two three four", cutAfter: 2, chunkDelayMs: 15 });
    const errors: unknown[] = [];
    const result = streamText({ model: openrouter.chat("test/gpt"), prompt: "hi", maxRetries: 0, onError: ({ error }) => void errors.push(error) });
    const pieces: string[] = [];
    for await (const piece of result.textStream) pieces.push(piece);
    expect(pieces.join("")).toStartWith("one");
    expect(pieces.join("")).not.toContain("four");
    expect(await result.finishReason).toBe("error");
    expect(String((errors[0] as { message?: string })?.message ?? errors[0])).toContain("closed the stream before it finished");
  });

  test("an upstream failure before the first token is an error the SDK reports with its status", async () => {
    setup.openai.behave({ status: 429, headers: { "retry-after": "1" } });
    const errors: unknown[] = [];
    const result = streamText({ model: openrouter.chat("test/gpt"), prompt: "hi", maxRetries: 0, onError: ({ error }) => void errors.push(error) });
    await result.consumeStream();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ statusCode: 429 });
  });
});
