import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { type InferenceSetup, sseEvents, startInference } from "./helpers/inference-setup.ts";

/**
 * Spec details over a real socket: the debug chunk starts the stream, `service_tier: "fast"` is
 * `priority`, a `prompt` object on /responses is accepted, the OpenAPI document states the interface
 * version.
 */
let setup: InferenceSetup;

beforeAll(async () => {
  setup = await startInference({
    // An endpoint that declares service_tier: the tier is forwarded to it.
    extra: `  - id: test/tiered
    endpoints:
      - provider: local-openai
        model: gpt-tiered
        supported_parameters: [service_tier]
`,
  });
});

afterAll(async () => {
  await setup.stop();
});

beforeEach(() => setup.reset());

const user = (content: string) => ({ role: "user", content });

describe("debug.echo_upstream_body: the debug chunk is the first chunk of the stream", () => {
  test("chat completions: before the role chunk", async () => {
    const response = await setup.post("/chat/completions", { model: "test/gpt", stream: true, messages: [user("hi")], debug: { echo_upstream_body: true } });
    expect(response.status).toBe(200);
    const events = sseEvents(await response.text());
    expect(events[0]!.data).toMatchObject({ object: "chat.completion.chunk", choices: [], debug: { echo_upstream_body: { model: "gpt-upstream" } } });
    expect(events[1]!.data.choices[0].delta.role).toBe("assistant");
  });

  test("responses: before response.created, numbered from 0", async () => {
    const response = await setup.post("/responses", { model: "test/claude", stream: true, input: "hi", debug: { echo_upstream_body: true } });
    expect(response.status).toBe(200);
    const events = sseEvents(await response.text());
    expect(events[0]!.data).toMatchObject({ type: "response.debug", sequence_number: 0, debug: { echo_upstream_body: { model: "claude-upstream" } } });
    expect(events.slice(1, 3).map((event) => event.data.type)).toEqual(["response.created", "response.in_progress"]);
    expect(events.map((event) => event.data.sequence_number)).toEqual(events.map((_, index) => index));
  });
});

test('service_tier "fast" is sent upstream exactly as "priority", and recorded as priority', async () => {
  const bodies = [];
  for (const tier of ["fast", "priority"]) {
    const response = await setup.post("/chat/completions", { model: "test/tiered", service_tier: tier, messages: [user("hi")] });
    expect(response.status).toBe(200);
    expect((await setup.generation((await response.json()).id)).service_tier).toBe("priority");
    bodies.push(setup.openai.requests.at(-1)!.body);
  }
  expect(bodies[0]).toEqual(bodies[1]);
  expect(bodies[0]!.service_tier).toBe("priority");
  // The same on the Responses style.
  await setup.post("/responses", { model: "test/tiered", service_tier: "fast", input: "hi" });
  expect(setup.openai.requests.at(-1)!.body.service_tier).toBe("priority");
  // An endpoint that does not declare service_tier never gets it.
  await setup.post("/chat/completions", { model: "test/gpt", service_tier: "fast", messages: [user("hi")] });
  expect(setup.openai.requests.at(-1)!.body.service_tier).toBeUndefined();
});

describe("prompt on /responses", () => {
  const prompt = { id: "pmpt_support", variables: { city: "Oslo", detail: { type: "input_text", text: "brief" } } };

  test("a valid prompt object is accepted (no prompt store: the template is not applied, nothing of it goes upstream)", async () => {
    const response = await setup.post("/responses", { model: "test/gpt", input: "hi", prompt });
    expect(response.status).toBe(200);
    expect((await response.json()).status).toBe("completed");
    const sent = setup.openai.requests.at(-1)!.body;
    expect(JSON.stringify(sent)).not.toContain("pmpt_support");
  });

  test("its shape is checked; with require_parameters it is refused, since no endpoint can apply it", async () => {
    const missing = await setup.post("/responses", { model: "test/gpt", input: "hi", prompt: { variables: {} } });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error.message).toContain("body.prompt.id: is required");
    const strict = await setup.post("/responses", { model: "test/gpt", input: "hi", prompt, provider: { require_parameters: true } });
    expect(strict.status).toBe(400);
    expect((await strict.json()).error.message).toStartWith("prompt: stored prompt templates cannot be applied");
  });
});

test("the OpenAPI document states the interface version 1.0.0; the build's version is an extension", async () => {
  const response = await fetch(`${setup.api}/openapi.json`);
  expect(response.status).toBe(200);
  const document = await response.json();
  expect(document.info.version).toBe("1.0.0");
  expect(typeof document.info["x-roundhouse-build"]).toBe("string");
});
