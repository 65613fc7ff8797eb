import { describe, expect, test } from "bun:test";
import { createLogger } from "../core/log.ts";
import { openDatabase } from "./client.ts";
import { GenerationStore } from "./generations.ts";
import { type GenerationRow, generations } from "./schema.ts";

function row(id: string): GenerationRow {
  return {
    id,
    workspaceId: "ws",
    keyHash: "hash",
    requestId: null,
    style: "chat",
    model: "m/x",
    providerSlug: null,
    providerName: null,
    upstreamModel: null,
    upstreamId: null,
    presetId: null,
    streamed: false,
    cancelled: false,
    status: 200,
    errorCode: null,
    finishReason: "stop",
    nativeFinishReason: null,
    tokensPrompt: 1,
    tokensCompletion: 1,
    tokensCached: 0,
    tokensCacheWrite: 0,
    tokensReasoning: 0,
    mediaPrompt: 0,
    totalCost: 0,
    latencyMs: null,
    generationTimeMs: 1,
    sessionId: null,
    externalUser: null,
    userAgent: null,
    httpReferer: null,
    serviceTier: null,
    attempts: [],
    warnings: null,
    createdAt: new Date().toISOString(),
  };
}

describe("GenerationStore", () => {
  test("records are readable at once and written behind in one batch", async () => {
    const db = openDatabase({ dataDir: ":memory:" });
    const store = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 10 });
    store.record(row("gen-a"));
    store.record(row("gen-b"));
    expect(store.get("ws", "gen-a")?.id).toBe("gen-a");
    expect(store.get("other", "gen-a")).toBeUndefined();
    expect(db.select().from(generations).all()).toHaveLength(0);
    await Bun.sleep(30);
    expect(db.select().from(generations).all()).toHaveLength(2);
    expect(store.pendingCount).toBe(0);
  });

  test("close() writes what is queued before the database goes away; later records are dropped", () => {
    const db = openDatabase({ dataDir: ":memory:" });
    const store = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 60_000 });
    store.record(row("gen-last"));
    store.close();
    expect(db.select().from(generations).all().map((written) => written.id)).toEqual(["gen-last"]);
    store.record(row("gen-late"));
    expect(store.pendingCount).toBe(0);
  });

  test("a full batch is written at the next turn of the event loop, not inside record(); values round-trip", async () => {
    const db = openDatabase({ dataDir: ":memory:" });
    const store = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 60_000, batchSize: 3 });
    const first = { ...row("gen-1"), streamed: true, cancelled: true, totalCost: 0.25, attempts: [{ provider: "p", endpoint: "p/x", status: 200, latency_ms: 3 }] };
    store.record(first);
    store.record(row("gen-2"));
    store.record(row("gen-3"));
    expect(store.pendingCount).toBe(3);
    await Bun.sleep(0);
    expect(store.pendingCount).toBe(0);
    expect(db.select().from(generations).all()).toHaveLength(3);
    expect(store.get("ws", "gen-1")).toEqual(first);
    // A record with an id already written is ignored, as before.
    store.record({ ...row("gen-1"), status: 500 });
    store.flush();
    expect(store.get("ws", "gen-1")?.status).toBe(200);
    store.close();
  });
});
