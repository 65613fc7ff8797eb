import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMediaUpstream } from "../../test/helpers/media-upstreams.ts";
import { serverForTests } from "../../test/helpers/recording-server.ts";
import type { VideoRequest } from "../core/operations.ts";
import { rejectedGatewayError } from "../core/test-support.ts";
import type { VideoJob } from "../core/video-job.ts";
import { type Backend, openSqliteBackend } from "../db/backend.ts";
import { VideoJobStore } from "../db/video-jobs.ts";
import { openAiCompatibleAdapter as adapter } from "../providers/openai-compatible/adapter.ts";
import { makeEndpoint } from "../providers/openai-compatible/test-support.ts";
import { send, throughEngine } from "../providers/test-support.ts";
import { type VideoJobsOptions, VideoJobs } from "./video-jobs.ts";

const upstream = serverForTests(startMediaUpstream);

const HOUR = 60 * 60_000;
const endpoint = makeEndpoint({ key: "wan:wan-2.2", upstreamModel: "wan-2.2" }, { slug: "wan", name: "Wan", baseUrl: upstream.baseUrl });
const build = { stream: false, apiKey: undefined };
const request: VideoRequest = { model: "acme/filmmaker", operation: "video", prompt: "waves at dusk", duration: 6 };

/** A clock the test moves. */
function clock(start = Date.parse("2026-11-01T12:00:00Z")) {
  let now = start;
  return { now: () => now, advance: (milliseconds: number) => (now += milliseconds) };
}

/** VideoJobs on a store, polling and downloading through the real adapter and engine; settled jobs are collected. */
function videoJobs(db: Backend, options: Partial<VideoJobsOptions> = {}) {
  const settled: VideoJob[] = [];
  const jobs = new VideoJobs({
    repository: new VideoJobStore(db),
    poll: async (job, signal) => adapter.video.poll.parseResponse(await send(adapter.video.poll.buildRequest(job.upstreamId, endpoint, build), endpoint, adapter, signal), endpoint),
    fetchContent: async (job, index, signal) => {
      const answer = await send(adapter.video.content.buildRequest(job.upstreamId, index, endpoint, build), endpoint, adapter, signal);
      return { body: answer.body as ReadableStream<Uint8Array>, mediaType: answer.headers.get("content-type") ?? "application/octet-stream" };
    },
    costOf: (_job, usage) => (usage.videoSeconds ?? 0) * 0.25,
    onSettled: (job) => {
      settled.push(job);
    },
    ...options,
  });
  return { jobs, settled };
}

/** Submits through the adapter and keeps the job, as the pipeline does. */
async function submit(jobs: VideoJobs, workspaceId = "ws-1"): Promise<VideoJob> {
  const state = await throughEngine(adapter, adapter.video.submit, request, endpoint);
  return jobs.create({ workspaceId, keyHash: "key-1", generationId: "gen-1762000000-abc", model: request.model, providerSlug: "wan", endpointKey: "wan:wan-2.2", request, attempts: [], state });
}

