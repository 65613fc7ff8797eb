import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import type { ChatResult, ChatStreamChunk, OpenResponsesResult, StreamEvents } from "@openrouter/sdk/models";
import { type InferenceRig, startInferenceRig, WEATHER_FUNCTION, WEATHER_TOOL } from "./helpers/inference.ts";

/** The real @openrouter/sdk (strict zod parsing of every body and chunk) against a listening gateway. */
let rig: InferenceRig;
let sdk: OpenRouter;

beforeAll(async () => {
  rig = await startInferenceRig();
  sdk = new OpenRouter({ apiKey: rig.key, serverURL: `${rig.gateway.url}/api/v1`, retryConfig: { strategy: "none" } });
});

afterAll(async () => {
  await rig.stop();
});

beforeEach(() => rig.reset());

const hello = [{ role: "user" as const, content: "hi" }];

async function collect<T>(stream: unknown): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream as AsyncIterable<T>) items.push(item);
  return items;
}

async function streamChat(request: Record<string, unknown>): Promise<ChatStreamChunk[]> {
  return collect<ChatStreamChunk>(await sdk.chat.send({ chatRequest: { model: "test/gpt", messages: hello, ...request, stream: true } } as never));
}

function content(chunks: ChatStreamChunk[]): string {
  return chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
}

/** Generation records are written behind the response; a read may race the write for a moment. */
async function generation(id: string) {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await sdk.generations.getGeneration({ id })).data;
    } catch (error) {
      if (attempt >= 20) throw error;
      await Bun.sleep(25);
    }
  }
}

describe("@openrouter/sdk: chat.send", () => {
  test("stream false: a schema-valid ChatResult with the text and usage", async () => {
    const result = (await sdk.chat.send({ chatRequest: { model: "test/gpt", messages: hello, stream: false } })) as ChatResult;
    expect(result.choices[0]!.message.content).toBe("Hello from upstream");
    expect(result.choices[0]!.finishReason).toBe("stop");
    expect(result.systemFingerprint).toBeNull();
    expect(result.usage).toMatchObject({ promptTokens: 12, completionTokens: 5, totalTokens: 17 });
  });

  test("stream true: chunks parse and join into the answer, ending with finishReason stop", async () => {
    const chunks = await streamChat({});
    expect(content(chunks)).toBe("Hello from upstream");
    expect(chunks.at(-1)!.choices[0]!.finishReason).toBe("stop");
    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk")).toBe(true);
  });

  test("stream true with tools, reasoning and usage: every chunk parses (no ZodError)", async () => {
    rig.openai.behave({ reasoning: "Think hard." });
    const chunks = await streamChat({ tools: [WEATHER_TOOL], reasoning: { effort: "low" }, streamOptions: { includeUsage: true } });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.reasoning ?? "").join("")).toBe("Think hard.");
    const calls = chunks.flatMap((chunk) => chunk.choices[0]?.delta.toolCalls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, id: "call_up_1", function: { name: "get_weather" } });
    expect(calls.map((call) => call.function?.arguments ?? "").join("")).toBe('{"city":"Oslo"}');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { promptTokens: 12, completionTokens: 5, totalTokens: 17 } });
  });

  test("stream true from an Anthropic upstream with signed thinking parses", async () => {
    const chunks = await streamChat({ model: "test/claude", reasoning: { effort: "low" } });
    const details = chunks.flatMap((chunk) => chunk.choices[0]?.delta.reasoningDetails ?? []);
    expect(details.some((detail) => "signature" in detail && detail.signature === "sig-up-1")).toBe(true);
    expect(content(chunks)).toBe("Hello from upstream");
  });

  test("a stream cut mid-way ends with an error chunk the SDK parses, keeping the partial text", async () => {
    rig.openai.behave({ cutAfter: 2, chunkDelayMs: 5 });
    const chunks = await streamChat({});
    // The cut discards what the upstream had queued but not flushed, so only a prefix is certain.
    expect(content(chunks)).toStartWith("Hello");
    expect(content(chunks)).not.toBe("Hello from upstream");
    const last = chunks.at(-1)!;
    expect(last.choices[0]!.finishReason).toBe("error");
    expect(last.error).toMatchObject({ code: 502, metadata: { errorType: "provider_unavailable" } });
  });
});

