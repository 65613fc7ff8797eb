import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../core/log.ts";
import { openDatabase } from "./client.ts";
import { JOURNAL_FILE } from "./generation-journal.ts";
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
    meters: null,
    costs: null,
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

describe("generation journal", () => {
  const logged = () => {
    const lines: string[] = [];
    return { logger: createLogger("debug", (line) => lines.push(line)), lines };
  };

  test("a queued record is journaled at once; the flush empties the journal", () => {
    const dir = mkdtempSync(join(tmpdir(), "roundhouse-journal-"));
    try {
      const db = openDatabase({ dataDir: dir });
      const store = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 60_000 });
      const file = join(dir, JOURNAL_FILE);
      store.record(row("gen-j1"));
      store.record(row("gen-j2"));
      expect(readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line).id)).toEqual(["gen-j1", "gen-j2"]);
      store.flush();
      expect(readFileSync(file, "utf8")).toBe("");
      // Appends after the truncation start at the beginning again (O_APPEND).
      store.record(row("gen-j3"));
      expect(readFileSync(file, "utf8").startsWith('{"id":"gen-j3"')).toBe(true);
      store.close();
      db.$client.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the next start replays what a killed process left: idempotently, skipping a torn last line", () => {
    const dir = mkdtempSync(join(tmpdir(), "roundhouse-journal-"));
    try {
      const db = openDatabase({ dataDir: dir });
      const first = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 60_000 });
      first.record(row("gen-written"));
      first.flush();
      first.record({ ...row("gen-lost"), totalCost: 0.5 });
      // A record already written is journaled again (as a retried batch would leave it).
      first.record({ ...row("gen-written"), status: 500 });
      // The kill: no flush, no close; and a line cut mid-write.
      appendFileSync(join(dir, JOURNAL_FILE), JSON.stringify(row("gen-torn")).slice(0, 40));
      const { logger, lines } = logged();
      const second = new GenerationStore(db, logger, { flushDelayMs: 60_000 });
      const written = db.select().from(generations).all().map((stored) => `${stored.id} ${stored.status}`);
      expect(written.sort()).toEqual(["gen-lost 200", "gen-written 200"]);
      expect(second.spentSince("hash", new Date(0))).toBe(0.5);
      expect(readFileSync(join(dir, JOURNAL_FILE), "utf8")).toBe("");
      expect(lines.some((line) => line.includes("incomplete last line of the generation journal"))).toBe(true);
      second.close();
      db.$client.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
