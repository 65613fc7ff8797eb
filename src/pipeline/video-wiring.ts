/**
 * What the video job poller needs of routing and the adapters: asking the endpoint that took a job for
 * its state and its content, the cost of its meters, and, once it settles, its one generation record
 * and the settlement of the spend reserved at submission.
 */
import type { CatalogModel, Endpoint } from "../core/catalog-types.ts";
import { chargeFor } from "../core/cost.ts";
import { GatewayError } from "../core/errors.ts";
import type { VideoJob } from "../core/video-job.ts";
import { adapterFor } from "../providers/registry.ts";
import { call } from "../transport/engine.ts";
import type { PipelineDeps } from "./deps.ts";
import { type AttemptRecord, generationRow, usageFields } from "./generation-record.ts";
import type { Reservation } from "./limits.ts";
import type { VideoJobsOptions } from "./video-jobs.ts";

export interface VideoHooks extends Required<Pick<VideoJobsOptions, "poll" | "fetchContent" | "costOf" | "onSettled">> {
  /** Keeps the spend reserved at a job's submission until the job settles. */
  hold(generationId: string, reservation: Reservation | undefined): void;
}

export function videoHooks(deps: PipelineDeps): VideoHooks {
  const held = new Map<string, Reservation>();

  /** The endpoint that took the job; a job whose endpoint left the catalog fails (nothing else may answer for it). */
  const endpointOf = (job: VideoJob): { model: CatalogModel; endpoint: Endpoint } => {
    const model = deps.catalog.model(job.model);
    const endpoint = model?.endpoints.find((candidate) => candidate.key === job.endpointKey);
    if (!model || !endpoint) throw new GatewayError("not_found", `The endpoint that took video job ${job.id} (${job.endpointKey}) is no longer configured`);
    return { model, endpoint };
  };

  /** The adapter's video member, and what the engine needs to reach the endpoint. */
  const reach = (job: VideoJob, signal: AbortSignal) => {
    const { endpoint } = endpointOf(job);
    const adapter = adapterFor(endpoint.provider);
    const video = adapter.video;
    if (!video) throw new GatewayError("not_found", `${endpoint.provider.name} no longer serves video generation`);
    const options = { stream: false, apiKey: deps.credentialFor(job.workspaceId, endpoint) };
    return { endpoint, adapter, video, options, send: { fetch: deps.transports.fetchFor(endpoint.provider), signal } };
  };

  return {
    hold(generationId, reservation) {
      if (reservation) held.set(generationId, reservation);
    },

    async poll(job, signal) {
      const { endpoint, adapter, video, options, send } = reach(job, signal);
      const answer = await call(video.poll.buildRequest(job.upstreamId, endpoint, options), endpoint, adapter, send);
      return video.poll.parseResponse(answer, endpoint);
    },

    async fetchContent(job, index, signal) {
      const { endpoint, adapter, video, options, send } = reach(job, signal);
      const upstream = { ...video.content.buildRequest(job.upstreamId, index, endpoint, options), answer: "bytes" as const };
      const answer = await call(upstream, endpoint, adapter, send);
      const mediaType = answer.headers.get("content-type")?.split(";")[0]?.trim() || "video/mp4";
      return { body: answer.body as ReadableStream<Uint8Array>, mediaType };
    },

    costOf(job, usage) {
      return chargeFor(endpointOf(job).endpoint.pricing).total(usage);
    },

    onSettled(job) {
      let endpoint: Endpoint | undefined;
      try {
        endpoint = endpointOf(job).endpoint;
      } catch {
        endpoint = undefined;
      }
      const completed = job.status === "completed";
      const usage = completed ? job.usage : null;
      const reservation = held.get(job.generationId);
      held.delete(job.generationId);
      deps.budget?.settle(reservation, completed ? job.cost : 0);
      const row = generationRow(
        { id: job.generationId, request: job.request, style: "video", caller: { workspaceId: job.workspaceId, keyHash: job.keyHash }, endpoint, started: performance.now(), attempts: job.attempts as AttemptRecord[], images: 0, flags: job.guardrailFlags ?? [] },
        {
          status: completed ? 200 : 502,
          errorCode: completed ? null : job.status === "cancelled" ? "cancelled" : "video_failed",
          cancelled: job.status === "cancelled",
          upstreamId: job.upstreamId,
          ...(usage && endpoint ? usageFields(usage, chargeFor(endpoint.pricing)) : {}),
          latencyMs: Date.parse(job.updatedAt) - Date.parse(job.createdAt),
          generationTimeMs: Date.parse(job.updatedAt) - Date.parse(job.createdAt),
          createdAt: job.createdAt,
        },
      );
      deps.generations.record(row);
      deps.metrics?.generation(row);
    },
  };
}
