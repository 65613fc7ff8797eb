import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";
import { type InferenceSetup, startInference } from "./helpers/inference-setup.ts";

/**
 * The AI SDK's own OpenAI provider (@ai-sdk/openai 3 with ai 6) in its default setup: the Responses
 * API, a reasoning model named as OpenAI names it, several tool steps, no `store` option. The SDK then
 * replays earlier reasoning as `item_reference` items, which a gateway that stores no responses cannot
 * resolve: they are dropped with a warning, and the loop runs to its answer.
 */
let setup: InferenceSetup;
let openai: ReturnType<typeof createOpenAI>;

beforeAll(async () => {
  setup = await startInference({
    extra: `  - id: openai/gpt-5-mini
    endpoints:
      - provider: local-openai
        model: gpt-upstream
        pricing: { prompt: 1, completion: 2 }
        supported_parameters: [tools, tool_choice, max_tokens, reasoning]
`,
  });
  openai = createOpenAI({ apiKey: setup.key, baseURL: setup.api });
});

afterAll(async () => {
  await setup.stop();
});

beforeEach(() => setup.reset());

const calls: string[] = [];
/** Upstream requests before this test's. */
let before = 0;
const tools = {
  weather: tool({
    description: "Weather of a city",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      calls.push(city);
      return `Sunny in ${city}`;
    },
  }),
};

/** Two rounds of reasoning and a weather call (with `textWithCall` written before it), then reasoning and the answer. */
function script(textWithCall?: string): void {
  calls.length = 0;
  before = setup.openai.requests.length;
  setup.openai.behave({
    reasoning: "Checking the weather.",
    toolCall: { name: "weather", arguments: { city: "Oslo" } },
    toolRounds: 2,
    text: "Sunny in Oslo.",
    ...(textWithCall === undefined ? {} : { textWithCall }),
  });
}

/** What the upstream received on the last step: both tool results, and no reasoning the gateway could not resolve. */
function expectLastStepUpstream(): void {
  const requests = setup.openai.requests.slice(before);
  expect(requests).toHaveLength(3);
  const messages: Array<Record<string, any>> = requests[2]!.body.messages;
  expect(messages.filter((message) => message.role === "tool").map((message) => [message.tool_call_id, message.content])).toEqual([
    ["call_up_1", "Sunny in Oslo"],
    ["call_up_2", "Sunny in Oslo"],
  ]);
  expect(setup.gateway.lines.some((line) => line.includes("request parts dropped") && line.includes("item_reference"))).toBe(true);
}

describe("@ai-sdk/openai Responses, default options, reasoning model with tools", () => {
  test("generateText runs the tool loop to its answer", async () => {
    script();
    const result = await generateText({ model: openai("gpt-5-mini"), prompt: "Weather in Oslo?", tools, stopWhen: stepCountIs(4), maxRetries: 0 });
    expect(result.text).toBe("Sunny in Oslo.");
    expect(result.steps.map((step) => step.finishReason)).toEqual(["tool-calls", "tool-calls", "stop"]);
    expect(result.steps[0]!.reasoningText).toBe("Checking the weather.");
    expect(calls).toEqual(["Oslo", "Oslo"]);
    // The SDK referred to its earlier reasoning by id instead of sending it.
    const sent = result.steps[2]!.request.body as { input: Array<Record<string, unknown>>; store?: unknown };
    expect(sent.store).toBeUndefined();
    expect(sent.input.filter((item) => item.type === "item_reference").length).toBeGreaterThan(0);
    expectLastStepUpstream();
  });

  test("a step that writes text before its tool call: the SDK refers to that message by id, and the loop still runs", async () => {
    script("Let me check.");
    const result = await generateText({ model: openai("gpt-5-mini"), prompt: "Weather in Oslo?", tools, stopWhen: stepCountIs(4), maxRetries: 0 });
    expect(result.steps.map((step) => step.text)).toEqual(["Let me check.", "Let me check.", "Sunny in Oslo."]);
    expect(result.text).toBe("Sunny in Oslo.");
    expect(calls).toEqual(["Oslo", "Oslo"]);
    const sent = result.steps[2]!.request.body as { input: Array<Record<string, unknown>> };
    expect(sent.input.some((item) => item.type === "item_reference" && String(item.id).startsWith("msg_"))).toBe(true);
    expectLastStepUpstream();
    expect(setup.gateway.lines.some((line) => line.includes("earlier assistant message this gateway does not store"))).toBe(true);
  });

  test("streamText runs the same loop", async () => {
    script();
    const result = streamText({ model: openai("gpt-5-mini"), prompt: "Weather in Oslo?", tools, stopWhen: stepCountIs(4), maxRetries: 0 });
    expect(await result.text).toBe("Sunny in Oslo.");
    expect((await result.steps).map((step) => step.finishReason)).toEqual(["tool-calls", "tool-calls", "stop"]);
    expect(calls).toEqual(["Oslo", "Oslo"]);
    expectLastStepUpstream();
  });
});
