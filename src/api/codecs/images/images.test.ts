import { describe, expect, test } from "bun:test";
import { ImageGenerationResponse$inboundSchema } from "@openrouter/sdk/models";
import { codecSteps, encodeContext, imageUrlPart } from "../operation-test-support.ts";
import { imagesCodec } from "./index.ts";

type Body = Record<string, unknown>;
const base = { model: "acme/painter", prompt: "a red fox" };

/** Bodies the schema accepts, over `base`: a refusal is the codec's own. */
const { problem, decode, refusal } = codecSteps(imagesCodec, { base, schemaAccepts: true });

describe("images codec: schema", () => {
  const cases: Array<[Body, string]> = [
    [{ prompt: "" }, "body.prompt: must not be empty"],
    [{ n: 11 }, "body.n: must be at most 10"],
    [{ n: 0 }, "body.n: must be at least 1"],
    [{ size: "huge" }, 'body.size: expected a tier ("512", "1K", "2K", "4K") or pixels as WIDTHxHEIGHT ("1024x1024")'],
    [{ resolution: "8K" }, 'body.resolution: expected "512", "1K", "2K", or "4K"'],
    [{ output_format: "gif" }, 'body.output_format: expected "png", "jpeg", "webp", or "svg"'],
    [{ output_compression: 101 }, "body.output_compression: must be at most 100"],
    [{ input_references: Array.from({ length: 17 }, () => imageUrlPart("https://img.example/a.png")) }, "body.input_references: must have at most 16 items"],
    [{ input_references: [imageUrlPart("file:///etc/passwd")] }, "body.input_references[0].image_url.url: expected an http(s) URL or a data:image/ URL"],
    [{ provider: { zdr: true } }, 'body.provider: unknown property "zdr"'],
    [{ provider: { options: { openai: 1 } } }, "body.provider.options.openai: expected an object"],
  ];
  for (const [body, message] of cases) {
    test(message, () => expect(problem(body)).toBe(message));
  }

  test("every listed aspect ratio, quality and background is accepted; others are not", () => {
    for (const ratio of ["1:1", "16:9", "9:19.5", "21:9", "auto"]) expect(problem({ aspect_ratio: ratio })).toBeNull();
    expect(problem({ aspect_ratio: "7:3" })).toStartWith("body.aspect_ratio: expected");
    expect(problem({ quality: "ultra" })).toStartWith("body.quality: expected");
    expect(problem({ background: "clear" })).toStartWith("body.background: expected");
  });
});

describe("images codec: decode", () => {
  test("every field maps onto the canonical request, beside the envelope", () => {
    const request = decode({
      n: 2,
      size: "1536x1024",
      resolution: "1K",
      aspect_ratio: "3:2",
      quality: "high",
      output_format: "webp",
      background: "transparent",
      output_compression: 80,
      seed: 7,
      stream: true,
      input_references: [imageUrlPart("data:image/png;base64,iVBORw0KGgo="), imageUrlPart("https://img.example/b.jpg")],
      provider: { order: ["sd-local"], options: { "sd-local": { steps: 30 } } },
      user: "u-1",
      session_id: "s-1",
    });
    expect(request).toEqual({
      model: "acme/painter",
      provider: { order: ["sd-local"], options: { "sd-local": { steps: 30 } } },
      sessionId: "s-1",
      user: "u-1",
      operation: "images",
      prompt: "a red fox",
      n: 2,
      size: "1536x1024",
      resolution: "1K",
      aspectRatio: "3:2",
      quality: "high",
      outputFormat: "webp",
      background: "transparent",
      outputCompression: 80,
      seed: 7,
      inputReferences: ["data:image/png;base64,iVBORw0KGgo=", "https://img.example/b.jpg"],
      providerOptions: { "sd-local": { steps: 30 } },
    });
  });

  test("a bare request carries only the prompt", () => {
    expect(decode({})).toEqual({ model: "acme/painter", operation: "images", prompt: "a red fox" });
  });

  test("explicit pixels that contradict resolution or aspect_ratio are a 400", () => {
    expect(refusal({ size: "2048x2048", resolution: "1K" })).toBe(
      "size: 2048x2048 is a 2K size and contradicts resolution 1K; explicit pixels need no resolution",
    );
    expect(refusal({ size: "1024x1024", aspect_ratio: "16:9" })).toBe("size: 1024x1024 is not the aspect ratio 16:9; explicit pixels need no aspect_ratio");
    expect(refusal({ size: "2K", resolution: "1K" })).toBe("size: the tier 2K contradicts resolution 1K; send one of them");
  });

  test("pixels that agree with resolution and aspect_ratio pass; a tier combines with an aspect ratio", () => {
    expect(decode({ size: "1792x1024", resolution: "1K", aspect_ratio: "16:9" }).size).toBe("1792x1024");
    expect(decode({ size: "1024x1024", aspect_ratio: "auto" }).size).toBe("1024x1024");
    expect(decode({ size: "2K", aspect_ratio: "16:9" })).toMatchObject({ size: "2K", aspectRatio: "16:9" });
  });

  test("a transparent background needs png or webp", () => {
    expect(refusal({ background: "transparent", output_format: "jpeg" })).toBe("background: transparent needs output_format png or webp, not jpeg");
    expect(refusal({ background: "transparent", output_format: "svg" })).toBe("background: transparent needs output_format png or webp, not svg");
    expect(decode({ background: "transparent" }).background).toBe("transparent");
  });

  test("output_compression is kept for webp, jpeg or the provider's default format, and ignored for png and svg", () => {
    expect(decode({ output_compression: 50, output_format: "jpeg" }).outputCompression).toBe(50);
    expect(decode({ output_compression: 50 }).outputCompression).toBe(50);
    expect(decode({ output_compression: 50, output_format: "png" }).outputCompression).toBeUndefined();
  });

  test("a model (or a preset) is required", () => {
    expect(refusal({ model: undefined })).toBe("model: is required");
    expect(decode({ model: undefined, preset: "painter" })).toMatchObject({ model: "", preset: "painter" });
  });
});

describe("images codec: encode", () => {
  const context = encodeContext({ model: "acme/painter", created: 1_762_000_000, provider: "SD local", providerSlug: "sd-local", cost: 0.08 }, { inputTokens: 12, outputTokens: 0, images: 2 });

  test("created, the images with their media types, and the usage with its cost, as the OpenRouter SDK reads them", () => {
    const request = decode({ n: 2 });
    const answer = imagesCodec.encode({ images: [{ b64: "iVBORw0KGgo=", mediaType: "image/png" }, { b64: "PHN2Zz4=" }] }, request, context);
    if (!("json" in answer)) throw new Error("expected JSON");
    expect(answer.json).toEqual({
      created: 1_762_000_000,
      data: [{ b64_json: "iVBORw0KGgo=", media_type: "image/png" }, { b64_json: "PHN2Zz4=" }],
      usage: { prompt_tokens: 12, completion_tokens: 0, total_tokens: 12, cost: 0.08, is_byok: false },
    });
    const parsed = ImageGenerationResponse$inboundSchema.parse(answer.json);
    expect(parsed.data[0]!.mediaType).toBe("image/png");
    expect(parsed.usage?.cost).toBe(0.08);
  });
});
