import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { type InferenceSetup, sseEvents, startInference } from "./helpers/inference-setup.ts";

/**
 * A server tool the gateway cannot run and no endpoint supports (Codex sends `web_search` by default)
 * follows OpenRouter's rule for unsupported parameters: dropped from the upstream request and said so,
 * unless `provider.require_parameters` is true.
 */
let setup: InferenceSetup;

beforeAll(async () => {
  setup = await startInference();
});

afterAll(async () => {
  await setup.stop();
});

beforeEach(() => setup.reset());

const WEATHER = { type: "function", name: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } };
const DROPPED = 'tools[1]: server tool "web_search" is not supported by any endpoint for this model and was dropped';

function postWithMetadata(path: string, body: unknown): Promise<Response> {
  return fetch(`${setup.api}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${setup.key}`, "content-type": "application/json", "x-openrouter-metadata": "enabled" },
    body: JSON.stringify(body),
  });
}

describe("server tools no endpoint supports", () => {
  test("Responses: dropped from the upstream request, listed in openrouter_metadata and logged", async () => {
    const response = await postWithMetadata("/responses", {
      model: "test/gpt",
      input: "Weather in Oslo?",
      tools: [WEATHER, { type: "web_search", external_web_access: false }],
      tool_choice: "auto",
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, any>;
    expect(body.openrouter_metadata.warnings).toEqual([DROPPED]);
    expect(body.output[0]).toMatchObject({ type: "function_call", name: "weather" });
    const sent = setup.openai.requests.at(-1)!.body;
    expect(sent.tools.map((tool: any) => tool.function.name)).toEqual(["weather"]);
    expect(setup.gateway.lines.some((line) => line.includes("request parts dropped") && line.includes("web_search"))).toBe(true);
    expect((await setup.generation(body.id)).warnings).toEqual([DROPPED]);
  });

  test("Responses streaming: the warning arrives with the completed response", async () => {
    const response = await postWithMetadata("/responses", { model: "test/claude", input: "hi", stream: true, tools: [WEATHER, { type: "web_search" }] });
    expect(response.status).toBe(200);
    const completed = sseEvents(await response.text()).find((event) => event.event === "response.completed");
    expect(completed?.data.response.openrouter_metadata.warnings).toEqual([DROPPED]);
    expect(setup.anthropic.requests.at(-1)!.body.tools.map((tool: any) => tool.name)).toEqual(["weather"]);
  });

  test("Chat Completions: the same rule", async () => {
    const response = await postWithMetadata("/chat/completions", {
      model: "test/gpt",
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: WEATHER }, { type: "web_search" }],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, any>;
    expect(body.openrouter_metadata.warnings).toEqual([DROPPED]);
    expect((await setup.generation(body.id)).warnings).toEqual([DROPPED]);
  });

  test("Messages: Anthropic's server tools (web search, bash) follow the same rule", async () => {
    const response = await postWithMetadata("/messages", {
      model: "test/claude",
      max_tokens: 64,
      messages: [{ role: "user", content: "Weather in Oslo?" }],
      tools: [{ name: "weather", input_schema: WEATHER.parameters }, { type: "web_search_20250305", name: "web_search", max_uses: 3 }],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, any>;
    const dropped = 'tools.1: server tool "web_search_20250305" is not supported by any endpoint for this model and was dropped';
    expect(body.openrouter_metadata.warnings).toEqual([dropped]);
    expect(setup.anthropic.requests.at(-1)!.body.tools.map((tool: any) => tool.name)).toEqual(["weather"]);
  });

  test("with provider.require_parameters: a 400 naming the tool, and nothing sent upstream", async () => {
    const before = setup.openai.requests.length;
    const response = await setup.post("/responses", {
      model: "test/gpt",
      input: "hi",
      tools: [WEATHER, { type: "web_search" }],
      provider: { require_parameters: true },
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toBe(
      'tools[1]: server tool "web_search" is not supported by any endpoint for this model, and provider.require_parameters is true',
    );
    expect(setup.openai.requests.length).toBe(before);
  });
});
