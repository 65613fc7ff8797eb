/** GenerationStore and VideoJobStore on both backends: records written behind, usage sums, video jobs. */
import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sampleVideoJob } from "../../src/core/test-support.ts";
import { GenerationStore } from "../../src/db/generations.ts";
import { VideoJobStore } from "../../src/db/video-jobs.ts";
import { DIALECTS, databases } from "./backends.ts";
import { generation, quiet } from "./rows.ts";

/** Wednesday 19 March 2025, noon UTC: the week began on Monday the 17th, the month on the 1st. */
const NOW = new Date("2025-03-19T12:00:00.000Z");

describe.each(DIALECTS)("GenerationStore on %s", (dialect) => {
  const open = databases(dialect);
  const options = { flushDelayMs: 60_000, journalFile: null };

  test("a record is readable at once where it was queued, and from another backend once flushed, every value intact", async () => {
    const { backend, another } = await open();
    const writer = new GenerationStore(backend, quiet, options);
    const reader = new GenerationStore(await another(), quiet, options);
    const record = generation("gen-a", { cancelled: true, streamed: false, upstreamId: "up-1", costs: { prompt: 0.125, completion: 0.125 } });
    await writer.record(record);
    expect(await writer.get("ws-1", "gen-a")).toEqual(record);
    expect(await writer.get("ws-2", "gen-a")).toBeUndefined();
    expect(await reader.get("ws-1", "gen-a")).toBeUndefined();
    expect(writer.pendingCount).toBe(1);
    await writer.flush();
    expect(writer.pendingCount).toBe(0);
    expect(await reader.get("ws-1", "gen-a")).toEqual(record);
    expect(await writer.get("ws-1", "gen-a")).toEqual(record);
    expect(await reader.get("ws-2", "gen-a")).toBeUndefined();
    await writer.close();
    await reader.close();
  });

  test("close writes what is queued; a record after close is not written", async () => {
    const { backend, another } = await open();
    const writer = new GenerationStore(backend, quiet, options);
    await writer.record(generation("gen-last"));
    await writer.close();
    await writer.record(generation("gen-late"));
    const reader = new GenerationStore(await another(), quiet, options);
    expect((await reader.get("ws-1", "gen-last"))?.id).toBe("gen-last");
    expect(await reader.get("ws-1", "gen-late")).toBeUndefined();
    await reader.close();
  });

  test("usage by key: total, today, this week and this month (and of each, BYOK spend), queued records included, as numbers", async () => {
    const { backend, another } = await open();
    const writer = new GenerationStore(backend, quiet, options);
    const rows = [
      generation("gen-today", { createdAt: "2025-03-19T01:00:00.000Z", totalCost: 0.25 }),
      generation("gen-monday", { createdAt: "2025-03-17T00:00:00.000Z", totalCost: 0.5, isByok: true }),
      generation("gen-month", { createdAt: "2025-03-03T10:00:00.000Z", totalCost: 1 }),
      generation("gen-before", { createdAt: "2025-02-28T23:59:59.999Z", totalCost: 2 }),
      generation("gen-other-key", { keyHash: "key-2", totalCost: 8 }),
    ];
    for (const row of rows) await writer.record(row);
    await writer.flush();
    await writer.record(generation("gen-queued", { createdAt: "2025-03-19T11:00:00.000Z", totalCost: 0.125 }));
    const usage = await writer.usageByKey(["key-1", "key-unused"], NOW);
    const byok = { byokTotal: 0.5, byokDaily: 0, byokWeekly: 0.5, byokMonthly: 0.5 };
    expect(usage.get("key-1")).toEqual({ total: 3.875, daily: 0.375, weekly: 0.875, monthly: 1.875, ...byok });
    expect(usage.get("key-unused")).toEqual({ total: 0, daily: 0, weekly: 0, monthly: 0, byokTotal: 0, byokDaily: 0, byokWeekly: 0, byokMonthly: 0 });
    const monday = new Date("2025-03-17T00:00:00.000Z");
    expect(await writer.spentSince({ keyHash: "key-1", includeByok: true }, monday)).toBe(0.875);
    expect(await writer.spentSince({ keyHash: "key-1", includeByok: false }, monday)).toBe(0.375);
    expect(await writer.spentSince({ workspaceId: "ws-1", includeByok: true }, monday)).toBe(8.875);
    expect(await writer.spentSince({ workspaceId: "ws-1", includeByok: false }, monday)).toBe(8.375);
    expect(await writer.spentSince({ keyHash: "key-unused", includeByok: true }, NOW)).toBe(0);
    const reader = new GenerationStore(await another(), quiet, options);
    expect((await reader.usageByKey(["key-1"], NOW)).get("key-1")).toEqual({ total: 3.75, daily: 0.25, weekly: 0.75, monthly: 1.75, ...byok });
    expect(await reader.spentSince({ keyHash: "key-1", includeByok: true }, new Date("2025-03-03T00:00:00.000Z"))).toBe(1.75);
    expect(await reader.spentSince({ workspaceId: "ws-1", includeByok: false }, new Date("2025-03-03T00:00:00.000Z"))).toBe(9.25);
    await writer.close();
    await reader.close();
  });

  test("usage by key counts each record once around the day a still-queued record falls on (a journal replayed at start)", async () => {
    const { backend } = await open();
    const writer = new GenerationStore(backend, quiet, options);
    for (const row of [
      generation("gen-today", { createdAt: "2025-03-19T01:00:00.000Z", totalCost: 0.25 }),
      generation("gen-month", { createdAt: "2025-03-03T10:00:00.000Z", totalCost: 1, isByok: true }),
      generation("gen-month-late", { createdAt: "2025-03-03T23:00:00.000Z", totalCost: 4 }),
      generation("gen-before", { createdAt: "2025-02-28T23:59:59.999Z", totalCost: 2 }),
    ]) await writer.record(row);
    await writer.flush();
    await writer.record(generation("gen-replayed", { createdAt: "2025-03-03T12:00:00.000Z", totalCost: 0.5 }));
    expect((await writer.usageByKey(["key-1"], NOW)).get("key-1")).toEqual({
      total: 7.75, daily: 0.25, weekly: 0.25, monthly: 5.75, byokTotal: 1, byokDaily: 0, byokWeekly: 0, byokMonthly: 1,
    });
    await writer.flush();
    expect((await writer.usageByKey(["key-1"], NOW)).get("key-1")).toEqual({
      total: 7.75, daily: 0.25, weekly: 0.25, monthly: 5.75, byokTotal: 1, byokDaily: 0, byokWeekly: 0, byokMonthly: 1,
    });
    await writer.close();
  });

  test("usage and spend count once a record the store still holds though the database has it (a replayed journal of records already written)", async () => {
    const { backend } = await open();
    const dir = mkdtempSync(join(tmpdir(), "roundhouse-journal-"));
    try {
      const journalFile = join(dir, "generations.journal");
      const writer = new GenerationStore(backend, quiet, { ...options, journalFile });
      await writer.record(generation("gen-today", { createdAt: "2025-03-19T01:00:00.000Z", totalCost: 0.25 }));
      await writer.record(generation("gen-month", { createdAt: "2025-03-03T10:00:00.000Z", totalCost: 1, isByok: true }));
      // The journal as a process killed after the commit but before it deleted the sealed file leaves it.
      copyFileSync(journalFile, join(dir, "kept"));
      await writer.flush();
      await writer.close();
      renameSync(join(dir, "kept"), join(dir, "generations.journal.1"));
      const replaying = new GenerationStore(backend, quiet, { ...options, journalFile });
      expect(replaying.pendingCount).toBe(2);
      const expected = { total: 1.25, daily: 0.25, weekly: 0.25, monthly: 1.25, byokTotal: 1, byokDaily: 0, byokWeekly: 0, byokMonthly: 1 };
      expect((await replaying.usageByKey(["key-1"], NOW)).get("key-1")).toEqual(expected);
      expect(await replaying.spentSince({ keyHash: "key-1", includeByok: true }, new Date("2025-03-01T00:00:00.000Z"))).toBe(1.25);
      expect(await replaying.spentSince({ workspaceId: "ws-1", includeByok: false }, new Date("2025-03-01T00:00:00.000Z"))).toBe(0.25);
      expect(Object.fromEntries(await replaying.popularity("ws-1", new Date("2025-03-03T09:30:00.000Z")))).toEqual({ "acme/writer": 2 });
      await replaying.flush();
      expect(replaying.pendingCount).toBe(0);
      expect((await replaying.usageByKey(["key-1"], NOW)).get("key-1")).toEqual(expected);
      await replaying.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("popularity counts a workspace's successful requests per model since a moment, queued ones included", async () => {
    const { backend } = await open();
    const store = new GenerationStore(backend, quiet, options);
    await store.record(generation("gen-1", { model: "acme/writer" }));
    await store.record(generation("gen-2", { model: "acme/writer" }));
    await store.record(generation("gen-3", { model: "acme/coder" }));
    await store.record(generation("gen-4", { model: "acme/coder", status: 502 }));
    await store.record(generation("gen-5", { model: "acme/coder", createdAt: "2025-03-01T00:00:00.000Z" }));
    await store.record(generation("gen-6", { model: "acme/coder", workspaceId: "ws-2" }));
    const counts = await store.popularity("ws-1", new Date("2025-03-18T00:00:00.000Z"));
    expect(Object.fromEntries(counts)).toEqual({ "acme/writer": 2, "acme/coder": 1 });
    await store.close();
  });

  test("popularity from a moment inside an hour: that hour's records from the moment on, the later hours whole, queued ones included, each once", async () => {
    const { backend } = await open();
    const store = new GenerationStore(backend, quiet, options);
    const since = new Date("2025-03-12T10:30:00.000Z");
    for (const row of [
      generation("gen-before", { model: "acme/a", createdAt: "2025-03-12T10:29:59.999Z" }),
      generation("gen-day-before", { model: "acme/a", createdAt: "2025-03-11T23:00:00.000Z" }),
      generation("gen-at", { model: "acme/a", createdAt: "2025-03-12T10:30:00.000Z" }),
      generation("gen-hour-end", { model: "acme/a", createdAt: "2025-03-12T10:59:59.999Z" }),
      generation("gen-next-hour", { model: "acme/b", createdAt: "2025-03-12T11:00:00.000Z" }),
      generation("gen-days-later", { model: "acme/b", createdAt: "2025-03-15T08:00:00.000Z" }),
      generation("gen-failed", { model: "acme/b", createdAt: "2025-03-12T11:00:00.000Z", status: 500 }),
      generation("gen-other-workspace", { model: "acme/b", createdAt: "2025-03-12T11:00:00.000Z", workspaceId: "ws-2" }),
    ]) await store.record(row);
    await store.flush();
    await store.record(generation("gen-queued", { model: "acme/a", createdAt: "2025-03-19T11:00:00.000Z" }));
    await store.record(generation("gen-queued-early", { model: "acme/a", createdAt: "2025-03-12T10:00:00.000Z" }));
    expect(Object.fromEntries(await store.popularity("ws-1", since))).toEqual({ "acme/a": 3, "acme/b": 2 });
    await store.flush();
    expect(Object.fromEntries(await store.popularity("ws-1", since))).toEqual({ "acme/a": 3, "acme/b": 2 });
    expect(Object.fromEntries(await store.popularity("ws-1", new Date("2025-03-12T11:00:00.000Z")))).toEqual({ "acme/a": 1, "acme/b": 2 });
    await store.close();
  });

  test("a record the database refuses does not keep the records queued with it from being written", async () => {
    const { backend, another } = await open();
    const writer = new GenerationStore(backend, quiet, options);
    // PostgreSQL's text refuses the NUL character (see known-gaps): that one record is dropped there.
    await writer.record(generation("gen-odd", { externalUser: "user\u0000" }));
    await writer.record(generation("gen-plain"));
    await writer.flush();
    const reader = new GenerationStore(await another(), quiet, options);
    expect((await reader.get("ws-1", "gen-plain"))?.id).toBe("gen-plain");
    await writer.close();
    await reader.close();
  });
});

describe.each(DIALECTS)("VideoJobStore on %s", (dialect) => {
  const open = databases(dialect);
  const job = (id: string, fields: Parameters<typeof sampleVideoJob>[0] = {}) =>
    sampleVideoJob({ id, generationId: `gen-${id}`, upstreamId: `up-${id}`, attempts: [{ provider: "wan", endpoint: "wan:wan-2.2", status: 503, latency_ms: 12 }], ...fields });

  test("a job comes back as kept (request, attempts and usage as JSON), through another backend too", async () => {
    const { backend, another } = await open();
    const store = new VideoJobStore(backend);
    const kept = job("vid-a", {
      status: "completed",
      outputs: 1,
      request: { model: "acme/filmmaker", operation: "video", prompt: "waves", duration: 4 },
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, videoSeconds: 4 },
      cost: 0.2,
      completedAt: "2026-11-01T12:01:00.000Z",
    });
    await store.insert(kept);
    expect(await store.get("vid-a")).toEqual(kept);
    expect(await new VideoJobStore(await another()).get("vid-a")).toEqual(kept);
    expect(await store.get("vid-b")).toBeUndefined();
  });

  test("only running jobs are listed, oldest first, and changed; expire marks due jobs once", async () => {
    const { backend } = await open();
    const store = new VideoJobStore(backend);
    await store.insert(job("vid-new", { createdAt: "2026-11-01T12:00:02.000Z", status: "in_progress" }));
    await store.insert(job("vid-old", { createdAt: "2026-11-01T12:00:01.000Z" }));
    await store.insert(job("vid-done", { status: "completed", expiresAt: "2026-11-03T12:00:00.000Z" }));
    expect((await store.listActive(10)).map((entry) => entry.id)).toEqual(["vid-old", "vid-new"]);
    expect((await store.listActive(1)).map((entry) => entry.id)).toEqual(["vid-old"]);
    expect(await store.updateActive("vid-done", { status: "failed" })).toBeUndefined();
    expect(await store.updateActive("vid-old", { status: "completed", outputs: 2, cost: 0.5 })).toMatchObject({ status: "completed", outputs: 2, cost: 0.5 });
    expect((await store.expire("2026-11-02T12:00:00.000Z")).toSorted()).toEqual(["vid-new", "vid-old"]);
    expect(await store.expire("2026-11-02T12:00:00.000Z")).toEqual([]);
    expect(await store.get("vid-new")).toMatchObject({ status: "expired", updatedAt: "2026-11-02T12:00:00.000Z" });
    expect((await store.get("vid-done"))?.status).toBe("completed");
    expect(await store.listActive(10)).toEqual([]);
  });
});
