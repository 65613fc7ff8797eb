import type { RoutingEnvelope } from "../../../core/envelope.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { VideoRequest } from "../../../core/operations.ts";
import type { VideoRequestBody } from "./schema.ts";

function refuse(field: string, reason: string): never {
  throw new GatewayError("bad_request", `${field}: ${reason}`);
}

/** Image references only: the canonical request keeps URLs, not their kind, so audio and video ones cannot travel. */
function imageReferences(references: NonNullable<VideoRequestBody["input_references"]>): string[] {
  return references.map((reference, index) => {
    if (reference.type !== "image_url") refuse(`input_references[${index}]`, `${reference.type} references are not supported by this gateway; send image_url references`);
    return reference.image_url.url;
  });
}

/** A validated POST /videos body → the canonical video request. */
export function decodeVideo(raw: Record<string, unknown>, envelope: RoutingEnvelope): VideoRequest {
  const body = raw as VideoRequestBody;
  if (envelope.model === "" && envelope.preset === undefined) refuse("model", "is required");
  const frames = body.frame_images ?? [];
  if (frames.length === 2 && frames[0]!.frame_type === frames[1]!.frame_type) refuse("frame_images", `two images are both the ${frames[0]!.frame_type}`);
  const references = body.input_references ?? [];
  if (body.prompt === undefined && frames.length === 0 && references.length === 0) {
    refuse("prompt", "is required unless frame_images or input_references are given");
  }
  const request: VideoRequest = { ...envelope, operation: "video" };
  if (body.prompt !== undefined) request.prompt = body.prompt;
  if (body.duration !== undefined) request.duration = body.duration;
  if (body.resolution !== undefined) request.resolution = body.resolution;
  if (body.aspect_ratio !== undefined) request.aspectRatio = body.aspect_ratio;
  if (body.size !== undefined) request.size = body.size;
  if (frames.length > 0) request.frameImages = frames.map((frame) => ({ url: frame.image_url.url, frameType: frame.frame_type }));
  // With both, frame images win (the reference's rule): the references are not used.
  else if (references.length > 0) request.inputReferences = imageReferences(references);
  if (body.generate_audio !== undefined) request.generateAudio = body.generate_audio;
  if (body.seed !== undefined) request.seed = body.seed;
  if (body.callback_url !== undefined) request.callbackUrl = body.callback_url;
  const options = body.provider?.options;
  if (options !== undefined && Object.keys(options).length > 0) request.providerOptions = options;
  return request;
}
