import type { Endpoint } from "../../core/catalog-types.ts";
import { isImageResolution, parsePixels, pixelsFor } from "../../core/image-size.ts";
import type { GeneratedImage, ImagesRequest, ImagesResult } from "../../core/operations.ts";
import { emptyUsage, type Usage } from "../../core/usage.ts";
import type { BuildOptions, Operation, UpstreamAnswer, UpstreamRequest } from "../adapter.ts";
import { invalidUpstreamResponse } from "../../transport/upstream-errors.ts";
import { chunkError } from "./errors.ts";
import { requestHeaders } from "./headers.ts";

type Json = Record<string, any>;

/**
 * The `size` the upstream takes: the pixels asked for; else pixels for the tier (`size` or
 * `resolution`) and the aspect ratio; absent when the request leaves the size to the provider.
 */
function upstreamSize(request: ImagesRequest): string | undefined {
  if (request.size !== undefined && parsePixels(request.size) !== undefined) return request.size;
  const tier = request.size ?? request.resolution;
  const shaped = request.aspectRatio !== undefined && request.aspectRatio !== "auto";
  if (tier === undefined && !shaped) return undefined;
  const pixels = pixelsFor(tier !== undefined && isImageResolution(tier) ? tier : undefined, request.aspectRatio);
  return `${pixels.width}x${pixels.height}`;
}

/**
 * OpenAI's `POST {base}/images/generations`, asking for base64 (`response_format: b64_json`). The
 * serving provider's `provider.options` entry is passed through; the request's own fields win.
 * Reference images need the upload wire (`/images/edits`), which this does not speak: they are not
 * sent, with a warning. `seed` goes only to endpoints that declare it (OpenAI refuses it).
 */
function buildImagesRequest(request: ImagesRequest, endpoint: Endpoint, options: BuildOptions): UpstreamRequest {
  const body: Json = { ...request.providerOptions?.[endpoint.provider.slug], model: endpoint.upstreamModel, prompt: request.prompt };
  const size = upstreamSize(request);
  const fields: Array<[string, unknown]> = [
    ["n", request.n],
    ["size", size],
    ["quality", request.quality],
    ["output_format", request.outputFormat],
    ["background", request.background],
    ["output_compression", request.outputCompression],
  ];
  for (const [name, value] of fields) if (value !== undefined) body[name] = value;
  body.response_format = "b64_json";
  const warnings: string[] = [];
  if (request.seed !== undefined) {
    if (endpoint.supportedParameters?.includes("seed")) body.seed = request.seed;
    else warnings.push(`seed: ${endpoint.key} takes no seed; it was not sent`);
  }
  if (request.inputReferences?.length) {
    warnings.push(`input_references: ${endpoint.key} generates from the prompt alone; ${request.inputReferences.length} reference image(s) were not sent`);
  }
  const upstream: UpstreamRequest = {
    url: `${endpoint.provider.baseUrl}/images/generations`,
    method: "POST",
    headers: requestHeaders(endpoint.provider, options.apiKey, true),
    body,
    answer: "json",
  };
  if (warnings.length > 0) upstream.warnings = warnings;
  return upstream;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** Enough of an image's base64 to tell its format (1 KiB of bytes: room for an XML prologue before `<svg`). */
const SNIFF_CHARACTERS = 1368;

/** The media type of image bytes: PNG, JPEG and WebP by their signatures, SVG by its markup. */
export function sniffImageType(b64: string): string | undefined {
  const head = Buffer.from(b64.slice(0, SNIFF_CHARACTERS - (Math.min(b64.length, SNIFF_CHARACTERS) % 4)), "base64");
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  if (head.length >= 12 && head.toString("latin1", 0, 4) === "RIFF" && head.toString("latin1", 8, 12) === "WEBP") return "image/webp";
  const text = head.toString("utf8").replace(/^\uFEFF/, "").trimStart();
  if (text.startsWith("<") && /<svg[\s>]/i.test(text)) return "image/svg+xml";
  return undefined;
}

/**
 * One entry of `data`: `b64_json`, or a `url` that is a base64 data URL. Any other URL is refused:
 * fetching what an upstream names would need the request-supplied-URL guard, and the answer is
 * meant to carry the image itself.
 */
function imageOf(entry: Json, index: number, endpoint: Endpoint): GeneratedImage {
  let b64: string | undefined;
  if (typeof entry?.b64_json === "string") b64 = entry.b64_json;
  else if (typeof entry?.url === "string") {
    const match = /^data:[^,]*;base64,(.*)$/s.exec(entry.url);
    if (!match) throw invalidUpstreamResponse(endpoint, `data[${index}] is a URL to fetch, not the image (ask for b64_json)`);
    b64 = match[1];
  }
  if (b64 === undefined || b64 === "" || !BASE64.test(b64)) throw invalidUpstreamResponse(endpoint, `data[${index}] holds no base64 image`);
  const mediaType = sniffImageType(b64);
  return mediaType === undefined ? { b64 } : { b64, mediaType };
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** Images generated, and the tokens when the upstream reports them (OpenAI's gpt-image models do). */
function usageOf(body: Json, images: number): Usage {
  const reported = (body.usage ?? {}) as Json;
  return {
    ...emptyUsage(),
    inputTokens: count(reported.input_tokens ?? reported.prompt_tokens),
    outputTokens: count(reported.output_tokens ?? reported.completion_tokens),
    images,
  };
}

function parseImagesResponse(answer: UpstreamAnswer, endpoint: Endpoint): ImagesResult {
  const body = answer.body as Json;
  if (body?.error && typeof body.error === "object" && !Array.isArray(body.data)) throw chunkError(body.error, endpoint);
  if (!Array.isArray(body?.data)) throw invalidUpstreamResponse(endpoint, "no data array");
  if (body.data.length === 0) throw invalidUpstreamResponse(endpoint, "no images");
  const images = (body.data as Json[]).map((entry, index) => imageOf(entry, index, endpoint));
  const result: ImagesResult = { images, usage: usageOf(body, images.length) };
  if (typeof body.model === "string" && body.model !== "") result.upstreamModel = body.model;
  return result;
}

/** Image generation on an OpenAI-compatible server (OpenAI, LocalAI, stable-diffusion servers behind the OpenAI shape). */
export const openAiImages: Operation<ImagesRequest, ImagesResult> = {
  buildRequest: buildImagesRequest,
  parseResponse: parseImagesResponse,
};
