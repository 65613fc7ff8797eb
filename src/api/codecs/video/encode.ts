import type { VideoJob } from "../../../core/video-job.ts";

/**
 * The job object of POST /videos (202) and GET /videos/{id}: `{id, polling_url, status,
 * generation_id, unsigned_urls?, usage?, error?}`. Once completed it lists one content URL per output
 * and the usage; a failed or cancelled job says why. `baseUrl` is the API's base as the client reached
 * it (ending in `/api/v1`).
 */
export function encodeJob(job: VideoJob, baseUrl: string): Record<string, unknown> {
  const jobUrl = `${baseUrl}/videos/${encodeURIComponent(job.id)}`;
  const body: Record<string, unknown> = { id: job.id, polling_url: jobUrl, status: job.status, generation_id: job.generationId };
  if (job.status === "completed") {
    body.unsigned_urls = Array.from({ length: job.outputs ?? 1 }, (_, index) => `${jobUrl}/content?index=${index}`);
    body.usage = { cost: job.cost, is_byok: false };
  }
  if (job.error !== null) body.error = job.error;
  return body;
}
