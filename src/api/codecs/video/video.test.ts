import { describe, expect, test } from "bun:test";
import { VideoGenerationResponse$inboundSchema } from "@openrouter/sdk/models";
import { emptyUsage } from "../../../core/usage.ts";
import { sampleVideoJob } from "../../../core/test-support.ts";
import { codecSteps, imageUrlPart } from "../operation-test-support.ts";
import { videoCodec } from "./index.ts";

type Body = Record<string, unknown>;
const base = { model: "acme/filmmaker", prompt: "a fox running through snow" };

/** Bodies the schema accepts, over `base`: a refusal is the codec's own. */
const { problem, decode, refusal } = codecSteps(videoCodec, { base, schemaAccepts: true });

describe("video codec: schema", () => {
  const cases: Array<[Body, string]> = [
    [{ duration: 0 }, "body.duration: must be at least 1"],
    [{ duration: 2.5 }, "body.duration: expected an integer of at least 1"],
    [{ resolution: "360i" }, 'body.resolution: expected "480p", "720p", "768p", "1080p", "1K", "2K", or "4K"'],
    [{ aspect_ratio: "5:4" }, 'body.aspect_ratio: expected "16:9", "9:16", "1:1", "4:3", "3:4", "3:2", "2:3", "21:9", or "9:21"'],
    [{ size: "720p" }, 'body.size: expected pixels as WIDTHxHEIGHT ("1280x720")'],
    [{ callback_url: "http://hooks.example/video" }, "body.callback_url: expected an https:// URL"],
    [{ frame_images: [{ ...imageUrlPart("https://img.example/a.png"), frame_type: "middle_frame" }] }, 'body.frame_images[0].frame_type: expected "first_frame" or "last_frame"'],
    [{ provider: { order: ["a"] } }, 'body.provider: unknown property "order"'],
    [{ prompt: "" }, "body.prompt: must not be empty"],
  ];
  for (const [body, message] of cases) {
    test(message, () => expect(problem(body)).toBe(message));
  }
});

describe("video codec: decode", () => {
  test("every field maps onto the canonical request, beside the envelope", () => {
    const request = decode({
      duration: 8,
      resolution: "720p",
      aspect_ratio: "16:9",
      size: "1280x720",
      frame_images: [{ ...imageUrlPart("data:image/png;base64,iVBORw0KGgo="), frame_type: "first_frame" }],
      generate_audio: true,
      seed: 3,
      callback_url: "https://hooks.example/video",
      provider: { options: { wan: { steps: 20 } } },
      user: "u-1",
    });
    expect(request).toEqual({
      model: "acme/filmmaker",
      provider: { options: { wan: { steps: 20 } } },
      user: "u-1",
      operation: "video",
      prompt: "a fox running through snow",
      duration: 8,
      resolution: "720p",
      aspectRatio: "16:9",
      size: "1280x720",
      frameImages: [{ url: "data:image/png;base64,iVBORw0KGgo=", frameType: "first_frame" }],
      generateAudio: true,
      seed: 3,
      callbackUrl: "https://hooks.example/video",
      providerOptions: { wan: { steps: 20 } },
    });
  });

  test("a prompt is needed unless images lead the way", () => {
    expect(refusal({ prompt: undefined })).toBe("prompt: is required unless frame_images or input_references are given");
    expect(decode({ prompt: undefined, input_references: [imageUrlPart("https://img.example/a.png")] }).inputReferences).toEqual(["https://img.example/a.png"]);
  });

  test("with both, frame images win and the references are not used", () => {
    const request = decode({ frame_images: [{ ...imageUrlPart("https://img.example/f.png"), frame_type: "last_frame" }], input_references: [imageUrlPart("https://img.example/r.png")] });
    expect(request.frameImages).toEqual([{ url: "https://img.example/f.png", frameType: "last_frame" }]);
    expect(request.inputReferences).toBeUndefined();
  });

  test("two first frames, and audio or video references, are refused", () => {
    const first = { ...imageUrlPart("https://img.example/f.png"), frame_type: "first_frame" };
    expect(refusal({ frame_images: [first, first] })).toBe("frame_images: two images are both the first_frame");
    expect(refusal({ input_references: [imageUrlPart("https://img.example/a.png"), { type: "audio_url", audio_url: { url: "https://a.example/x.mp3" } }] })).toBe(
      "input_references[1]: audio_url references are not supported by this gateway; send image_url references",
    );
  });

  test("a model (or a preset) is required", () => {
    expect(refusal({ model: undefined })).toBe("model: is required");
  });
});

describe("video codec: encodeJob", () => {
  const job = sampleVideoJob();
  const api = "https://gw.example/api/v1";

  test("a running job: id, polling URL, status and generation id, as the OpenRouter SDK reads them", () => {
    const body = videoCodec.encodeJob(job, api);
    expect(body).toEqual({ id: "vid-0199abc", polling_url: `${api}/videos/vid-0199abc`, status: "pending", generation_id: "gen-1762000000-abc" });
    expect(VideoGenerationResponse$inboundSchema.parse(body).pollingUrl).toBe(`${api}/videos/vid-0199abc`);
  });

  test("a completed job lists a content URL per output and its usage", () => {
    const done = { ...job, status: "completed" as const, outputs: 2, usage: { ...emptyUsage(), videoSeconds: 8 }, cost: 0.4 };
    const body = videoCodec.encodeJob(done, api);
    expect(body.unsigned_urls).toEqual([`${api}/videos/vid-0199abc/content?index=0`, `${api}/videos/vid-0199abc/content?index=1`]);
    expect(body.usage).toEqual({ cost: 0.4, is_byok: false });
    expect(VideoGenerationResponse$inboundSchema.parse(body).unsignedUrls).toHaveLength(2);
  });

  test("a failed job says why and lists no content", () => {
    const body = videoCodec.encodeJob({ ...job, status: "failed", error: "content policy" }, api);
    expect(body).toMatchObject({ status: "failed", error: "content policy" });
    expect("unsigned_urls" in body || "usage" in body).toBe(false);
  });
});
