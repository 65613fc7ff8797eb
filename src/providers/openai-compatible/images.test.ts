import { describe, expect, test } from "bun:test";
import type { ImagesRequest, ImagesResult } from "../../core/operations.ts";
import { rejectedGatewayError } from "../../core/test-support.ts";
import { RED_PNG, startMediaUpstream } from "../../../test/helpers/media-upstreams.ts";
import { serverForTests } from "../../../test/helpers/recording-server.ts";
import { throughEngine } from "../test-support.ts";
import { openAiCompatibleAdapter as adapter } from "./adapter.ts";
import { makeEndpoint } from "./test-support.ts";

const upstream = serverForTests(startMediaUpstream);
const endpoint = makeEndpoint({ key: "sd:flux", upstreamModel: "flux-dev", operations: new Set(["images"]) }, { slug: "sd", name: "SD", baseUrl: upstream.baseUrl });
const request = (fields: Partial<ImagesRequest> = {}): ImagesRequest => ({ model: "acme/painter", operation: "images", prompt: "a red square", ...fields });

/** The request through the real engine to the local server, and the adapter's reading of the answer. */
const generate = (fields: Partial<ImagesRequest> = {}): Promise<ImagesResult> => throughEngine(adapter, adapter.images, request(fields), endpoint, "sk-img");

describe("openai-compatible images: the request", () => {
  test("POST {base}/images/generations with the fields OpenAI takes, base64 asked for, and the credential", async () => {
    await generate({ n: 2, size: "1536x1024", quality: "high", outputFormat: "webp", background: "transparent", outputCompression: 70 });
    const sent = upstream.requests[0]!;
    expect(sent.method).toBe("POST");
    expect(sent.path).toBe("/v1/images/generations");
    expect(sent.headers.authorization).toBe("Bearer sk-img");
    expect(sent.body).toEqual({
      model: "flux-dev",
      prompt: "a red square",
      n: 2,
      size: "1536x1024",
      quality: "high",
      output_format: "webp",
      background: "transparent",
      output_compression: 70,
      response_format: "b64_json",
    });
  });

  test("a tier and an aspect ratio become pixels; with neither, no size is sent", () => {
    const build = (fields: Partial<ImagesRequest>) => adapter.images.buildRequest(request(fields), endpoint, { stream: false, apiKey: undefined }).body!;
    expect(build({ resolution: "1K", aspectRatio: "3:2" }).size).toBe("1536x1024");
    expect(build({ size: "2K" }).size).toBe("2048x2048");
    expect(build({ aspectRatio: "9:16" }).size).toBe("1024x1824");
    expect(build({ aspectRatio: "auto" }).size).toBeUndefined();
    expect(build({}).size).toBeUndefined();
  });

  test("the serving provider's options pass through (the request's fields win); other providers' do not", () => {
    const body = adapter.images.buildRequest(
      request({ providerOptions: { sd: { steps: 30, prompt: "overridden?" }, openai: { moderation: "low" } } }),
      endpoint,
      { stream: false, apiKey: undefined },
    ).body!;
    expect(body).toMatchObject({ steps: 30, prompt: "a red square" });
    expect(body.moderation).toBeUndefined();
  });

  test("seed goes only where declared; reference images are not sent; both are said in warnings", () => {
    const plain = adapter.images.buildRequest(request({ seed: 4, inputReferences: ["https://img.example/a.png"] }), endpoint, { stream: false, apiKey: undefined });
    expect(plain.body!.seed).toBeUndefined();
    expect(plain.warnings).toEqual([
      "seed: sd:flux takes no seed; it was not sent",
      "input_references: sd:flux generates from the prompt alone; 1 reference image(s) were not sent",
    ]);
    const seeded = adapter.images.buildRequest(request({ seed: 4 }), makeEndpoint({ supportedParameters: ["seed"] }), { stream: false, apiKey: undefined });
    expect(seeded.body!.seed).toBe(4);
    expect(seeded.warnings).toBeUndefined();
  });
});

describe("openai-compatible images: the answer", () => {
  test("b64_json images with their sniffed media type, metered by count (and tokens when reported)", async () => {
    upstream.behave({ imageUsage: { input_tokens: 14, output_tokens: 4160, total_tokens: 4174 } });
    const result = await generate({ n: 2 });
    expect(result.images).toEqual([
      { b64: RED_PNG, mediaType: "image/png" },
      { b64: RED_PNG, mediaType: "image/png" },
    ]);
    expect(result.usage).toMatchObject({ images: 2, inputTokens: 14, outputTokens: 4160 });
  });

  test("JPEG, WebP and SVG are told by their bytes; unknown bytes get no media type", async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]).toString("base64");
    const webp = Buffer.from("RIFF\u0024\u0000\u0000\u0000WEBPVP8 ", "latin1").toString("base64");
    const svg = Buffer.from('\uFEFF<?xml version="1.0"?>\n<!-- drawn -->\n<svg xmlns="http://www.w3.org/2000/svg"/>').toString("base64");
    const other = Buffer.from("GIF89a").toString("base64");
    upstream.behave({ images: [jpeg, webp, svg, other].map((b64_json) => ({ b64_json })) });
    const result = await generate();
    expect(result.images.map((image) => image.mediaType)).toEqual(["image/jpeg", "image/webp", "image/svg+xml", undefined]);
  });

  test("a data URL is taken as the image; any other URL is an invalid response, never fetched", async () => {
    upstream.behave({ images: [{ url: `data:image/png;base64,${RED_PNG}` }] });
    expect((await generate()).images).toEqual([{ b64: RED_PNG, mediaType: "image/png" }]);
    upstream.behave({ images: [{ url: "http://169.254.169.254/latest/meta-data" }] });
    const error = await rejectedGatewayError(generate());
    expect(error.status).toBe(502);
    expect(error.metadata).toEqual({ provider: "sd", provider_code: "invalid_response" });
    expect(error.message).toContain("data[0] is a URL to fetch");
    expect(upstream.requests).toHaveLength(2);
  });

  test("no images, or entries without base64, are invalid responses", async () => {
    upstream.behave({ images: [] });
    expect((await rejectedGatewayError(generate())).message).toBe("SD returned an invalid response: no images");
    upstream.behave({ images: [{ b64_json: "not base64!" }] });
    expect((await rejectedGatewayError(generate())).message).toBe("SD returned an invalid response: data[0] holds no base64 image");
  });

  test("an upstream error status goes through the one error path", async () => {
    upstream.behave({ status: 429 });
    const error = await rejectedGatewayError(generate());
    expect(error.code).toBe("rate_limited");
    expect(error.message).toContain("upstream failure 429");
  });
});
