/** GenerationStore.taskUsage on both backends: classified traffic per task and model, stored and queued. */
import { describe, expect, test } from "bun:test";
import { GenerationStore } from "../../src/db/generations.ts";
import { DIALECTS, databases } from "./backends.ts";
import { generation, quiet } from "./rows.ts";

describe.each(DIALECTS)("taskUsage on %s", (dialect) => {
  const open = databases(dialect);

  test("groups successful classified generations of one workspace in the window, flushed and queued alike", async () => {
    const { backend } = await open();
    const store = new GenerationStore(backend, quiet, { flushDelayMs: 60_000, journalFile: null });
    const at = "2025-03-18T10:00:00.000Z";
    await store.record(generation("t-1", { task: "code:debugging", model: "acme/coder", tokensPrompt: 10, tokensCompletion: 5, createdAt: at }));
    await store.record(generation("t-2", { task: "code:debugging", model: "acme/coder", tokensPrompt: 1, tokensCompletion: null, createdAt: at }));
    await store.record(generation("t-3", { task: "writing:creative", model: "acme/writer", tokensPrompt: 2, tokensCompletion: 2, createdAt: at }));
    await store.record(generation("t-4", { task: null, createdAt: at }));
    await store.record(generation("t-5", { task: "code:debugging", status: 502, createdAt: at }));
    await store.record(generation("t-6", { task: "code:debugging", workspaceId: "ws-2", createdAt: at }));
    await store.record(generation("t-7", { task: "code:debugging", createdAt: "2025-03-01T00:00:00.000Z" }));
    await store.flush();
    await store.record(generation("t-8", { task: "code:debugging", model: "acme/coder", tokensPrompt: 4, tokensCompletion: 0, createdAt: at }));
    const usage = await store.taskUsage("ws-1", new Date("2025-03-12T00:00:00.000Z"), new Date("2025-03-19T00:00:00.000Z"));
    expect(usage.sort((a, b) => a.task.localeCompare(b.task))).toEqual([
      { task: "code:debugging", model: "acme/coder", requests: 3, tokens: 20 },
      { task: "writing:creative", model: "acme/writer", requests: 1, tokens: 4 },
    ]);
    await store.close();
  });
});
