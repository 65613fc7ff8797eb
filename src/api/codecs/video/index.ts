import type { VideoRequest } from "../../../core/operations.ts";
import type { VideoJob } from "../../../core/video-job.ts";
import type { OperationCodec } from "../operation-codec.ts";
import { decodeVideo } from "./decode.ts";
import { encodeJob } from "./encode.ts";
import { VideoRequestBody } from "./schema.ts";

/**
 * Video generation (POST /videos, GET /videos/{id}): a request decodes like any operation's, but the
 * answer is a job, not a result, and names URLs on the gateway, so it is encoded by `encodeJob` with
 * the base URL the client reached rather than by `encode`.
 */
export interface VideoCodec extends Pick<OperationCodec<VideoRequest, VideoJob>, "operation" | "schema" | "decode"> {
  encodeJob(job: VideoJob, baseUrl: string): Record<string, unknown>;
}

export const videoCodec: VideoCodec = {
  operation: "video",
  schema: VideoRequestBody,
  decode: decodeVideo,
  encodeJob,
};
