import { describe, expect, test } from "bun:test";
import { crc32, inflateSync } from "node:zlib";
import { GatewayError } from "../../core/errors.ts";
import type { ImagesRequest, VideoRequest } from "../../core/operations.ts";
import { call } from "../../transport/engine.ts";
import { openAiCompatibleAdapter as adapter } from "../openai-compatible/adapter.ts";
import { makeEndpoint } from "../openai-compatible/test-support.ts";
import { createSimulatedFetch } from "./fetch.ts";

const endpoint = makeEndpoint({ key: "simulated:sim", upstreamModel: "sim" }, { slug: "simulated", type: "simulated", baseUrl: "http://simulated.invalid" });
const fetch = createSimulatedFetch({ ttft_ms: 0, tokens_per_second: 0 });
const options = { stream: false, apiKey: undefined };
const send = (built: Parameters<typeof call>[0]) => call(built, endpoint, adapter, { fetch, signal: new AbortController().signal });

async function images(prompt: string, n?: number) {
  const request: ImagesRequest = { model: "m", operation: "images", prompt, ...(n === undefined ? {} : { n }) };
  return adapter.images.parseResponse(await send(adapter.images.buildRequest(request, endpoint, options)), endpoint, request);
}

/** Reads a PNG as a decoder would: signature, chunks with their CRCs, the header, the inflated pixel rows. */
function readPng(b64: string): { width: number; height: number; rgb: number[] } {
  const bytes = Buffer.from(b64, "base64");
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const chunks = new Map<string, Buffer>();
  for (let at = 8; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const typed = bytes.subarray(at + 4, at + 8 + length);
    expect(bytes.readUInt32BE(at + 8 + length)).toBe(crc32(typed));
    chunks.set(typed.toString("latin1", 0, 4), typed.subarray(4));
    at += 12 + length;
  }
  expect([...chunks.keys()]).toEqual(["IHDR", "IDAT", "IEND"]);
  const header = chunks.get("IHDR")!;
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const pixels = inflateSync(chunks.get("IDAT")!);
  expect(pixels.length).toBe(height * (1 + width * 3));
  return { width, height, rgb: [...pixels.subarray(1, 4)] };
}

describe("simulator: images", () => {
  test("n valid 8×8 PNGs, one colour each, the same for the same prompt", async () => {
    const first = await images("a lighthouse", 3);
    expect(first.images).toHaveLength(3);
    expect(first.usage?.images).toBe(3);
    const decoded = first.images.map((image) => {
      expect(image.mediaType).toBe("image/png");
      return readPng(image.b64);
    });
    expect(decoded.every((png) => png.width === 8 && png.height === 8)).toBe(true);
    expect(new Set(decoded.map((png) => png.rgb.join())).size).toBe(3);
    expect((await images("a lighthouse", 3)).images).toEqual(first.images);
    expect((await images("a harbour")).images[0]!.b64).not.toBe(first.images[0]!.b64);
  });
});

describe("simulator: video", () => {
  test("a job is pending, in progress at the first poll and completed from the second; its content is MP4", async () => {
    const request: VideoRequest = { model: "m", operation: "video", prompt: "waves", duration: 6 };
    const submitted = adapter.video.submit.parseResponse(await send(adapter.video.submit.buildRequest(request, endpoint, options)), endpoint, request);
    expect(submitted.status).toBe("pending");
    const poll = async () => adapter.video.poll.parseResponse(await send(adapter.video.poll.buildRequest(submitted.upstreamId, endpoint, options)), endpoint);
    expect((await poll()).status).toBe("in_progress");
    expect(await poll()).toMatchObject({ status: "completed", outputs: 1, usage: { videoSeconds: 6 } });
    expect((await poll()).status).toBe("completed");
    const content = await send(adapter.video.content.buildRequest(submitted.upstreamId, 0, endpoint, options));
    expect(content.headers.get("content-type")).toBe("video/mp4");
    const bytes = Buffer.from(await new Response(content.body as ReadableStream).arrayBuffer());
    expect(bytes.toString("latin1", 4, 12)).toBe("ftypisom");
  });

  test("an id the simulator never made is a 404", async () => {
    const error = await send(adapter.video.poll.buildRequest("nonsense", endpoint, options)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe("not_found");
  });
});
