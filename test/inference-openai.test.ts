import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { ADMIN_KEY } from "./helpers/gateway.ts";
import { type InferenceRig, startInferenceRig, WEATHER_TOOL } from "./helpers/inference.ts";

/** The real `openai` SDK's chat completions over a socket, against a fake OpenAI-compatible upstream. */
let rig: InferenceRig;
let client: OpenAI;

function sdk(apiKey: string): OpenAI {
  return new OpenAI({ baseURL: `${rig.gateway.url}/api/v1`, apiKey, maxRetries: 0 });
}

const hello: ChatCompletionMessageParam[] = [{ role: "user", content: "hi" }];

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

beforeAll(async () => {
  rig = await startInferenceRig();
  client = sdk(rig.key);
});

afterAll(async () => {
  await rig.stop();
});

beforeEach(() => rig.reset());

describe("openai SDK: chat.completions.create", () => {
  test("answers with the upstream's text under a generation id and the catalog model", async () => {
    const completion = await client.chat.completions.create({ model: "test/gpt", messages: hello });
    expect(completion.choices[0]!.message.content).toBe("Hello from upstream");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.id).toStartWith("gen-");
    expect(completion.model).toBe("test/gpt");
  });

  test("the upstream gets its own model name and the configured credential, not the client's key", async () => {
    await client.chat.completions.create({ model: "test/gpt", messages: hello });
    const received = rig.last(rig.openai);
    expect(received.path).toBe("/v1/chat/completions");
    expect(received.body.model).toBe("gpt-upstream");
    expect(received.headers.authorization).toBe("Bearer upstream-openai-key");
    expect(JSON.stringify(received.headers)).not.toContain(rig.key);
  });

  test("max_completion_tokens reaches the upstream as its max_tokens field", async () => {
    await client.chat.completions.create({ model: "test/gpt", messages: hello, max_completion_tokens: 77 });
    const body = rig.last(rig.openai).body;
    expect(body.max_tokens).toBe(77);
    expect(body.max_completion_tokens).toBeUndefined();
  });

  test("with tools the answer carries tool_calls and finish_reason tool_calls", async () => {
    const completion = await client.chat.completions.create({ model: "test/gpt", messages: hello, tools: [WEATHER_TOOL], tool_choice: "auto" });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      { id: "call_up_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
    ]);
    expect(rig.last(rig.openai).body).toMatchObject({ tools: [WEATHER_TOOL], tool_choice: "auto" });
  });

  test("a tool result fed back yields a text answer, with the call and result passed upstream", async () => {
    const completion = await client.chat.completions.create({
      model: "test/gpt",
      tools: [WEATHER_TOOL],
      messages: [
        { role: "user", content: "Weather in Oslo?" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }] },
        { role: "tool", tool_call_id: "call_1", content: "12°C and rain" },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe("Hello from upstream");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    const messages = rig.last(rig.openai).body.messages;
    expect(messages[1]).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_1", function: { name: "get_weather" } }] });
    expect(messages[2]).toEqual({ role: "tool", tool_call_id: "call_1", content: "12°C and rain" });
  });

  test("an image_url part reaches the upstream as image_url", async () => {
    const url = "data:image/png;base64,iVBORw0KGgo=";
    await client.chat.completions.create({
      model: "test/gpt",
      messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url, detail: "low" } }] }],
    });
    expect(rig.last(rig.openai).body.messages[0].content).toEqual([
      { type: "text", text: "What is this?" },
      { type: "image_url", image_url: { url, detail: "low" } },
    ]);
  });

  test("the upstream's reasoning appears as message.reasoning", async () => {
    rig.openai.behave({ reasoning: "Think first." });
    const completion = await client.chat.completions.create({ model: "test/gpt", messages: hello });
    const message = completion.choices[0]!.message as typeof completion.choices[0]["message"] & { reasoning?: string };
    expect(message.reasoning).toBe("Think first.");
    expect(message.content).toBe("Hello from upstream");
  });

  test("usage carries cached and reasoning tokens and the cost from the endpoint's pricing", async () => {
    rig.openai.behave({ usage: { input: 100, output: 40, cacheRead: 60, reasoning: 10 } });
    const completion = await client.chat.completions.create({ model: "test/gpt", messages: hello });
    const usage = completion.usage as NonNullable<typeof completion.usage> & { cost: number };
    expect(usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 40, total_tokens: 140 });
    expect(usage.prompt_tokens_details?.cached_tokens).toBe(60);
    expect(usage.completion_tokens_details?.reasoning_tokens).toBe(10);
    // 40 uncached × $1/M + 60 cached × $0.5/M + 40 completion × $2/M
    expect(usage.cost).toBeCloseTo(0.00015, 12);
  });
});

