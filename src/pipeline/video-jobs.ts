/**
 * Video jobs after their submission: kept in the job table, polled upstream until they settle, then
 * kept until they expire. One timer polls every running job (not one timer per job); the table is the
 * state, so after a restart the jobs it holds are polled again from the first round. Content is never
 * copied: each download streams the upstream's bytes on demand, so once a job expires (default 24 h
 * after it settled, or after its submission if it never did) its content is gone for the client too.
 * Webhooks (`callback_url`) are not sent yet: `onSettled` is where they will go.
 *
 * Routing and the adapters are the caller's: polling a job and fetching its content are functions the
 * caller passes in, asking the very endpoint that took the job.
 */
import type { GuardrailFlag } from "../core/content-filters.ts";
import { GatewayError } from "../core/errors.ts";
import { describeError, type Logger } from "../core/log.ts";
import type { VideoJobState, VideoRequest, VideoStatus } from "../core/operations.ts";
import { emptyUsage, type Usage } from "../core/usage.ts";
import type { VideoJob, VideoJobChanges, VideoJobRepository } from "../core/video-job.ts";

/** Asks the endpoint that took a job for the job's state. */
export type PollVideoJob = (job: VideoJob, signal: AbortSignal) => Promise<VideoJobState>;

/** Output `index` of a completed job as its endpoint sends it, and its media type. */
export interface VideoContent {
  body: ReadableStream<Uint8Array>;
  mediaType: string;
}

/** Opens the download of output `index` of a completed job from the endpoint that made it. */
export type FetchVideoContent = (job: VideoJob, index: number, signal: AbortSignal) => Promise<VideoContent>;

export interface VideoJobsOptions {
  repository: VideoJobRepository;
  poll: PollVideoJob;
  fetchContent: FetchVideoContent;
  /** USD of a completed job's meters (default: nothing). */
  costOf?: (job: VideoJob, usage: Usage) => number;
  /** Called once when a job settles (completed, failed, cancelled): the generation record, webhooks. */
  onSettled?: (job: VideoJob) => void | Promise<void>;
  /** Between polling rounds (default 2 s). */
  intervalMs?: number;
  /** How long a job is kept after it settled, or after its submission while it runs (default 24 h). */
  retentionMs?: number;
  /** Running jobs polled per round, oldest first (default 100), and at once (default 4). */
  batchSize?: number;
  concurrency?: number;
  now?: () => number;
  logger?: Logger;
}

/** A job the upstream accepted, to be kept: the job's fields known at its submission, and what the upstream answered. */
export interface NewVideoJob extends Pick<VideoJob, "workspaceId" | "keyHash" | "generationId" | "model" | "providerSlug" | "endpointKey" | "request" | "attempts"> {
  /** What the upstream answered to the submission. */
  state: VideoJobState;
  /** The guardrails' flagging content filters the prompt matched (none when absent). */
  guardrailFlags?: GuardrailFlag[];
}

const SETTLED: ReadonlySet<VideoStatus> = new Set(["completed", "failed", "cancelled"]);

/** A job id: `vid-` and a time-ordered UUID without its dashes. */
export function newVideoJobId(): string {
  return `vid-${Bun.randomUUIDv7().replaceAll("-", "")}`;
}

function iso(milliseconds: number): string {
  return new Date(milliseconds).toISOString();
}