describe("@openrouter/sdk: responses.send", () => {
  test("stream false: a schema-valid result with output text and usage", async () => {
    const result = (await sdk.responses.send({ responsesRequest: { model: "test/gpt", input: "hi" } })) as OpenResponsesResult;
    expect(result.status).toBe("completed");
    expect(result.output[0]).toMatchObject({ type: "message", content: [{ type: "output_text", text: "Hello from upstream" }] });
    expect(result.usage).toMatchObject({ inputTokens: 12, outputTokens: 5, totalTokens: 17 });
  });

  test("the SDK's default service_tier and store: false are accepted", async () => {
    await sdk.responses.send({ responsesRequest: { model: "test/gpt", input: "hi" } });
    expect(rig.last(rig.openai).body.model).toBe("gpt-upstream");
  });

  test("stream true: every event is typed (none UNKNOWN) and text deltas join into the answer", async () => {
    const events = await collect<StreamEvents>(await sdk.responses.send({ responsesRequest: { model: "test/gpt", input: "hi", stream: true } }));
    expect(events.filter((event) => !String(event.type).startsWith("response."))).toEqual([]);
    const deltas = events.flatMap((event) => (event.type === "response.output_text.delta" ? [event.delta] : []));
    expect(deltas.join("")).toBe("Hello from upstream");
    expect(events.at(-1)!.type).toBe("response.completed");
  });

  test("stream true with reasoning and a function call from Anthropic: every event is typed", async () => {
    const events = await collect<StreamEvents>(
      await sdk.responses.send({
        responsesRequest: { model: "test/claude", input: "Weather?", stream: true, reasoning: { effort: "low" }, tools: [WEATHER_FUNCTION] },
      }),
    );
    expect(events.filter((event) => !String(event.type).startsWith("response."))).toEqual([]);
    const completed = events.at(-1)!;
    expect(completed.type).toBe("response.completed");
    const output = (completed as { response: OpenResponsesResult }).response.output;
    expect(output.map((item) => item.type)).toEqual(["reasoning", "function_call"]);
  });
});

describe("@openrouter/sdk: callModel", () => {
  test("getText() returns the answer from the completed event", async () => {
    expect(await sdk.callModel({ model: "test/gpt", input: "hi" }).getText()).toBe("Hello from upstream");
  });

  test("getText() works against an Anthropic upstream", async () => {
    rig.anthropic.behave({ text: "Bonjour from Claude" });
    expect(await sdk.callModel({ model: "test/claude", input: "hi" }).getText()).toBe("Bonjour from Claude");
  });
});

describe("@openrouter/sdk: generations.getGeneration", () => {
  test("a chat request's generation has its tokens, cached tokens and cost", async () => {
    rig.openai.behave({ usage: { input: 100, output: 40, cacheRead: 60, reasoning: 10 } });
    const result = (await sdk.chat.send({ chatRequest: { model: "test/gpt", messages: hello } })) as ChatResult;
    const record = await generation(result.id);
    expect(record).toMatchObject({
      id: result.id,
      model: "test/gpt",
      tokensPrompt: 100,
      tokensCompletion: 40,
      nativeTokensCached: 60,
      nativeTokensReasoning: 10,
      streamed: false,
      finishReason: "stop",
    });
    expect(record.totalCost).toBeCloseTo(0.00015, 12);
  });

  test("a streamed request's generation records usage although the client did not ask for it", async () => {
    const chunks = await streamChat({});
    const record = await generation(chunks[0]!.id);
    expect(record).toMatchObject({ streamed: true, tokensPrompt: 12, tokensCompletion: 5, finishReason: "stop" });
    expect(record.totalCost).toBeGreaterThan(0);
  });

  test("a responses request's generation is found by the response id", async () => {
    const result = (await sdk.responses.send({ responsesRequest: { model: "test/claude", input: "hi" } })) as OpenResponsesResult;
    const record = await generation(result.id);
    expect(record).toMatchObject({ model: "test/claude", providerName: "local-anthropic", tokensPrompt: 12, tokensCompletion: 5 });
    expect(record.totalCost).toBeGreaterThan(0);
  });
});