describe("openai SDK: chat.completions.create({stream: true})", () => {
  test("content deltas join into the answer and the last choice chunk has finish_reason stop", async () => {
    const chunks = await collect(await client.chat.completions.create({ model: "test/gpt", messages: hello, stream: true }));
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("Hello from upstream");
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("stop");
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
  });

  test("without stream_options.include_usage no chunk carries usage, although usage was asked upstream", async () => {
    const chunks = await collect(await client.chat.completions.create({ model: "test/gpt", messages: hello, stream: true }));
    expect(chunks.filter((chunk) => chunk.usage)).toEqual([]);
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
    expect(rig.last(rig.openai).body.stream_options).toEqual({ include_usage: true });
  });

  test("with stream_options.include_usage the last chunk is the usage chunk with empty choices", async () => {
    rig.openai.behave({ usage: { input: 20, output: 6, cacheRead: 8, reasoning: 2 } });
    const chunks = await collect(
      await client.chat.completions.create({ model: "test/gpt", messages: hello, stream: true, stream_options: { include_usage: true } }),
    );
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({
      prompt_tokens: 20,
      completion_tokens: 6,
      total_tokens: 26,
      prompt_tokens_details: { cached_tokens: 8 },
      completion_tokens_details: { reasoning_tokens: 2 },
    });
    expect((last.usage as unknown as { cost: number }).cost).toBeGreaterThan(0);
    expect(chunks.filter((chunk) => chunk.usage)).toHaveLength(1);
  });

  test("tool-call deltas assemble by index into one call, ending with finish_reason tool_calls", async () => {
    const chunks = await collect(
      await client.chat.completions.create({ model: "test/gpt", messages: hello, tools: [WEATHER_TOOL], stream: true }),
    );
    const calls: Record<number, { id?: string; name?: string; arguments: string }> = {};
    for (const chunk of chunks) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        const call = (calls[delta.index] ??= { arguments: "" });
        if (delta.id) call.id = delta.id;
        if (delta.function?.name) call.name = delta.function.name;
        call.arguments += delta.function?.arguments ?? "";
      }
    }
    expect(calls).toEqual({ 0: { id: "call_up_1", name: "get_weather", arguments: '{"city":"Oslo"}' } });
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("tool_calls");
  });

  test("reasoning streams as delta.reasoning before the content", async () => {
    rig.openai.behave({ reasoning: "Think it through." });
    const chunks = await collect(await client.chat.completions.create({ model: "test/gpt", messages: hello, stream: true }));
    const deltas = chunks.map((chunk) => chunk.choices[0]?.delta as { reasoning?: string; content?: string } | undefined);
    expect(deltas.map((delta) => delta?.reasoning ?? "").join("")).toBe("Think it through.");
    const firstContent = deltas.findIndex((delta) => (delta?.content ?? "") !== "");
    const lastReasoning = deltas.findLastIndex((delta) => (delta?.reasoning ?? "") !== "");
    expect(lastReasoning).toBeLessThan(firstContent);
  });

  test("the .stream() helper's finalChatCompletion() has the assembled message", async () => {
    const stream = client.chat.completions.stream({ model: "test/gpt", messages: hello });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message).toMatchObject({ role: "assistant", content: "Hello from upstream" });
    expect(final.choices[0]!.finish_reason).toBe("stop");
  });

  test("the .stream() helper assembles streamed tool calls in finalChatCompletion()", async () => {
    const stream = client.chat.completions.stream({ model: "test/gpt", messages: hello, tools: [WEATHER_TOOL] });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(final.choices[0]!.message.tool_calls).toMatchObject([
      { id: "call_up_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
    ]);
  });
});

describe("chat: streaming is decided by the body, not by Accept", () => {
  const post = (body: Record<string, unknown>, accept: string) =>
    fetch(`${rig.gateway.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${rig.key}`, "content-type": "application/json", accept },
      body: JSON.stringify({ model: "test/gpt", messages: hello, ...body }),
    });

  test("stream: true with Accept: application/json streams SSE", async () => {
    const response = await post({ stream: true }, "application/json");
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    expect(await response.text()).toContain("data: [DONE]");
  });

  test("no stream with Accept: text/event-stream answers JSON", async () => {
    const response = await post({}, "text/event-stream");
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expect((await response.json()).object).toBe("chat.completion");
  });
});

describe("openai SDK: chat errors", () => {
  test("a management key gets 403 PermissionDeniedError", async () => {
    const error = await sdk(ADMIN_KEY).chat.completions.create({ model: "test/gpt", messages: hello }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(error.status).toBe(403);
    expect(rig.openai.requests).toHaveLength(0);
  });

  test("an unknown model is a 400 BadRequestError naming the model", async () => {
    const error = await client.chat.completions.create({ model: "nobody/nothing", messages: hello }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.status).toBe(400);
    expect(error.message).toContain("nobody/nothing");
  });

  test("a stream cut mid-way throws an APIError while iterating, after the partial text", async () => {
    rig.openai.behave({ cutAfter: 2, chunkDelayMs: 5 });
    const stream = await client.chat.completions.create({ model: "test/gpt", messages: hello, stream: true });
    let text = "";
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })().catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(text).toStartWith("Hello");
    expect(text).not.toBe("Hello from upstream");
  });

  test("an upstream 429 is a RateLimitError carrying the upstream's retry-after", async () => {
    rig.openai.behave({ status: 429, headers: { "retry-after": "7" }, errorBody: { error: { message: "slow down", type: "requests", code: "rate_limit_exceeded" } } });
    const error = await client.chat.completions.create({ model: "test/gpt", messages: hello }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.headers.get("retry-after")).toBe("7");
  });

  test("an upstream 401 is a 502 that does not pass on what the upstream said about its credentials", async () => {
    rig.openai.behave({
      status: 401,
      errorBody: { error: { message: "Incorrect API key provided: upstream-****-key", type: "invalid_request_error", code: "invalid_api_key" } },
    });
    const error = await client.chat.completions.create({ model: "test/gpt", messages: hello }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.status).toBe(502);
    expect(JSON.stringify(error.error)).not.toContain("Incorrect API key");
    expect(error.message).not.toContain("upstream-****-key");
  });
});
