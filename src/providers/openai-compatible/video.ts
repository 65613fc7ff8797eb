import type { Endpoint } from "../../core/catalog-types.ts";
import { GatewayError } from "../../core/errors.ts";
import { aspectRatioValue } from "../../core/image-size.ts";
import type { VideoJobState, VideoRequest, VideoStatus } from "../../core/operations.ts";
import { emptyUsage } from "../../core/usage.ts";
import type { BuildOptions, UpstreamAnswer, UpstreamRequest, VideoOperation } from "../adapter.ts";
import { invalidUpstreamResponse } from "../../transport/upstream-errors.ts";
import { requestHeaders } from "./headers.ts";

type Json = Record<string, any>;

/**
 * Pixels of the shorter side of each resolution a video request may name: `p` tiers say it
 * themselves; `1K`, `2K` and `4K` are read as 1024, 1440 and 2160 lines.
 */
const SHORTER_SIDE: Record<string, number> = { "480p": 480, "720p": 720, "768p": 768, "1080p": 1080, "1K": 1024, "2K": 1440, "4K": 2160 };
const DEFAULT_SHORTER_SIDE = 720;
const DEFAULT_ASPECT_RATIO = 16 / 9;

/**
 * OpenAI's video wire takes the size as pixels: the request's own `size`, else pixels for its
 * resolution (default 720p) and aspect ratio (default 16:9), the longer side rounded to even.
 */
function upstreamSize(request: VideoRequest): string | undefined {
  if (request.size !== undefined) return request.size;
  if (request.resolution === undefined && request.aspectRatio === undefined) return undefined;
  const shorter = (request.resolution !== undefined ? SHORTER_SIDE[request.resolution] : undefined) ?? DEFAULT_SHORTER_SIDE;
  const ratio = (request.aspectRatio !== undefined ? aspectRatioValue(request.aspectRatio) : undefined) ?? DEFAULT_ASPECT_RATIO;
  const longer = Math.round((shorter * Math.max(ratio, 1 / ratio)) / 2) * 2;
  return ratio >= 1 ? `${longer}x${shorter}` : `${shorter}x${longer}`;
}

/** What the JSON wire cannot carry: said in the record instead of silently lost. */
function dropped(request: VideoRequest, endpoint: Endpoint): string[] {
  const warnings: string[] = [];
  if (request.frameImages?.length) warnings.push(`frame_images: ${endpoint.key} takes no frame images on its JSON wire; they were not sent`);
  if (request.inputReferences?.length) warnings.push(`input_references: ${endpoint.key} takes no references on its JSON wire; they were not sent`);
  if (request.generateAudio !== undefined) warnings.push(`generate_audio: ${endpoint.key} takes no audio switch; it was not sent`);
  if (request.seed !== undefined) warnings.push(`seed: ${endpoint.key} takes no seed; it was not sent`);
  return warnings;
}

/** `POST {base}/videos` with `{model, prompt, seconds, size}` (seconds as the string OpenAI takes) and the provider's options. */
function buildSubmit(request: VideoRequest, endpoint: Endpoint, options: BuildOptions): UpstreamRequest {
  const body: Json = { ...request.providerOptions?.[endpoint.provider.slug], model: endpoint.upstreamModel };
  if (request.prompt !== undefined) body.prompt = request.prompt;
  if (request.duration !== undefined) body.seconds = String(request.duration);
  const size = upstreamSize(request);
  if (size !== undefined) body.size = size;
  const upstream: UpstreamRequest = {
    url: `${endpoint.provider.baseUrl}/videos`,
    method: "POST",
    headers: requestHeaders(endpoint.provider, options.apiKey, true),
    body,
    answer: "json",
  };
  const warnings = dropped(request, endpoint);
  if (warnings.length > 0) upstream.warnings = warnings;
  return upstream;
}

/** OpenAI's job statuses → the gateway's (`queued` is `pending`). */
const STATUSES: Record<string, VideoStatus> = {
  queued: "pending",
  in_progress: "in_progress",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
};

function errorText(error: unknown): string {
  if (typeof error === "string" && error !== "") return error;
  const message = (error as Json | null)?.message;
  return typeof message === "string" && message !== "" ? message : "the upstream reported a failure";
}

/**
 * An OpenAI video object → the job's state. A completed job is metered by its duration: the `seconds`
 * the upstream reports, else the seconds requested (known at submission only).
 */
function jobState(body: unknown, endpoint: Endpoint, requestedSeconds?: number): VideoJobState {
  const job = body as Json;
  if (typeof job?.id !== "string" || job.id === "") throw invalidUpstreamResponse(endpoint, "the video job has no id");
  const status = STATUSES[String(job.status)];
  if (status === undefined) throw invalidUpstreamResponse(endpoint, `unknown video job status ${JSON.stringify(job.status)}`);
  const state: VideoJobState = { upstreamId: job.id, status };
  if (status === "failed") state.error = errorText(job.error);
  if (status === "completed") {
    state.outputs = 1;
    const seconds = Number(job.seconds);
    const metered = Number.isFinite(seconds) && seconds > 0 ? seconds : requestedSeconds;
    if (metered !== undefined) state.usage = { ...emptyUsage(), videoSeconds: metered };
  }
  return state;
}

function jobUrl(endpoint: Endpoint, upstreamId: string): string {
  return `${endpoint.provider.baseUrl}/videos/${encodeURIComponent(upstreamId)}`;
}

/** Video generation on OpenAI's videos wire: submit, poll the job, fetch its one output as bytes. */
export const openAiVideo: VideoOperation = {
  submit: {
    buildRequest: buildSubmit,
    parseResponse: (answer: UpstreamAnswer, endpoint: Endpoint, request: VideoRequest) => jobState(answer.body, endpoint, request.duration),
  },
  poll: {
    buildRequest: (upstreamId, endpoint, options) => ({
      url: jobUrl(endpoint, upstreamId),
      method: "GET",
      headers: requestHeaders(endpoint.provider, options.apiKey, false),
      answer: "json",
    }),
    parseResponse: (answer, endpoint) => jobState(answer.body, endpoint),
  },
  content: {
    buildRequest(upstreamId, index, endpoint, options) {
      if (index !== 0) throw new GatewayError("bad_request", `index: ${endpoint.provider.name} makes one video per job; only index 0 exists`);
      return {
        url: `${jobUrl(endpoint, upstreamId)}/content`,
        method: "GET",
        headers: requestHeaders(endpoint.provider, options.apiKey, false),
        answer: "bytes",
      };
    },
  },
};
