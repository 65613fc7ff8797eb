import type { RoutingEnvelope } from "../../../core/envelope.ts";
import { GatewayError } from "../../../core/errors.ts";
import { fitsAspectRatio, parsePixels, resolutionOf } from "../../../core/image-size.ts";
import type { ImagesRequest } from "../../../core/operations.ts";
import type { ImagesRequestBody } from "./schema.ts";

function refuse(field: string, reason: string): never {
  throw new GatewayError("bad_request", `${field}: ${reason}`);
}

/**
 * Explicit pixels are authoritative: a `resolution` or `aspect_ratio` beside them that says otherwise
 * is a 400. A tier as `size` is a resolution, and may not contradict the one given.
 */
function checkSize(body: ImagesRequestBody): void {
  if (body.size === undefined) return;
  const pixels = parsePixels(body.size);
  if (pixels === undefined) {
    if (body.resolution !== undefined && body.resolution !== body.size) {
      refuse("size", `the tier ${body.size} contradicts resolution ${body.resolution}; send one of them`);
    }
    return;
  }
  if (body.resolution !== undefined && resolutionOf(pixels) !== body.resolution) {
    refuse("size", `${body.size} is a ${resolutionOf(pixels)} size and contradicts resolution ${body.resolution}; explicit pixels need no resolution`);
  }
  if (body.aspect_ratio !== undefined && !fitsAspectRatio(pixels, body.aspect_ratio)) {
    refuse("size", `${body.size} is not the aspect ratio ${body.aspect_ratio}; explicit pixels need no aspect_ratio`);
  }
}

/** A transparent background needs a format with an alpha channel. */
function checkBackground(body: ImagesRequestBody): void {
  if (body.background === "transparent" && (body.output_format === "jpeg" || body.output_format === "svg")) {
    refuse("background", `transparent needs output_format png or webp, not ${body.output_format}`);
  }
}

/** A validated POST /images body → the canonical images request. */
export function decodeImages(raw: Record<string, unknown>, envelope: RoutingEnvelope): ImagesRequest {
  const body = raw as ImagesRequestBody;
  if (envelope.model === "" && envelope.preset === undefined) refuse("model", "is required");
  checkSize(body);
  checkBackground(body);
  const request: ImagesRequest = { ...envelope, operation: "images", prompt: body.prompt };
  if (body.n !== undefined) request.n = body.n;
  if (body.size !== undefined) request.size = body.size;
  if (body.resolution !== undefined) request.resolution = body.resolution;
  if (body.aspect_ratio !== undefined) request.aspectRatio = body.aspect_ratio;
  if (body.quality !== undefined) request.quality = body.quality;
  if (body.output_format !== undefined) request.outputFormat = body.output_format;
  if (body.background !== undefined) request.background = body.background;
  // Compression applies to webp and jpeg; with png or svg asked for it is ignored, as the reference has it.
  if (body.output_compression !== undefined && body.output_format !== "png" && body.output_format !== "svg") {
    request.outputCompression = body.output_compression;
  }
  if (body.seed !== undefined) request.seed = body.seed;
  if (body.input_references !== undefined && body.input_references.length > 0) {
    request.inputReferences = body.input_references.map((part) => part.image_url.url);
  }
  const options = body.provider?.options;
  if (options !== undefined && Object.keys(options).length > 0) request.providerOptions = options;
  return request;
}
