import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { type InferenceRig, startInferenceRig, WEATHER_FUNCTION, WEATHER_TOOL } from "./helpers/inference.ts";

/** Cross-style: the `openai` SDK (chat and responses) against `test/claude`, an Anthropic upstream. */
let rig: InferenceRig;
let client: OpenAI;

beforeAll(async () => {
  rig = await startInferenceRig();
  client = new OpenAI({ baseURL: `${rig.gateway.url}/api/v1`, apiKey: rig.key, maxRetries: 0 });
});

afterAll(async () => {
  await rig.stop();
});

beforeEach(() => rig.reset());

const hello: ChatCompletionMessageParam[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "hi" },
];

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

describe("openai chat → Anthropic upstream", () => {
  test("text answer; the upstream gets its model, x-api-key, the system prompt and the endpoint's max output", async () => {
    const completion = await client.chat.completions.create({ model: "test/claude", messages: hello });
    expect(completion.choices[0]!.message.content).toBe("Hello from upstream");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    const received = rig.last(rig.anthropic);
    expect(received.path).toBe("/v1/messages");
    expect(received.headers["x-api-key"]).toBe("upstream-anthropic-key");
    expect(received.headers.authorization).toBeUndefined();
    expect(received.body).toMatchObject({ model: "claude-upstream", max_tokens: 8192, system: [{ type: "text", text: "Be brief." }] });
    expect(received.body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
  });

  test("max_tokens from the client is Anthropic's max_tokens", async () => {
    await client.chat.completions.create({ model: "test/claude", messages: hello, max_tokens: 300 });
    expect(rig.last(rig.anthropic).body.max_tokens).toBe(300);
  });

  test("tools are translated to input_schema and tool_use comes back as tool_calls", async () => {
    const completion = await client.chat.completions.create({ model: "test/claude", messages: hello, tools: [WEATHER_TOOL], tool_choice: "required" });
    expect(rig.last(rig.anthropic).body).toMatchObject({
      tools: [{ name: "get_weather", description: "Weather in a city", input_schema: WEATHER_TOOL.function.parameters }],
      tool_choice: { type: "any" },
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.tool_calls).toHaveLength(1);
    const call = choice.message.tool_calls![0]!;
    expect(call).toMatchObject({ id: "toolu_up_1", type: "function", function: { name: "get_weather" } });
    expect(JSON.parse((call as { function: { arguments: string } }).function.arguments)).toEqual({ city: "Oslo" });
  });

  test("a tool result fed back becomes a tool_result block after a tool_use block", async () => {
    const completion = await client.chat.completions.create({
      model: "test/claude",
      tools: [WEATHER_TOOL],
      messages: [
        { role: "user", content: "Weather?" },
        { role: "assistant", content: null, tool_calls: [{ id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }] },
        { role: "tool", tool_call_id: "toolu_1", content: "12°C" },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe("Hello from upstream");
    const messages = rig.last(rig.anthropic).body.messages;
    expect(messages[1]).toEqual({ role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Oslo" } }] });
    expect(messages[2]).toMatchObject({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1" }] });
  });

  test("reasoning asked for enables thinking, and the thinking comes back as message.reasoning", async () => {
    rig.anthropic.behave({ reasoning: "Let me consider." });
    const completion = await client.chat.completions.create({
      model: "test/claude",
      messages: hello,
      reasoning_effort: "low",
    });
    expect(rig.last(rig.anthropic).body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    const message = completion.choices[0]!.message as { reasoning?: string; content: string | null };
    expect(message.reasoning).toBe("Let me consider.");
    expect(message.content).toBe("Hello from upstream");
  });

  test("usage maps Anthropic's cache reads and writes into prompt tokens", async () => {
    rig.anthropic.behave({ usage: { input: 100, output: 10, cacheRead: 50, cacheWrite: 20 } });
    const completion = await client.chat.completions.create({ model: "test/claude", messages: hello });
    expect(completion.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 50 } });
    // 30 uncached × $3 + 50 read × $0.3 + 20 written × $3.75 + 10 × $15, per million
    expect((completion.usage as unknown as { cost: number }).cost).toBeCloseTo(0.00033, 12);
  });

  test("a stream with a tool call assembles by index and ends with tool_calls", async () => {
    const chunks = await collect<ChatCompletionChunk>(
      await client.chat.completions.create({ model: "test/claude", messages: hello, tools: [WEATHER_TOOL], stream: true }),
    );
    const deltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]).toMatchObject({ index: 0, id: "toolu_up_1", function: { name: "get_weather" } });
    expect(deltas.every((delta) => delta.index === 0)).toBe(true);
    expect(JSON.parse(deltas.map((delta) => delta.function?.arguments ?? "").join(""))).toEqual({ city: "Oslo" });
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("tool_calls");
  });

  test("the .stream() helper's final completion carries streamed thinking as reasoning", async () => {
    rig.anthropic.behave({ reasoning: "Step by step." });
    const stream = client.chat.completions.stream({ model: "test/claude", messages: hello, reasoning_effort: "low" });
    const chunks: string[] = [];
    stream.on("chunk", (chunk) => {
      const reasoning = (chunk.choices[0]?.delta as { reasoning?: string } | undefined)?.reasoning;
      if (reasoning) chunks.push(reasoning);
    });
    const final = await stream.finalChatCompletion();
    expect(chunks.join("")).toBe("Step by step.");
    expect(final.choices[0]!.message.content).toBe("Hello from upstream");
  });
});

describe("openai responses → Anthropic upstream", () => {
  test("output_text, and instructions become Anthropic's system", async () => {
    const response = await client.responses.create({ model: "test/claude", input: "hi", instructions: "Be brief.", max_output_tokens: 500 });
    expect(response.output_text).toBe("Hello from upstream");
    expect(rig.last(rig.anthropic).body).toMatchObject({ system: [{ type: "text", text: "Be brief." }], max_tokens: 500 });
  });

  test("function tools become Anthropic tools and tool_use a function_call item", async () => {
    const response = await client.responses.create({ model: "test/claude", input: "Weather?", tools: [WEATHER_FUNCTION] });
    expect(rig.last(rig.anthropic).body.tools).toEqual([
      { name: "get_weather", description: "Weather in a city", input_schema: WEATHER_FUNCTION.parameters },
    ]);
    const call = response.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({ call_id: "toolu_up_1", name: "get_weather" });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ city: "Oslo" });
  });

  test("reasoning effort enables thinking, which comes back as a reasoning item with its signature", async () => {
    rig.anthropic.behave({ reasoning: "Let me consider." });
    const response = await client.responses.create({ model: "test/claude", input: "hi", reasoning: { effort: "low" } });
    expect(rig.last(rig.anthropic).body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "message"]);
    expect(response.output[0]).toMatchObject({ summary: [{ type: "summary_text", text: "Let me consider." }], signature: "sig-up-1" });
  });

  test("a reasoning item replayed in input goes back upstream as a signed thinking block", async () => {
    rig.anthropic.behave({ reasoning: "Let me consider." });
    const first = await client.responses.create({ model: "test/claude", input: "Weather?", tools: [WEATHER_FUNCTION], reasoning: { effort: "low" } });
    rig.reset();
    const call = first.output.find((item) => item.type === "function_call") as { call_id: string };
    await client.responses.create({
      model: "test/claude",
      tools: [WEATHER_FUNCTION],
      reasoning: { effort: "low" },
      input: [
        { role: "user", content: "Weather?" },
        ...(first.output as never[]),
        { type: "function_call_output", call_id: call.call_id, output: "12°C" },
      ],
    });
    const assistant = rig.last(rig.anthropic).body.messages[1];
    expect(assistant.content[0]).toEqual({ type: "thinking", thinking: "Let me consider.", signature: "sig-up-1" });
    expect(assistant.content[1]).toMatchObject({ type: "tool_use", id: "toolu_up_1" });
  });

  test("a stream carries reasoning summary deltas, text deltas and a completed response", async () => {
    rig.anthropic.behave({ reasoning: "Let me consider." });
    const events = await collect<ResponseStreamEvent>(
      await client.responses.create({ model: "test/claude", input: "hi", reasoning: { effort: "low" }, stream: true }),
    );
    const text = (type: string) => events.flatMap((event) => (event.type === type ? [(event as { delta: string }).delta] : [])).join("");
    expect(text("response.reasoning_summary_text.delta")).toBe("Let me consider.");
    expect(text("response.output_text.delta")).toBe("Hello from upstream");
    const completed = events.at(-1)!;
    expect(completed.type).toBe("response.completed");
    expect((completed as { response: { output_text?: string; output: unknown[] } }).response.output).toHaveLength(2);
  });

  test("responses.stream().finalResponse() with a tool call", async () => {
    const final = await client.responses.stream({ model: "test/claude", input: "Weather?", tools: [WEATHER_FUNCTION] }).finalResponse();
    const call = final.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", name: "get_weather", call_id: "toolu_up_1" });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ city: "Oslo" });
  });
});
