/**
 * A video generation job as the gateway keeps it (POST /videos answers at once with a job; the job is
 * polled upstream until it settles, and kept until it expires), and the repository port that stores
 * jobs. Jobs survive a restart: the table is the state.
 */
import type { GuardrailFlag } from "./content-filters.ts";
import type { AttemptSummary } from "./generation.ts";
import type { VideoRequest, VideoStatus } from "./operations.ts";
import type { Usage } from "./usage.ts";

export interface VideoJob {
  /** The gateway's own id (`vid-…`). */
  id: string;
  workspaceId: string;
  /** The hash of the key that submitted the job. */
  keyHash: string;
  /** The generation the job is recorded and charged as. */
  generationId: string;
  /** The catalog model, as the client named it (after preset expansion). */
  model: string;
  providerSlug: string;
  /** The catalog endpoint that took the job: polls and content go to it, never to another. */
  endpointKey: string;
  /** The upstream's own job id. */
  upstreamId: string;
  status: VideoStatus;
  /** How many outputs the completed job has (null before completion). */
  outputs: number | null;
  error: string | null;
  /** The canonical request as submitted. */
  request: VideoRequest;
  /** The submission's upstream attempts (a failover before the endpoint that took the job), for the record. */
  attempts: AttemptSummary[];
  /** The guardrails' flagging content filters the prompt matched, for the record (null: none). */
  guardrailFlags: GuardrailFlag[] | null;
  /** The meters charged, once completed. */
  usage: Usage | null;
  /** USD, once completed (0 before). */
  cost: number;
  /** ISO 8601 UTC timestamps. */
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  /** After this the job is `expired` and its content is gone. */
  expiresAt: string;
}

/** What a poll or an expiry changes on a job. */
export type VideoJobChanges = Partial<Pick<VideoJob, "status" | "outputs" | "error" | "usage" | "cost" | "updatedAt" | "completedAt" | "expiresAt">>;

/** Where jobs are kept (SQLite today; asynchronous so that a shared database can serve replicas). */
export interface VideoJobRepository {
  insert(job: VideoJob): Promise<void>;
  get(id: string): Promise<VideoJob | undefined>;
  /** Jobs still running upstream (`pending`, `in_progress`), oldest first, at most `limit`. */
  listActive(limit: number): Promise<VideoJob[]>;
  /** Changes a job that is still running; undefined when it is not (it settled or expired meanwhile). */
  updateActive(id: string, changes: VideoJobChanges): Promise<VideoJob | undefined>;
  /** Marks every job whose `expiresAt` is at or before `now` (and not yet expired) `expired`; returns their ids. */
  expire(now: string): Promise<string[]>;
}
