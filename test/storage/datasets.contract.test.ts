/** DatasetStore on both backends: tokens per period and model with every filter, client usage, session spend. */
import { describe, expect, test } from "bun:test";
import { DatasetStore } from "../../src/db/datasets.ts";
import { GenerationStore } from "../../src/db/generations.ts";
import { DIALECTS, databases } from "./backends.ts";
import { generation, quiet } from "./rows.ts";

const window = { since: "2025-03-01T00:00:00.000Z", until: "2025-04-01T00:00:00.000Z" };

describe.each(DIALECTS)("DatasetStore on %s", (dialect) => {
  const open = databases(dialect);

  test("modelTokens buckets by day, ISO week and month and applies each filter; clientUsage and sessionSpend group the window", async () => {
    const { backend } = await open();
    const store = new GenerationStore(backend, quiet, { flushDelayMs: 60_000, journalFile: null });
    const rows = [
      generation("d-1", { model: "a/x", tokensPrompt: 10, tokensCompletion: 5, createdAt: "2025-03-18T10:00:00.000Z", task: "code:debugging", userAgent: "claude-cli/1.0.1", sessionId: "s-1", totalCost: 0.5 }),
      generation("d-2", { model: "a/x", tokensPrompt: 5_000, tokensCompletion: null, createdAt: "2025-03-19T10:00:00.000Z", task: "domain:seo", finishReason: "tool_calls", userAgent: "claude-cli/1.0.2", sessionId: "s-1", totalCost: 0.25 }),
      generation("d-3", { model: "a/y", tokensPrompt: 1, tokensCompletion: 1, createdAt: "2025-03-23T10:00:00.000Z", httpReferer: "https://www.example.org/app", sessionId: "s-2", totalCost: 1 }),
      generation("d-4", { model: "a/y", status: 500, createdAt: "2025-03-18T10:00:00.000Z" }),
      generation("d-5", { model: "a/y", workspaceId: "ws-2", createdAt: "2025-03-18T10:00:00.000Z" }),
      generation("d-6", { model: "a/y", createdAt: "2025-04-01T00:00:00.000Z" }),
    ];
    for (const row of rows) await store.record(row);
    await store.flush();
    const datasets = new DatasetStore(backend);

    expect(await datasets.modelTokens("ws-1", { ...window, period: "day" })).toEqual([
      { date: "2025-03-18", model: "a/x", tokens: 15 },
      { date: "2025-03-19", model: "a/x", tokens: 5_000 },
      { date: "2025-03-23", model: "a/y", tokens: 2 },
    ]);
    // 2025-03-17 is a Monday; the 23rd is the Sunday of that week.
    expect(await datasets.modelTokens("ws-1", { ...window, period: "week" })).toEqual([
      { date: "2025-03-17", model: "a/x", tokens: 5_015 },
      { date: "2025-03-17", model: "a/y", tokens: 2 },
    ]);
    expect(await datasets.modelTokens("ws-1", { ...window, period: "month" })).toEqual([
      { date: "2025-03-01", model: "a/x", tokens: 5_015 },
      { date: "2025-03-01", model: "a/y", tokens: 2 },
    ]);
    const day = { ...window, period: "day" as const };
    expect((await datasets.modelTokens("ws-1", { ...day, models: ["a/y"] })).map((row) => row.model)).toEqual(["a/y"]);
    expect(await datasets.modelTokens("ws-1", { ...day, models: [] })).toEqual([]);
    expect((await datasets.modelTokens("ws-1", { ...day, toolCalls: true })).map((row) => row.date)).toEqual(["2025-03-19"]);
    expect((await datasets.modelTokens("ws-1", { ...day, promptTokens: { above: 1_000, atMost: 10_000 } })).map((row) => row.date)).toEqual(["2025-03-19"]);
    expect((await datasets.modelTokens("ws-1", { ...day, tasks: ["code:"] })).map((row) => row.date)).toEqual(["2025-03-18"]);
    expect((await datasets.modelTokens("ws-1", { ...day, tasks: ["domain:seo"] })).map((row) => row.date)).toEqual(["2025-03-19"]);

    const usage = await datasets.clientUsage("ws-1", window.since, window.until);
    expect(usage.sort((a, b) => String(a.userAgent).localeCompare(String(b.userAgent)))).toEqual([
      { httpReferer: null, userAgent: "claude-cli/1.0.1", requests: 1, tokens: 15 },
      { httpReferer: null, userAgent: "claude-cli/1.0.2", requests: 1, tokens: 5_000 },
      { httpReferer: "https://www.example.org/app", userAgent: null, requests: 1, tokens: 2 },
    ]);
    const sessions = await datasets.sessionSpend("ws-1", window.since, window.until, "a/x");
    expect(sessions.sort((a, b) => String(a.userAgent).localeCompare(String(b.userAgent)))).toEqual([
      { httpReferer: null, userAgent: "claude-cli/1.0.1", sessionId: "s-1", model: "a/x", turns: 1, cost: 0.5 },
      { httpReferer: null, userAgent: "claude-cli/1.0.2", sessionId: "s-1", model: "a/x", turns: 1, cost: 0.25 },
    ]);
    await store.close();
  });
});
