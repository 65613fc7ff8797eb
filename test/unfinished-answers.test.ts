import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { type InferenceSetup, sseEvents, startInference } from "./helpers/inference-setup.ts";

/**
 * A whole (JSON) upstream answer without a finish reason did not finish. Over a real socket, in every
 * style and from both wires, the client gets the content with the style's "not complete" marker, never
 * a clean stop / completed / end_turn, and the record says `error`.
 */
let setup: InferenceSetup;

beforeAll(async () => {
  setup = await startInference();
});

afterAll(async () => {
  await setup.stop();
});

beforeEach(() => {
  setup.reset();
  setup.openai.behave({ unfinished: true, text: "Half an ans" });
  setup.anthropic.behave({ unfinished: true, text: "Half an ans" });
});

const user = (content: string) => ({ role: "user", content });

describe.each(["test/gpt", "test/claude"])("an unfinished answer from %s", (model) => {
  test("chat completions: finish_reason error, the content kept, the record says error", async () => {
    const response = await setup.post("/chat/completions", { model, messages: [user("hi")] });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.choices[0]).toMatchObject({ finish_reason: "error", native_finish_reason: null, message: { content: "Half an ans" } });
    expect((await setup.generation(body.id)).finish_reason).toBe("error");
  });

  test("responses: status incomplete with incomplete_details, the message item incomplete", async () => {
    const response = await setup.post("/responses", { model, input: "hi" });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ status: "incomplete", incomplete_details: { reason: "error" }, error: null });
    expect(body.output).toEqual([expect.objectContaining({ type: "message", status: "incomplete" })]);
    expect(body.output[0].content[0].text).toBe("Half an ans");
  });

  test("messages: stop_reason max_tokens (cut short), never end_turn", async () => {
    const response = await setup.post("/messages", { model, max_tokens: 100, messages: [user("hi")] });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ stop_reason: "max_tokens", content: [{ type: "text", text: "Half an ans" }] });
  });
});

test("a finished answer is still a clean stop in every style", async () => {
  setup.openai.behave({ text: "Whole" });
  const chat = await (await setup.post("/chat/completions", { model: "test/gpt", messages: [user("hi")] })).json();
  expect(chat.choices[0].finish_reason).toBe("stop");
  const responses = await (await setup.post("/responses", { model: "test/gpt", input: "hi" })).json();
  expect([responses.status, responses.output[0].status]).toEqual(["completed", "completed"]);
  const messages = await (await setup.post("/messages", { model: "test/gpt", max_tokens: 10, messages: [user("hi")] })).json();
  expect(messages.stop_reason).toBe("end_turn");
});

test("responses stream cut after the first words: response.failed says the message item is incomplete", async () => {
  setup.openai.behave({ text: "one two three four five", cutAfter: 2 });
  const response = await setup.post("/responses", { model: "test/gpt", stream: true, input: "hi" });
  expect(response.status).toBe(200);
  const events = sseEvents(await response.text());
  const failed = events.at(-1)!.data;
  expect(failed.type).toBe("response.failed");
  expect(failed.response.status).toBe("failed");
  expect(failed.response.output).toEqual([expect.objectContaining({ type: "message", status: "incomplete" })]);
  expect(failed.response.output[0].content[0].text).toBe("one two");
});
