import { expect, test } from "bun:test";
import { sampleVideoJob } from "../core/test-support.ts";
import type { VideoJob } from "../core/video-job.ts";
import { openSqliteBackend } from "./backend.ts";
import { VideoJobStore } from "./video-jobs.ts";

function job(id: string, fields: Partial<VideoJob> = {}): VideoJob {
  return sampleVideoJob({
    id,
    generationId: `gen-${id}`,
    upstreamId: `up-${id}`,
    attempts: [{ provider: "wan", endpoint: "wan:wan-2.2", status: 503, latency_ms: 12 }],
    request: { model: "acme/filmmaker", operation: "video", prompt: "waves", providerOptions: { wan: { steps: 20 } } },
    guardrailFlags: [{ guardrail_id: "guardrail-1", filter: "person-name" }],
    ...fields,
  });
}

test("a job comes back as it was kept, its request and usage as JSON", async () => {
  const store = new VideoJobStore(openSqliteBackend({ dataDir: ":memory:" }));
  const kept = job("vid-a", { status: "completed", outputs: 1, usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, videoSeconds: 4 }, cost: 0.2 });
  await store.insert(kept);
  expect(await store.get("vid-a")).toEqual(kept);
  expect(await store.get("vid-b")).toBeUndefined();
});

test("only running jobs are listed (oldest first) and changed; settled and expired ones stay as they are", async () => {
  const store = new VideoJobStore(openSqliteBackend({ dataDir: ":memory:" }));
  await store.insert(job("vid-new", { createdAt: "2026-11-01T12:00:02.000Z", status: "in_progress" }));
  await store.insert(job("vid-old", { createdAt: "2026-11-01T12:00:01.000Z" }));
  await store.insert(job("vid-done", { status: "completed" }));
  expect((await store.listActive(10)).map((entry) => entry.id)).toEqual(["vid-old", "vid-new"]);
  expect((await store.listActive(1)).map((entry) => entry.id)).toEqual(["vid-old"]);
  expect(await store.updateActive("vid-done", { status: "failed" })).toBeUndefined();
  expect((await store.get("vid-done"))?.status).toBe("completed");
  expect((await store.updateActive("vid-old", { status: "in_progress" }))?.status).toBe("in_progress");
});

test("expire marks every job due at that time, once", async () => {
  const store = new VideoJobStore(openSqliteBackend({ dataDir: ":memory:" }));
  await store.insert(job("vid-due", { status: "completed" }));
  await store.insert(job("vid-later", { expiresAt: "2026-11-03T12:00:00.000Z" }));
  expect(await store.expire("2026-11-02T12:00:00.000Z")).toEqual(["vid-due"]);
  expect(await store.expire("2026-11-02T12:00:00.000Z")).toEqual([]);
  expect(await store.get("vid-due")).toMatchObject({ status: "expired", updatedAt: "2026-11-02T12:00:00.000Z" });
  expect((await store.get("vid-later"))?.status).toBe("pending");
});
