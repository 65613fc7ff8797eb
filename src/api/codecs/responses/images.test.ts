import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { OpenResponsesResult$inboundSchema } from "@openrouter/sdk/models";
import type { StreamPart } from "../../../core/canonical.ts";
import { imageResult } from "./encode.ts";
import { responsesCodec } from "./index.ts";
import { checkStream, context, expectedFinal, type Json, NOW, run } from "./testing.ts";

const PNG = "data:image/png;base64,iVBORw0KGgo=";

beforeAll(() => setSystemTime(NOW));
afterAll(() => setSystemTime());

describe("responses codec: generated images", () => {
  test("an image block is an image_generation_call item whose result is the base64 without the data: prefix", () => {
    const body = responsesCodec.encodeResponse({ output: [{ type: "text", text: "Here" }, { type: "image", url: PNG }], finishReason: "stop" }, context());
    expect(body.output).toEqual([
      expect.objectContaining({ type: "message" }),
      { type: "image_generation_call", id: "ig_1762000000-abc_1", status: "completed", result: "iVBORw0KGgo=" },
    ]);
    expect(OpenResponsesResult$inboundSchema.safeParse(body).success).toBe(true);
  });

  test("a URL that is not a data URL is the result as it is", () => {
    expect(imageResult("https://images.example/cat.png")).toBe("https://images.example/cat.png");
    expect(imageResult("data:image/webp;base64,UklGRg==")).toBe("UklGRg==");
  });

  test("streamed: the text item closes, the image item runs through its events, and the final response matches", () => {
    const parts: StreamPart[] = [
      { type: "start" },
      { type: "text-delta", text: "Here" },
      { type: "image", url: PNG },
      { type: "finish", reason: "stop" },
    ];
    const { events, context: ctx } = run(parts);
    checkStream(events, ctx.id);
    expect(events.map((event) => event.event).slice(2)).toEqual([
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.image_generation_call.in_progress",
      "response.image_generation_call.generating",
      "response.image_generation_call.completed",
      "response.output_item.done",
      "response.completed",
    ]);
    const added = events[8]!.data as Json;
    expect(added.item).toEqual({ type: "image_generation_call", id: "ig_1762000000-abc_1", status: "in_progress", result: null });
    expect(events[9]!.data).toMatchObject({ item_id: "ig_1762000000-abc_1", output_index: 1 });
    expect((events[12]!.data as Json).item).toEqual({ type: "image_generation_call", id: "ig_1762000000-abc_1", status: "completed", result: "iVBORw0KGgo=" });
    expect((events.at(-1)!.data as Json).response).toEqual(expectedFinal(parts, ctx));
  });

  test("modalities and image_config are decoded into the canonical request", () => {
    const request = responsesCodec.decode({ model: "acme/model", input: "draw", modalities: ["image", "text"], image_config: { aspect_ratio: "1:1", image_size: "2K" } });
    expect(request.modalities).toEqual(["image", "text"]);
    expect(request.imageConfig).toEqual({ aspect_ratio: "1:1", image_size: "2K" });
    const plain = responsesCodec.decode({ model: "acme/model", input: "hi" });
    expect("modalities" in plain || "imageConfig" in plain).toBe(false);
  });
});
