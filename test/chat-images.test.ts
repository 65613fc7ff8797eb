import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { type InferenceSetup, sseEvents, startInference } from "./helpers/inference-setup.ts";

/**
 * Image output through the chat styles: the client asks with `modalities` and `image_config`, the
 * OpenAI-wire upstream answers `message.images` (`delta.images` when streaming), and each style shows
 * the images its own way.
 */
let setup: InferenceSetup;
const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==";
const JPEG = "data:image/jpeg;base64,/9j/4AAQSkZJRg==";

/** A model that draws as well as writes, on the same OpenAI-wire upstream. */
const PAINTER = `  - id: test/painter
    output_modalities: [text, image]
    endpoints:
      - provider: local-openai
        model: painter-upstream
`;

beforeAll(async () => {
  setup = await startInference({ extra: PAINTER });
});
afterAll(async () => {
  await setup.stop();
});
afterEach(() => {
  setup.reset();
  setup.openai.requests.length = 0;
});

const ask = { model: "test/painter", modalities: ["image", "text"], image_config: { aspect_ratio: "16:9" } };

describe("chat completions", () => {
  test("modalities and image_config reach the upstream; message.images come back in order", async () => {
    setup.openai.behave({ text: "Here you go", images: [PNG, JPEG] });
    const response = await setup.post("/chat/completions", { ...ask, messages: [{ role: "user", content: "draw a cat" }] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body.choices[0].message.content).toBe("Here you go");
    expect(body.choices[0].message.images).toEqual([
      { type: "image_url", image_url: { url: PNG } },
      { type: "image_url", image_url: { url: JPEG } },
    ]);
    expect(setup.openai.requests[0]!.body).toMatchObject({ modalities: ["image", "text"], image_config: { aspect_ratio: "16:9" } });
  });

  test("audio output is not asked of the upstream", async () => {
    setup.openai.behave({ text: "hi" });
    const response = await setup.post("/chat/completions", { model: "test/gpt", modalities: ["text", "audio"], messages: [{ role: "user", content: "hi" }] });
    expect(response.status).toBe(200);
    expect(setup.openai.requests[0]!.body.modalities).toEqual(["text"]);
  });

  test("streamed: the images arrive as a delta.images chunk", async () => {
    setup.openai.behave({ text: "Here", images: [PNG] });
    const response = await setup.post("/chat/completions", { ...ask, stream: true, messages: [{ role: "user", content: "draw" }] });
    const events = sseEvents(await response.text());
    const images = events.flatMap((event) => event.data.choices?.[0]?.delta?.images ?? []);
    expect(images).toEqual([{ type: "image_url", image_url: { url: PNG } }]);
    expect(events.map((event) => event.data.choices?.[0]?.delta?.content ?? "").join("")).toBe("Here");
  });
});

describe("responses", () => {
  test("an image is an image_generation_call item with the base64 as its result", async () => {
    setup.openai.behave({ text: "Done", images: [PNG] });
    const response = await setup.post("/responses", { ...ask, input: "draw a cat" });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    const item = body.output.find((entry: any) => entry.type === "image_generation_call");
    expect(item).toMatchObject({ type: "image_generation_call", status: "completed", result: "iVBORw0KGgoAAAANSUhEUg==" });
    expect(setup.openai.requests[0]!.body).toMatchObject({ modalities: ["image", "text"], image_config: { aspect_ratio: "16:9" } });
  });

  test("streamed: the image item's events, and response.completed holds the same item", async () => {
    setup.openai.behave({ text: "Done", images: [PNG] });
    const response = await setup.post("/responses", { ...ask, stream: true, input: "draw" });
    const events = sseEvents(await response.text());
    const names = events.map((event) => event.event);
    const added = names.findIndex((name, index) => name === "response.output_item.added" && events[index]!.data.item.type === "image_generation_call");
    expect(names.slice(added, added + 5)).toEqual([
      "response.output_item.added",
      "response.image_generation_call.in_progress",
      "response.image_generation_call.generating",
      "response.image_generation_call.completed",
      "response.output_item.done",
    ]);
    const completed = events.find((event) => event.event === "response.completed")!.data.response;
    expect(completed.output.find((entry: any) => entry.type === "image_generation_call").result).toBe("iVBORw0KGgoAAAANSUhEUg==");
  });
});

describe("messages", () => {
  test("Anthropic's assistant output has no image block: the image is left out, the text stays", async () => {
    setup.openai.behave({ text: "Here", images: [PNG] });
    const response = await setup.post("/messages", { model: "test/gpt", max_tokens: 100, messages: [{ role: "user", content: "draw" }] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body.content).toEqual([{ type: "text", text: "Here" }]);
  });
});

describe("routing", () => {
  test("a model that only writes text, asked for images, is the wrong endpoint and nothing is sent", async () => {
    const response = await setup.post("/chat/completions", { ...ask, model: "test/gpt", messages: [{ role: "user", content: "draw a cat" }] });
    expect(response.status).toBe(400);
    const body = (await response.json()) as any;
    expect(body.error.availability.code).toBe("wrong_endpoint");
    expect(body.error.message).toBe("test/gpt does not produce image; it cannot answer this kind of request");
    expect(setup.openai.requests).toHaveLength(0);
  });
});
