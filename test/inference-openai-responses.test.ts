import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { type InferenceRig, startInferenceRig, WEATHER_FUNCTION } from "./helpers/inference.ts";

/** The real `openai` SDK's Responses API over a socket, against a fake OpenAI-compatible upstream. */
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

async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function ofType<T extends ResponseStreamEvent["type"]>(events: ResponseStreamEvent[], type: T) {
  return events.filter((event): event is Extract<ResponseStreamEvent, { type: T }> => event.type === type);
}

describe("openai SDK: responses.create", () => {
  test("output_text is the upstream's answer in a completed response", async () => {
    const response = await client.responses.create({ model: "test/gpt", input: "hi" });
    expect(response.output_text).toBe("Hello from upstream");
    expect(response.status).toBe("completed");
    expect(response.object).toBe("response");
    expect(response.id).toStartWith("gen-");
  });

  test("instructions and max_output_tokens reach the upstream as a system message and max_tokens", async () => {
    await client.responses.create({ model: "test/gpt", input: "hi", instructions: "Be brief.", max_output_tokens: 64 });
    const body = rig.last(rig.openai).body;
    expect(body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
    ]);
    expect(body.max_tokens).toBe(64);
    expect(body.model).toBe("gpt-upstream");
  });

  test("usage carries input, cached, output and reasoning tokens", async () => {
    rig.openai.behave({ usage: { input: 50, output: 20, cacheRead: 30, reasoning: 7 } });
    const response = await client.responses.create({ model: "test/gpt", input: "hi" });
    expect(response.usage).toMatchObject({
      input_tokens: 50,
      input_tokens_details: { cached_tokens: 30 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 7 },
      total_tokens: 70,
    });
    expect((response.usage as unknown as { cost: number }).cost).toBeGreaterThan(0);
  });

  test("with tools the output has a function_call item", async () => {
    const response = await client.responses.create({ model: "test/gpt", input: "Weather in Oslo?", tools: [WEATHER_FUNCTION] });
    const calls = response.output.filter((item) => item.type === "function_call");
    expect(calls).toMatchObject([{ type: "function_call", call_id: "call_up_1", name: "get_weather", arguments: '{"city":"Oslo"}' }]);
    expect(response.output_text).toBe("");
    expect(rig.last(rig.openai).body.tools[0]).toMatchObject({ type: "function", function: { name: "get_weather" } });
  });

  test("a function_call_output fed back yields text, and the upstream sees the call and the tool result", async () => {
    const response = await client.responses.create({
      model: "test/gpt",
      tools: [WEATHER_FUNCTION],
      input: [
        { role: "user", content: "Weather in Oslo?" },
        { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Oslo"}' },
        { type: "function_call_output", call_id: "call_1", output: "12°C" },
      ],
    });
    expect(response.output_text).toBe("Hello from upstream");
    const messages = rig.last(rig.openai).body.messages;
    expect(messages[1]).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_1", function: { name: "get_weather" } }] });
    expect(messages[2]).toEqual({ role: "tool", tool_call_id: "call_1", content: "12°C" });
  });

  test("an input_image reaches the upstream as image_url", async () => {
    const url = "data:image/png;base64,iVBORw0KGgo=";
    await client.responses.create({
      model: "test/gpt",
      input: [{ role: "user", content: [{ type: "input_text", text: "What?" }, { type: "input_image", image_url: url, detail: "auto" }] }],
    });
    expect(rig.last(rig.openai).body.messages[0].content[1]).toEqual({ type: "image_url", image_url: { url, detail: "auto" } });
  });

  test("upstream reasoning becomes a reasoning item before the message", async () => {
    rig.openai.behave({ reasoning: "Think first." });
    const response = await client.responses.create({ model: "test/gpt", input: "hi" });
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "message"]);
    expect(response.output[0]).toMatchObject({ type: "reasoning", summary: [{ type: "summary_text", text: "Think first." }] });
  });
});

describe("openai SDK: responses.create({stream: true})", () => {
  test("events run created → deltas → completed, with increasing sequence numbers", async () => {
    const events = await collect(await client.responses.create({ model: "test/gpt", input: "hi", stream: true }));
    expect(events[0]!.type).toBe("response.created");
    expect(events.at(-1)!.type).toBe("response.completed");
    expect(ofType(events, "response.output_text.delta").map((event) => event.delta).join("")).toBe("Hello from upstream");
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
  });

  test("response.completed carries the full output and usage", async () => {
    const events = await collect(await client.responses.create({ model: "test/gpt", input: "hi", stream: true }));
    const completed = ofType(events, "response.completed")[0]!.response;
    expect(completed.status).toBe("completed");
    expect(completed.output[0]).toMatchObject({ type: "message", content: [{ type: "output_text", text: "Hello from upstream" }] });
    expect(completed.usage).toMatchObject({ input_tokens: 12, output_tokens: 5, total_tokens: 17 });
    expect(completed.id).toBe(ofType(events, "response.created")[0]!.response.id);
  });

  test("a streamed function call arrives as argument deltas and a completed function_call item", async () => {
    const events = await collect(
      await client.responses.create({ model: "test/gpt", input: "Weather?", tools: [WEATHER_FUNCTION], stream: true }),
    );
    expect(ofType(events, "response.function_call_arguments.delta").map((event) => event.delta).join("")).toBe('{"city":"Oslo"}');
    const done = ofType(events, "response.output_item.done").map((event) => event.item);
    expect(done).toMatchObject([{ type: "function_call", call_id: "call_up_1", name: "get_weather", arguments: '{"city":"Oslo"}' }]);
  });

  test("responses.stream().finalResponse() has the assembled text", async () => {
    const stream = client.responses.stream({ model: "test/gpt", input: "hi" });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("Hello from upstream");
    expect(final.status).toBe("completed");
  });

  test("responses.stream() yields text deltas to an event listener", async () => {
    const stream = client.responses.stream({ model: "test/gpt", input: "hi" });
    const deltas: string[] = [];
    stream.on("response.output_text.delta", (event) => deltas.push(event.delta));
    await stream.done();
    expect(deltas.join("")).toBe("Hello from upstream");
  });
});

describe("responses is stateless", () => {
  test("a non-null previous_response_id is a 400 BadRequestError, and nothing goes upstream", async () => {
    const error = await client.responses.create({ model: "test/gpt", input: "hi", previous_response_id: "resp_123" }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.message).toContain("previous_response_id");
    expect(rig.openai.requests).toHaveLength(0);
  });

  test("store: true is a 400 BadRequestError", async () => {
    const error = await client.responses.create({ model: "test/gpt", input: "hi", store: true }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.message).toContain("store");
  });

  test("background: true is a 400 BadRequestError (nothing is stored to poll)", async () => {
    const error = await client.responses.create({ model: "test/gpt", input: "hi", background: true }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.message).toContain("background");
    expect(rig.openai.requests).toHaveLength(0);
  });

  test("store: false and previous_response_id: null are accepted", async () => {
    const response = await client.responses.create({ model: "test/gpt", input: "hi", store: false, previous_response_id: null });
    expect(response.output_text).toBe("Hello from upstream");
  });
});

describe("responses: streaming is decided by the body, not by Accept", () => {
  test("no stream with Accept: text/event-stream answers JSON", async () => {
    const response = await fetch(`${rig.gateway.url}/api/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${rig.key}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ model: "test/gpt", input: "hi" }),
    });
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expect((await response.json()).object).toBe("response");
  });
});
