/**
 * The built-in version 2 plugins over real HTTP against a scripted OpenAI-wire upstream:
 * response-healing repairs a malformed JSON answer, context-compression fits a long conversation into
 * a small context, moderation refuses flagged input through a guard model (a routed model call).
 */
import { describe, expect, test } from "bun:test";
import { sseEvents } from "./helpers/inference-setup.ts";
import { scriptedGatewayForTests } from "./helpers/scripted-gateway.ts";

type Json = Record<string, any>;

const rig = scriptedGatewayForTests(`models:
  - id: test/model
    endpoints: [{ provider: up, model: main }]
  - id: test/small
    endpoints: [{ provider: up, model: small, context_length: 1000 }]
  - id: test/guard
    endpoints: [{ provider: up, model: guard, pricing: { prompt: 1000 } }]
tools:
  moderation: { model: test/guard }
`);
const post = (path: string, body: Json) => rig.post(path, body);

const ask = (extra: Json) => ({ model: "test/model", messages: [{ role: "user", content: "give me JSON" }], ...extra });

describe("response-healing", () => {
  test("a fenced, trailing-comma JSON answer reaches the client as valid JSON", async () => {
    rig.upstream.behave({ text: 'Sure! ```json\n{a: 1, "b": [2,],}\n```' });
    const response = await post("/chat/completions", ask({ response_format: { type: "json_object" }, plugins: [{ id: "response-healing" }] }));
    const body = (await response.json()) as Json;
    expect(JSON.parse(body.choices[0].message.content)).toEqual({ a: 1, b: [2] });
  });

  test("streamed: the healed text arrives before the finish", async () => {
    rig.upstream.behave({ text: '{"a": 1,' });
    const response = await post("/chat/completions", ask({ stream: true, response_format: { type: "json_object" }, plugins: [{ id: "response-healing" }] }));
    const chunks = sseEvents(await response.text()).filter((event) => event.data !== "[DONE]").map((event) => event.data as Json);
    const text = chunks.map((chunk) => chunk.choices?.[0]?.delta?.content ?? "").join("");
    expect(JSON.parse(text)).toEqual({ a: 1 });
  });

  test("without the plugin the answer is left as it came", async () => {
    rig.upstream.behave({ text: '{"a": 1,' });
    const response = await post("/chat/completions", ask({ response_format: { type: "json_object" } }));
    expect(((await response.json()) as Json).choices[0].message.content).toBe('{"a": 1,');
  });
});

describe("context-compression", () => {
  const long = Array.from({ length: 13 }, (_, index) => ({ role: index % 2 === 0 ? "user" : "assistant", content: `message ${index} ${"words ".repeat(120)}` }));

  test("a conversation too long for the model's context is shortened from the middle and answered", async () => {
    const response = await post("/chat/completions", { model: "test/small", messages: long, plugins: [{ id: "context-compression" }] });
    expect(response.status).toBe(200);
    const sent = rig.upstream.requests[0]!.body.messages as Json[];
    expect(sent.length).toBeLessThan(long.length);
    // The head and the tail stay.
    expect(sent[0]!.content).toStartWith("message 0 ");
    expect(sent.at(-1)!.content).toStartWith("message 12 ");
  });

  test("on by default for a model whose endpoint has at most 8,192 tokens of context", async () => {
    const response = await post("/chat/completions", { model: "test/small", messages: long });
    expect(response.status).toBe(200);
    expect((rig.upstream.requests[0]!.body.messages as Json[]).length).toBeLessThan(long.length);
  });

  test("turned off, the same request is refused for its context, and nothing is sent", async () => {
    const response = await post("/chat/completions", { model: "test/small", messages: long, plugins: [{ id: "context-compression", enabled: false }] });
    expect(response.status).toBe(404);
    const error = ((await response.json()) as Json).error;
    expect(error.availability.excluded_by).toContain("context_length");
    expect(rig.upstream.requests).toHaveLength(0);
  });
});

describe("moderation", () => {
  test("flagged input is refused with 403 and the reference's metadata; the model is never called", async () => {
    rig.upstream.behave({ script: (body) => (body.model === "guard" ? { text: "unsafe\nS1" } : { text: "should not be asked" }) });
    const usage = async () => ((await (await fetch(`${rig.api}/key`, { headers: { authorization: `Bearer ${rig.key}` } })).json()) as Json).data.usage as number;
    const before = await usage();
    const response = await post("/chat/completions", ask({ plugins: [{ id: "moderation" }] }));
    expect(response.status).toBe(403);
    // The guard's call is charged even though the request was refused.
    await rig.gateway.services.generations.flush();
    expect(await usage()).toBeGreaterThan(before);
    const error = ((await response.json()) as Json).error;
    expect(error.metadata.reasons.length).toBeGreaterThan(0);
    expect(error.metadata.flagged_input).toBe("give me JSON");
    expect(error.metadata.model_slug).toBe("test/guard");
    expect(rig.upstream.requests.map((request) => request.body.model)).toEqual(["guard"]);
  });

  test("safe input goes on to the model after the guard's call", async () => {
    rig.upstream.behave({ script: (body) => (body.model === "guard" ? { text: "safe" } : { text: "here you are" }) });
    const response = await post("/chat/completions", ask({ plugins: [{ id: "moderation" }] }));
    expect(response.status).toBe(200);
    const body = (await response.json()) as Json;
    expect(body.choices[0].message.content).toBe("here you are");
    expect(rig.upstream.requests.map((request) => request.body.model)).toEqual(["guard", "main"]);
    // One record for the request, listing the guard's call beside the model's answer.
    await rig.gateway.services.generations.flush();
    const record = await fetch(`${rig.api}/generation?id=${body.id}`, { headers: { authorization: `Bearer ${rig.key}` } });
    const data = ((await record.json()) as Json).data;
    expect(data.provider_responses.map((entry: Json) => entry.endpoint_id)).toEqual(["up:guard", "up:main"]);
  });
});
