/** Test support for every layer: the GatewayError a call throws, or a promise rejects with; a video job. */
import { expect } from "bun:test";
import { GatewayError } from "./errors.ts";
import type { VideoJob } from "./video-job.ts";

/** The GatewayError `run` throws; fails the test when it throws anything else, or returns. */
export function thrownGatewayError(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error("expected a GatewayError; the call returned");
}

/** The GatewayError `promise` rejects with; fails the test when it rejects with anything else, or resolves. */
export async function rejectedGatewayError(promise: Promise<unknown>): Promise<GatewayError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => ({ error }),
  );
  if (outcome === undefined) throw new Error("expected a GatewayError; the promise resolved");
  expect(outcome.error).toBeInstanceOf(GatewayError);
  return outcome.error as GatewayError;
}

/** A pending video job of acme/filmmaker taken by wan:wan-2.2, created 2026-11-01 at noon UTC and kept a day, with `fields` over it. */
export function sampleVideoJob(fields: Partial<VideoJob> = {}): VideoJob {
  return {
    id: "vid-0199abc",
    workspaceId: "ws-1",
    keyHash: "key-1",
    generationId: "gen-1762000000-abc",
    model: "acme/filmmaker",
    providerSlug: "wan",
    endpointKey: "wan:wan-2.2",
    upstreamId: "video_1",
    status: "pending",
    outputs: null,
    error: null,
    request: { model: "acme/filmmaker", operation: "video", prompt: "fox" },
    attempts: [],
    guardrailFlags: null,
    usage: null,
    cost: 0,
    createdAt: "2026-11-01T12:00:00.000Z",
    updatedAt: "2026-11-01T12:00:00.000Z",
    completedAt: null,
    expiresAt: "2026-11-02T12:00:00.000Z",
    ...fields,
  };
}
