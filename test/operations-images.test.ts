import { describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { experimental_generateImage } from "ai";
import OpenAI from "openai";
import { RED_PNG, startMediaUpstream } from "./helpers/media-upstreams.ts";
import { fallbackConfig, operationsGatewayForTests, refusal, usd } from "./helpers/operations-gateway.ts";
import { startOpenAiUpstream } from "./helpers/upstreams.ts";

/**
 * Image generation end to end: the `openai` SDK and the AI SDK against a listening gateway in front of
 * two real local OpenAI-wire image servers (the second a fallback), and image output through chat and
 * Responses from a chat upstream that answers `message.images`.
 */
const IMAGE_OUTPUT = 0.04;
const PNG_BYTES = new Uint8Array(Buffer.from(RED_PNG, "base64"));
const DATA_URL = `data:image/png;base64,${RED_PNG}`;

const [painter, painterBackup, chat] = [startMediaUpstream(), startMediaUpstream(), startOpenAiUpstream()];
const rig = operationsGatewayForTests(
  fallbackConfig(
    [{ name: "paint", urls: [painter.baseUrl, painterBackup.baseUrl], model: "test/painter", upstreamModel: "painter", operation: "images", rate: `image_output: ${IMAGE_OUTPUT}` }],
    {
      providers: `  chat-main: { type: openai-compatible, base_url: "${chat.url}/v1", api_key: chat-key }`,
      models: `  - id: test/chat
    output_modalities: [text, image]
    endpoints:
      - { provider: chat-main, model: chat-upstream, pricing: { prompt: 1, completion: 2 } }`,
    },
  ),
  [painter, painterBackup, chat],
);

describe("openai SDK: images.generate", () => {
  test("the images as b64_json with their media type, usage with the cost; the upstream gets its model name and key", async () => {
    const { data: answer, response } = await rig.client.images.generate({ model: "test/painter", prompt: "a red square", n: 2, size: "1024x1024", quality: "high" }).withResponse();
    expect(answer.data).toHaveLength(2);
    for (const image of answer.data!) {
      expect(image.b64_json).toBe(RED_PNG);
      expect((image as { media_type?: string }).media_type).toBe("image/png");
    }
    expect(typeof answer.created).toBe("number");
    expect((answer.usage as unknown as { cost: number }).cost).toBe(usd(2 * IMAGE_OUTPUT));
    const received = painter.requests[0]!;
    expect(received).toMatchObject({ method: "POST", path: "/v1/images/generations" });
    expect(received.headers.authorization).toBe("Bearer paint-key");
    expect(received.body).toMatchObject({ model: "painter-large", prompt: "a red square", n: 2, size: "1024x1024", quality: "high", response_format: "b64_json" });
    const record = await rig.generation(response.headers.get("x-generation-id")!);
    expect(record).toMatchObject({ api_type: "image", model: "test/painter", status: 200, provider_name: "paint-main" });
    expect(record.meters).toEqual({ images: 2 });
    expect(record.cost_details).toEqual({ image_output: usd(2 * IMAGE_OUTPUT) });
    expect(record.total_cost).toBe(usd(2 * IMAGE_OUTPUT));
  });

  test("fallback: the main image server answers 503, the backup draws", async () => {
    painter.behave({ status: 503 });
    const { data: answer, response } = await rig.client.images.generate({ model: "test/painter", prompt: "a red square" }).withResponse();
    expect(answer.data!.map((image) => image.b64_json)).toEqual([RED_PNG]);
    expect(painter.requests).toHaveLength(1);
    expect(painterBackup.requests[0]!.body).toMatchObject({ model: "painter-small", prompt: "a red square" });
    const record = await rig.generation(response.headers.get("x-generation-id")!);
    expect(record.provider_responses.map((attempt: any) => [attempt.provider_name, attempt.status])).toEqual([
      ["paint-main", 503],
      ["paint-backup", 200],
    ]);
    expect(record.meters).toEqual({ images: 1 });
  });

  test("every upstream down: an error in the envelope naming each provider's failure", async () => {
    painter.behave({ status: 503 });
    painterBackup.behave({ status: 503 });
    const response = await rig.send("POST", "/images", { model: "test/painter", prompt: "a red square" });
    expect(response.status).toBe(503);
    const body = (await response.json()) as any;
    expect(body.error.code).toBe(503);
    expect(body.error.metadata.previous_errors).toEqual([
      { provider: "paint-main", code: "provider_overloaded", status: 503 },
      { provider: "paint-backup", code: "provider_overloaded", status: 503 },
    ]);
    expect(body.error.availability).toMatchObject({ code: "temporarily_unavailable", retryable: true, affected_providers: ["paint-main", "paint-backup"] });
    expect([painter.requests.length, painterBackup.requests.length]).toEqual([1, 1]);
  });

  test("a model that does not make images: 400 wrong_endpoint", async () => {
    const failure = await rig.client.images.generate({ model: "test/chat", prompt: "a red square" }).catch((error) => error);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect(failure.error.availability).toMatchObject({ code: "wrong_endpoint", retryable: false });
    expect(painter.requests).toHaveLength(0);
    expect(chat.requests).toHaveLength(0);
  });
});

describe("POST /images (the dedicated path)", () => {
  test("the same answer, the upstream given pixels for the tier and aspect ratio", async () => {
    const response = await rig.send("POST", "/images", { model: "test/painter", prompt: "a wide red field", resolution: "1K", aspect_ratio: "16:9" });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-generation-id")).toStartWith("gen-");
    const body = (await response.json()) as any;
    expect(body.data).toEqual([{ b64_json: RED_PNG, media_type: "image/png" }]);
    expect(body.usage).toMatchObject({ cost: usd(IMAGE_OUTPUT), is_byok: false });
    expect(painter.requests[0]!.body).toMatchObject({ model: "painter-large", prompt: "a wide red field", size: "1824x1024" });
  });

  test("n: 11 is refused before any upstream is asked", async () => {
    const message = await refusal(await rig.send("POST", "/images", { model: "test/painter", prompt: "many squares", n: 11 }), 400);
    expect(message).toBe("body.n: must be at most 10");
    expect(painter.requests).toHaveLength(0);
  });

  test("an empty prompt and an unknown aspect ratio are refused, naming the field", async () => {
    expect(await refusal(await rig.send("POST", "/images/generations", { model: "test/painter", prompt: "" }), 400)).toContain("prompt:");
    expect(await refusal(await rig.send("POST", "/images", { model: "test/painter", prompt: "x", aspect_ratio: "7:5" }), 400)).toStartWith('body.aspect_ratio: expected "1:1", "1:2"');
    expect(painter.requests).toHaveLength(0);
  });
});

describe("AI SDK (@ai-sdk/openai): generateImage", () => {
  test("experimental_generateImage: the PNG's bytes and media type", async () => {
    const openai = createOpenAI({ baseURL: rig.api, apiKey: rig.key });
    const result = await experimental_generateImage({ model: openai.image("test/painter"), prompt: "a red square", n: 1, size: "1024x1024", maxRetries: 0 });
    expect(result.images).toHaveLength(1);
    expect(result.image.uint8Array).toEqual(PNG_BYTES);
    expect(result.image.mediaType).toBe("image/png");
    expect(painter.requests[0]!.body).toMatchObject({ model: "painter-large", prompt: "a red square", n: 1, size: "1024x1024" });
  });
});

describe("openai SDK: image output through chat and Responses", () => {
  test("chat.completions.create: the upstream's message.images come back on the message", async () => {
    chat.behave({ text: "Here it is", images: [DATA_URL] });
    const completion = await rig.client.chat.completions.create({
      model: "test/chat",
      modalities: ["image", "text"] as never,
      messages: [{ role: "user", content: "draw a red square" }],
    });
    const message = completion.choices[0]!.message as typeof completion.choices[0]["message"] & { images?: unknown };
    expect(message.content).toBe("Here it is");
    expect(message.images).toEqual([{ type: "image_url", image_url: { url: DATA_URL } }]);
    expect(chat.requests[0]!.body.modalities).toEqual(["image", "text"]);
  });

  test("responses.create: the image is an image_generation_call item whose result is the base64", async () => {
    chat.behave({ text: "Done", images: [DATA_URL] });
    const response = await rig.client.responses.create({ model: "test/chat", input: "draw a red square", modalities: ["image", "text"] } as never);
    const item = (response as any).output.find((entry: any) => entry.type === "image_generation_call");
    expect(item).toMatchObject({ type: "image_generation_call", status: "completed", result: RED_PNG });
    expect((response as any).output_text).toBe("Done");
  });
});