describe("video jobs: polling", () => {
  test("a submitted job is kept pending, then polled to in_progress and to completed, metered, charged and settled once", async () => {
    const time = clock();
    const { jobs, settled } = videoJobs(openSqliteBackend({ dataDir: ":memory:" }), { now: time.now, retentionMs: 24 * HOUR });
    const job = await submit(jobs);
    expect(job).toMatchObject({ status: "pending", workspaceId: "ws-1", upstreamId: expect.stringMatching(/^video_/), cost: 0, usage: null, outputs: null });
    expect(job.id).toMatch(/^vid-[0-9a-f]{32}$/);
    expect(job.expiresAt).toBe("2026-11-02T12:00:00.000Z");

    time.advance(2_000);
    await jobs.pollOnce();
    expect((await jobs.get(job.id, "ws-1")).status).toBe("in_progress");
    expect(settled).toHaveLength(0);

    time.advance(2_000);
    await jobs.pollOnce();
    const done = await jobs.get(job.id, "ws-1");
    expect(done).toMatchObject({ status: "completed", outputs: 1, cost: 1.5, completedAt: "2026-11-01T12:00:04.000Z", expiresAt: "2026-11-02T12:00:04.000Z" });
    expect(done.usage?.videoSeconds).toBe(6);
    expect(settled.map((entry) => entry.id)).toEqual([job.id]);

    await jobs.pollOnce();
    expect(upstream.requests.filter((sent) => sent.method === "GET")).toHaveLength(2);
    expect(settled).toHaveLength(1);
  });

  test("an upstream that reports no seconds: the job is metered by the duration requested", async () => {
    const { jobs } = videoJobs(openSqliteBackend({ dataDir: ":memory:" }));
    upstream.behave({ withoutSeconds: true, pollStatuses: ["completed"] });
    const job = await submit(jobs);
    await jobs.pollOnce();
    expect(await jobs.get(job.id, "ws-1")).toMatchObject({ status: "completed", usage: { videoSeconds: 6 }, cost: 1.5 });
  });

  test("a failed job keeps the upstream's reason; an upstream that lost the job fails it; a passing failure does not", async () => {
    const { jobs, settled } = videoJobs(openSqliteBackend({ dataDir: ":memory:" }));
    upstream.behave({ pollStatuses: ["failed"], jobError: { message: "out of memory" } });
    const failed = await submit(jobs);
    await jobs.pollOnce();
    expect(await jobs.get(failed.id, "ws-1")).toMatchObject({ status: "failed", error: "out of memory" });

    upstream.behave({});
    const running = await submit(jobs);
    upstream.behave({ status: 503 });
    await jobs.pollOnce();
    expect((await jobs.get(running.id, "ws-1")).status).toBe("pending");

    upstream.behave({ status: 404 });
    await jobs.pollOnce();
    const lost = await jobs.get(running.id, "ws-1");
    expect(lost.status).toBe("failed");
    expect(lost.error).toContain("Wan does not know the model");
    expect(settled.map((job) => job.status)).toEqual(["failed", "failed"]);
  });

  test("started, the rounds poll every running job until it settles; stopped, they end", async () => {
    const { jobs } = videoJobs(openSqliteBackend({ dataDir: ":memory:" }), { intervalMs: 20 });
    const submitted = await Promise.all([submit(jobs), submit(jobs), submit(jobs)]);
    jobs.start();
    for (let waited = 0; waited < 2_000; waited += 20) {
      const statuses = await Promise.all(submitted.map(async (job) => (await jobs.get(job.id, "ws-1")).status));
      if (statuses.every((status) => status === "completed")) break;
      await Bun.sleep(20);
    }
    await jobs.stop();
    for (const job of submitted) expect((await jobs.get(job.id, "ws-1")).status).toBe("completed");
    const polls = upstream.requests.length;
    await Bun.sleep(60);
    expect(upstream.requests.length).toBe(polls);
  });

  test("jobs survive a restart: a new VideoJobs on the same database resumes polling them", async () => {
    const directory = mkdtempSync(join(tmpdir(), "video-jobs-"));
    try {
      const before = openSqliteBackend({ dataDir: directory });
      const first = videoJobs(before);
      const job = await submit(first.jobs);
      await first.jobs.pollOnce();
      await first.jobs.stop();
      await before.close();

      const after = openSqliteBackend({ dataDir: directory });
      const second = videoJobs(after, { intervalMs: 10 });
      second.jobs.start();
      for (let waited = 0; waited < 2_000 && second.settled.length === 0; waited += 10) await Bun.sleep(10);
      await second.jobs.stop();
      expect(second.settled.map((settled) => [settled.id, settled.status])).toEqual([[job.id, "completed"]]);
      await after.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe("video jobs: reading and content", () => {
  test("a job of another workspace is not found", async () => {
    const { jobs } = videoJobs(openSqliteBackend({ dataDir: ":memory:" }));
    const job = await submit(jobs);
    expect((await rejectedGatewayError(jobs.get(job.id, "ws-2"))).code).toBe("not_found");
    expect((await rejectedGatewayError(jobs.get("vid-missing", "ws-1"))).code).toBe("not_found");
  });

  test("content streams the upstream's bytes once completed; before that, or out of range, it is a 400", async () => {
    const { jobs } = videoJobs(openSqliteBackend({ dataDir: ":memory:" }));
    const job = await submit(jobs);
    const early = await rejectedGatewayError(jobs.content(job.id, "ws-1", 0, new AbortController().signal));
    expect(early.message).toBe(`Video job ${job.id} is pending; content exists only once it completed`);
    await jobs.pollOnce();
    await jobs.pollOnce();
    const content = await jobs.content(job.id, "ws-1", 0, new AbortController().signal);
    expect(content.mediaType).toBe("video/mp4");
    expect(new Uint8Array(await new Response(content.body).arrayBuffer())).toEqual(upstream.video);
    expect((await rejectedGatewayError(jobs.content(job.id, "ws-1", 1, new AbortController().signal))).message).toBe("index: must be an integer from 0 to 0");
  });

  test("after the retention a job is expired (at once when read, and by the next round), and its content is gone", async () => {
    const time = clock();
    const db = openSqliteBackend({ dataDir: ":memory:" });
    const { jobs } = videoJobs(db, { now: time.now, retentionMs: HOUR });
    const job = await submit(jobs);
    await jobs.pollOnce();
    await jobs.pollOnce();
    time.advance(HOUR + 1);
    expect((await jobs.get(job.id, "ws-1")).status).toBe("expired");
    const gone = await rejectedGatewayError(jobs.content(job.id, "ws-1", 0, new AbortController().signal));
    expect(gone.code).toBe("not_found");
    expect(gone.message).toBe(`Video job ${job.id} expired; its content is no longer available`);

    const stuck = await submit(jobs);
    upstream.behave({ pollStatuses: ["in_progress"] });
    await jobs.pollOnce();
    time.advance(HOUR + 1);
    await jobs.pollOnce();
    expect((await new VideoJobStore(db).get(stuck.id))?.status).toBe("expired");
    const polls = upstream.requests.filter((sent) => sent.method === "GET").length;
    await jobs.pollOnce();
    expect(upstream.requests.filter((sent) => sent.method === "GET").length).toBe(polls);
  });
});