/** Runs `work` on every item, at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export class VideoJobs {
  readonly #options: VideoJobsOptions;
  readonly #intervalMs: number;
  readonly #retentionMs: number;
  readonly #now: () => number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;
  #round: Promise<void> | undefined;
  #controller = new AbortController();

  constructor(options: VideoJobsOptions) {
    this.#options = options;
    this.#intervalMs = options.intervalMs ?? 2_000;
    this.#retentionMs = options.retentionMs ?? 24 * 60 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** Keeps a job the upstream accepted; one that settled at once is settled here. */
  async create(input: NewVideoJob): Promise<VideoJob> {
    const now = this.#now();
    const job: VideoJob = {
      id: newVideoJobId(),
      workspaceId: input.workspaceId,
      keyHash: input.keyHash,
      generationId: input.generationId,
      model: input.model,
      providerSlug: input.providerSlug,
      endpointKey: input.endpointKey,
      upstreamId: input.state.upstreamId,
      status: "pending",
      outputs: null,
      error: null,
      request: input.request,
      attempts: input.attempts,
      guardrailFlags: input.guardrailFlags ?? null,
      usage: null,
      cost: 0,
      createdAt: iso(now),
      updatedAt: iso(now),
      completedAt: null,
      expiresAt: iso(now + this.#retentionMs),
    };
    const kept = { ...job, ...this.#changes(job, input.state, now) };
    await this.#options.repository.insert(kept);
    if (SETTLED.has(kept.status)) await this.#settled(kept);
    else this.#arm();
    return kept;
  }

  /** A job of the workspace; a job past its retention is `expired` even before the next round marks it. */
  async get(id: string, workspaceId: string): Promise<VideoJob> {
    const job = await this.#options.repository.get(id);
    if (job === undefined || job.workspaceId !== workspaceId) throw new GatewayError("not_found", `No video job ${id}`);
    const now = this.#now();
    if (job.status === "expired" || Date.parse(job.expiresAt) > now) return job;
    await this.#options.repository.expire(iso(now));
    return { ...job, status: "expired", updatedAt: iso(now) };
  }

  /** Output `index` of a completed job, streamed from the upstream; an expired job's content is gone (404). */
  async content(id: string, workspaceId: string, index: number, signal: AbortSignal): Promise<VideoContent> {
    const job = await this.get(id, workspaceId);
    if (job.status === "expired") throw new GatewayError("not_found", `Video job ${id} expired; its content is no longer available`);
    if (job.status !== "completed") throw new GatewayError("bad_request", `Video job ${id} is ${job.status}; content exists only once it completed`);
    const outputs = job.outputs ?? 1;
    if (!Number.isInteger(index) || index < 0 || index >= outputs) {
      throw new GatewayError("bad_request", `index: must be an integer from 0 to ${outputs - 1}`);
    }
    return this.#options.fetchContent(job, index, signal);
  }

  /**
   * Starts polling: the jobs the table holds are picked up again. The timer runs only while some job is
   * running upstream (an idle gateway keeps none); a new job arms it.
   */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    if (this.#controller.signal.aborted) this.#controller = new AbortController();
    this.#options.repository.listActive(1).then(
      (jobs) => {
        if (jobs.length > 0) this.#arm();
      },
      (error) => this.#options.logger?.error("video jobs could not be read", { error: describeError(error) }),
    );
  }

  /** Stops polling: the timer is cleared, polls in flight are aborted, the round in progress is awaited. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#controller.abort();
    await this.#round;
  }

  /** Schedules the next round unless one is scheduled or running. */
  #arm(): void {
    if (this.#running && this.#timer === undefined && this.#round === undefined) this.#schedule();
  }

  /**
   * One round: jobs past their retention expire, then every running job (up to the batch) is polled.
   * Returns whether jobs were still running at its start (another round is then due).
   */
  async pollOnce(): Promise<boolean> {
    const repository = this.#options.repository;
    const expired = await repository.expire(iso(this.#now()));
    if (expired.length > 0) this.#options.logger?.info("video jobs expired", { count: expired.length });
    const jobs = await repository.listActive(this.#options.batchSize ?? 100);
    await eachLimited(jobs, this.#options.concurrency ?? 4, (job) => this.#pollJob(job));
    return jobs.length > 0;
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#round = this.pollOnce()
        .catch((error) => {
          this.#options.logger?.error("video job round failed", { error: describeError(error) });
          return true;
        })
        .then((more) => {
          this.#round = undefined;
          if (more) this.#arm();
        });
    }, this.#intervalMs);
    this.#timer.unref?.();
  }

  async #pollJob(job: VideoJob): Promise<void> {
    const signal = this.#controller.signal;
    let changes: VideoJobChanges;
    try {
      const state = await this.#options.poll(job, signal);
      if (state.status === job.status && !SETTLED.has(state.status)) return;
      changes = this.#changes(job, state, this.#now());
    } catch (error) {
      if (signal.aborted) return;
      if (!(error instanceof GatewayError) || error.retryable) {
        // The upstream may answer next round; a job that never settles expires with its retention.
        this.#options.logger?.warn("video job poll failed", { job: job.id, error: describeError(error) });
        return;
      }
      changes = this.#changes(job, { upstreamId: job.upstreamId, status: "failed", error: error.message }, this.#now());
    }
    const updated = await this.#options.repository.updateActive(job.id, changes);
    if (updated !== undefined && SETTLED.has(updated.status)) await this.#settled(updated);
  }

  /** What an upstream state changes on a job; a settled job is kept a retention from now. */
  #changes(job: VideoJob, state: VideoJobState, now: number): VideoJobChanges {
    const changes: VideoJobChanges = { status: state.status, updatedAt: iso(now) };
    if (!SETTLED.has(state.status)) return changes;
    changes.completedAt = iso(now);
    changes.expiresAt = iso(now + this.#retentionMs);
    if (state.status === "completed") {
      const usage = meteredUsage(state.usage, job.request);
      changes.outputs = state.outputs ?? 1;
      changes.usage = usage;
      changes.cost = this.#options.costOf?.(job, usage) ?? 0;
    } else {
      changes.error = state.error ?? `the upstream reported the job ${state.status}`;
    }
    return changes;
  }

  async #settled(job: VideoJob): Promise<void> {
    try {
      await this.#options.onSettled?.(job);
    } catch (error) {
      this.#options.logger?.error("video job settlement hook failed", { job: job.id, error: describeError(error) });
    }
  }
}

/** A completed job's meters: as reported, with the requested duration when the upstream gave none. */
function meteredUsage(reported: Usage | undefined, request: VideoRequest): Usage {
  const usage = { ...(reported ?? emptyUsage()) };
  if (usage.videoSeconds === undefined && request.duration !== undefined) usage.videoSeconds = request.duration;
  return usage;
}
