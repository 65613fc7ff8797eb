import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { type InferenceSetup, sseEvents, startInference } from "./helpers/inference-setup.ts";
import { UPSTREAM_TOKEN_COUNT } from "./helpers/upstreams.ts";

/**
 * What Claude Code needs of the messages route, through the real @anthropic-ai/sdk over HTTP: token
 * counts, system turns inside the conversation, Anthropic's error wording, forwarded betas, its
 * session header, and thinking budgets and efforts crossing wires.
 */
let setup: InferenceSetup;

const client = (headers: Record<string, string> = {}) =>
  new Anthropic({ apiKey: setup.key, baseURL: `${setup.gateway.url}/api`, maxRetries: 0, defaultHeaders: headers });

beforeAll(async () => {
  setup = await startInference({
    extra: `  - id: test/plain
    endpoints:
      - provider: local-openai
        model: plain-upstream
        pricing: { prompt: 1, completion: 2 }
        supported_parameters: [tools, max_tokens]
`,
  });
});

afterAll(async () => {
  await setup.stop();
});

beforeEach(() => setup.reset());

describe("POST /messages/count_tokens", () => {
  test("an Anthropic-wire model answers with the upstream's own count, asked without max_tokens", async () => {
    const counted = await client().messages.countTokens({
      model: "test/claude",
      system: "be brief",
      messages: [{ role: "user", content: "hello there" }],
      tools: [{ name: "Read", description: "read a file", input_schema: { type: "object", properties: { path: { type: "string" } } } }],
    });
    expect(counted).toEqual({ input_tokens: UPSTREAM_TOKEN_COUNT });
    const sent = setup.anthropic.requests.at(-1)!;
    expect(sent.path).toBe("/v1/messages/count_tokens");
    expect(sent.headers["x-api-key"]).toBe("upstream-anthropic-key");
    expect(Object.keys(sent.body).sort()).toEqual(["messages", "model", "system", "tools"]);
    expect(sent.body.model).toBe("claude-upstream");
  });

  test("an OpenAI-wire model answers with the gateway's estimate and calls no upstream", async () => {
    const before = setup.openai.requests.length;
    const text = "word ".repeat(400);
    const counted = await client().messages.countTokens({ model: "test/gpt", messages: [{ role: "user", content: text }] });
    expect(counted.input_tokens).toBeGreaterThanOrEqual(text.length / 4);
    expect(setup.openai.requests.length).toBe(before);
  });

  test("an unknown model is refused in Anthropic's error shape", async () => {
    const response = await setup.post("/messages/count_tokens", { model: "nobody/none", messages: [{ role: "user", content: "hi" }] });
    expect(response.status).toBeGreaterThanOrEqual(400);
    const body = (await response.json()) as any;
    expect(body.type).toBe("error");
    expect(body.error.code).toBe(response.status);
  });
});

describe("system turns inside the conversation", () => {
  const messages = [
    { role: "user", content: "first" },
    { role: "system", content: [{ type: "text", text: "Mid-conversation rule." }] },
    { role: "assistant", content: "ok" },
    { role: "user", content: "second" },
  ] as any;

  test("reach an OpenAI-wire upstream as a system message at their position", async () => {
    await client().messages.create({ model: "test/gpt", max_tokens: 50, system: "Top rule.", messages });
    expect(setup.openai.requests.at(-1)!.body.messages.map((m: any) => [m.role, m.content])).toEqual([
      ["system", "Top rule."],
      ["user", "first"],
      ["system", "Mid-conversation rule."],
      ["assistant", "ok"],
      ["user", "second"],
    ]);
  });

  test("fold into the system prompt of an Anthropic-wire upstream, after the top-level system", async () => {
    await client().messages.create({ model: "test/claude", max_tokens: 50, system: "Top rule.", messages });
    const body = setup.anthropic.requests.at(-1)!.body;
    expect(body.system.map((block: any) => block.text)).toEqual(["Top rule.", "Mid-conversation rule."]);
    expect(body.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
  });

  test("a role Anthropic does not have is refused in Anthropic's words", async () => {
    const response = await setup.post("/messages", { model: "test/gpt", max_tokens: 5, messages: [{ role: "user", content: "a" }, { role: "tool", content: "b" }] });
    expect(response.status).toBe(400);
    const body = (await response.json()) as any;
    expect(body).toMatchObject({ type: "error", error: { type: "invalid_request_error", code: 400, message: "messages.1.role: Input should be 'user', 'assistant' or 'system'" } });
    const missing = await setup.post("/messages", { model: "test/gpt", messages: [] });
    expect(((await missing.json()) as any).error.message).toBe("messages: List should have at least 1 item after validation, not 0");
  });
});

describe("Claude Code's headers", () => {
  test("allowed anthropic-beta flags reach an Anthropic-wire upstream; the others are reported, not sent", async () => {
    const response = await fetch(`${setup.api}/messages`, {
      method: "POST",
      headers: {
        "x-api-key": setup.key,
        "content-type": "application/json",
        "anthropic-beta": "interleaved-thinking-2025-05-14,made-up-beta-2099-01-01",
        "x-openrouter-metadata": "enabled",
      },
      body: JSON.stringify({ model: "test/claude", max_tokens: 20, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(setup.anthropic.requests.at(-1)!.headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14");
    const warning = "anthropic-beta: made-up-beta-2099-01-01 not forwarded (not in the provider's anthropic_beta_allow)";
    expect(body.openrouter_metadata.warnings).toEqual([warning]);
    const record = await setup.generation(body.id);
    expect(record.provider_responses[0].warnings).toEqual([warning]);
  });

  test("x-claude-code-session-id is the session when the body names none", async () => {
    const message = await client({ "x-claude-code-session-id": "cc-session-1" }).messages.create({
      model: "test/gpt",
      max_tokens: 20,
      messages: [{ role: "user", content: "hi" }],
    });
    expect((await setup.generation(message.id)).session_id).toBe("cc-session-1");
  });
});

describe("reasoning across wires", () => {
  test("a thinking budget reaches an OpenAI-wire upstream as an effort", async () => {
    await client().messages.create({ model: "test/gpt", max_tokens: 4000, thinking: { type: "enabled", budget_tokens: 2048 }, messages: [{ role: "user", content: "hi" }] });
    expect(setup.openai.requests.at(-1)!.body.reasoning_effort).toBe("low");
  });

  test("reasoning.max_tokens of a chat request reaches an OpenAI-wire upstream as an effort", async () => {
    const response = await setup.post("/chat/completions", { model: "test/gpt", reasoning: { max_tokens: 20000 }, messages: [{ role: "user", content: "hi" }] });
    expect(response.status).toBe(200);
    expect(setup.openai.requests.at(-1)!.body.reasoning_effort).toBe("high");
  });

  test("adaptive thinking with output_config.effort reaches an Anthropic-wire upstream as a budget", async () => {
    await client().messages.create({
      model: "test/claude",
      max_tokens: 8000,
      thinking: { type: "adaptive" },
      output_config: { effort: "low" },
      messages: [{ role: "user", content: "hi" }],
    } as any);
    expect(setup.anthropic.requests.at(-1)!.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
  });

  test("an upstream without reasoning says so in the metadata and the record", async () => {
    const response = await fetch(`${setup.api}/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${setup.key}`, "content-type": "application/json", "x-openrouter-metadata": "enabled" },
      body: JSON.stringify({ model: "test/plain", max_tokens: 20, thinking: { type: "enabled", budget_tokens: 20000 }, messages: [{ role: "user", content: "hi" }] }),
    });
    const body = (await response.json()) as any;
    expect(setup.openai.requests.at(-1)!.body.reasoning_effort).toBeUndefined();
    const warning = "reasoning: local-openai:plain-upstream takes no reasoning effort; effort high was not sent";
    expect(body.openrouter_metadata.warnings).toEqual([warning]);
    expect((await setup.generation(body.id)).provider_responses[0].warnings).toEqual([warning]);
  });

  test("a stream carries the warnings in the metadata of its message_delta", async () => {
    const response = await fetch(`${setup.api}/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${setup.key}`, "content-type": "application/json", "x-openrouter-metadata": "enabled" },
      body: JSON.stringify({ model: "test/plain", stream: true, max_tokens: 20, output_config: { effort: "low" }, messages: [{ role: "user", content: "hi" }] }),
    });
    const delta = sseEvents(await response.text()).find((event) => event.event === "message_delta")!;
    expect(delta.data.openrouter_metadata.warnings).toEqual(["reasoning: local-openai:plain-upstream takes no reasoning effort; effort low was not sent"]);
  });
});
