import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../core/log.ts";
import { openSqliteBackend } from "./backend.ts";
import { ChangeWatch } from "./change-watch.ts";
import { JOURNAL_FILE } from "./generation-journal.ts";
import { GenerationStore, isTransientRefusal } from "./generations.ts";
import { KeyStore } from "./keys.ts";
import { PG_MIGRATIONS_DIR } from "./migrations.ts";
import { type GenerationRow, generations } from "./schema.ts";
import { WorkspaceStore } from "./workspaces.ts";

const stored = async (backend: ReturnType<typeof openSqliteBackend>) => backend.db.select().from(generations);

/** Runs `work` in a new directory under the OS temp directory, removed afterwards. */
async function inTempDir(prefix: string, work: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    await work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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
    task: null,
    attempts: [],
    warnings: null,
    meters: null,
    costs: null,
    createdAt: new Date().toISOString(),
    isByok: false,
    guardrailFlags: null,
  };
}

describe("GenerationStore", () => {
  test("records are readable at once and written behind in one batch", async () => {
    const db = openSqliteBackend({ dataDir: ":memory:" });
    const store = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 10 });
    store.record(row("gen-a"));
    store.record(row("gen-b"));
    expect((await store.get("ws", "gen-a"))?.id).toBe("gen-a");
    expect(await store.get("other", "gen-a")).toBeUndefined();
    expect(await stored(db)).toHaveLength(0);
    await Bun.sleep(30);
    expect(await stored(db)).toHaveLength(2);
    expect(store.pendingCount).toBe(0);
  });

  test("close() writes what is queued before the database goes away; later records are dropped", async () => {
    const db = openSqliteBackend({ dataDir: ":memory:" });
    const store = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 60_000 });
    store.record(row("gen-last"));
    await store.close();
    expect((await stored(db)).map((written) => written.id)).toEqual(["gen-last"]);
    store.record(row("gen-late"));
    expect(store.pendingCount).toBe(0);
  });

  test("a full batch is written at the next turn of the event loop, not inside record(); values round-trip", async () => {
    const db = openSqliteBackend({ dataDir: ":memory:" });
    const store = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 60_000, batchSize: 3 });
    const first = { ...row("gen-1"), streamed: true, cancelled: true, totalCost: 0.25, attempts: [{ provider: "p", endpoint: "p/x", status: 200, latency_ms: 3 }] };
    store.record(first);
    store.record(row("gen-2"));
    store.record(row("gen-3"));
    expect(store.pendingCount).toBe(3);
    await Bun.sleep(0);
    expect(store.pendingCount).toBe(0);
    expect(await stored(db)).toHaveLength(3);
    expect(await store.get("ws", "gen-1")).toEqual(first);
    // A record with an id already written is ignored, as before.
    store.record({ ...row("gen-1"), status: 500 });
    await store.flush();
    expect((await store.get("ws", "gen-1"))?.status).toBe(200);
    await store.close();
  });

  test("records queued while a batch is in flight wait for the next one; reads count every record once", async () => {
    const db = openSqliteBackend({ dataDir: ":memory:" });
    const store = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 60_000 });
    store.record({ ...row("gen-x"), totalCost: 1 });
    const flushing = store.flush();
    store.record({ ...row("gen-y"), totalCost: 2 });
    expect(await store.spentSince({ keyHash: "hash", includeByok: true }, new Date(0))).toBe(3);
    await flushing;
    expect((await stored(db)).map((written) => written.id)).toEqual(["gen-x"]);
    expect(store.pendingCount).toBe(1);
    expect(await store.spentSince({ keyHash: "hash", includeByok: true }, new Date(0))).toBe(3);
    expect((await store.usageByKey(["hash"])).get("hash")?.total).toBe(3);
    expect((await store.popularity("ws", new Date(0))).get("m/x")).toBe(2);
    await store.close();
    expect(await store.spentSince({ keyHash: "hash", includeByok: true }, new Date(0))).toBe(3);
  });

  test("a batch the database cannot take is kept, reported failing, and written once it can", async () => {
    const db = openSqliteBackend({ dataDir: ":memory:" });
    const store = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 60_000 });
    db.sqlite!.exec("ALTER TABLE generations RENAME TO generations_away");
    const ping = db.ping;
    Object.assign(db, { ping: async () => Promise.reject(new Error("unreachable")) });
    store.record(row("gen-kept"));
    await store.flush();
    expect(store.failing).toBe(true);
    expect(store.pendingCount).toBe(1);
    db.sqlite!.exec("ALTER TABLE generations_away RENAME TO generations");
    Object.assign(db, { ping });
    await store.flush();
    expect(store.failing).toBe(false);
    expect((await stored(db)).map((written) => written.id)).toEqual(["gen-kept"]);
    await store.close();
  });
});

describe("generation journal", () => {
  const logged = () => {
    const lines: string[] = [];
    return { logger: createLogger("debug", (line) => lines.push(line)), lines };
  };

  test("a queued record is journaled at once; the flush empties the journal", async () => {
    await inTempDir("roundhouse-journal-", async (dir) => {
    const db = openSqliteBackend({ dataDir: dir });
    const store = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 60_000 });
    const file = join(dir, JOURNAL_FILE);
    store.record(row("gen-j1"));
    store.record(row("gen-j2"));
    expect(readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line).id)).toEqual(["gen-j1", "gen-j2"]);
    await store.flush();
    expect(readFileSync(file, "utf8")).toBe("");
    expect(readdirSync(dir).filter((name) => name.startsWith(JOURNAL_FILE))).toEqual([JOURNAL_FILE]);
    store.record(row("gen-j3"));
    expect(readFileSync(file, "utf8").startsWith('{"id":"gen-j3"')).toBe(true);
    await store.close();
    await db.close();
    });
  });

  test("a batch in flight keeps its journal file until it is committed; records queued meanwhile go to a new one", async () => {
    await inTempDir("roundhouse-journal-", async (dir) => {
    const db = openSqliteBackend({ dataDir: dir });
    const store = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 60_000 });
    db.sqlite!.exec("ALTER TABLE generations RENAME TO generations_away");
    Object.assign(db, { ping: async () => Promise.reject(new Error("unreachable")) });
    store.record(row("gen-b1"));
    await store.flush();
    store.record(row("gen-b2"));
    const lines = (name: string) => readFileSync(join(dir, name), "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line).id);
    expect(lines(`${JOURNAL_FILE}.1`)).toEqual(["gen-b1"]);
    expect(lines(JOURNAL_FILE)).toEqual(["gen-b2"]);
    // The kill: the next start takes both files' records.
    db.sqlite!.exec("ALTER TABLE generations_away RENAME TO generations");
    const second = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 60_000 });
    await second.flush();
    expect((await stored(db)).map((written) => written.id).sort()).toEqual(["gen-b1", "gen-b2"]);
    expect(readdirSync(dir).filter((name) => name.startsWith(JOURNAL_FILE))).toEqual([JOURNAL_FILE]);
    await second.close();
    // The "killed" store's retry timer must not outlive the test.
    await store.close();
    await db.close();
    });
  });

  test("the next start replays what a killed process left: idempotently, skipping a torn last line", async () => {
    await inTempDir("roundhouse-journal-", async (dir) => {
    const db = openSqliteBackend({ dataDir: dir });
    const first = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 60_000 });
    first.record(row("gen-written"));
    await first.flush();
    first.record({ ...row("gen-lost"), totalCost: 0.5 });
    // A record already written is journaled again (as a retried batch would leave it).
    first.record({ ...row("gen-written"), status: 500 });
    // The kill: no flush, no close; and a line cut mid-write.
    appendFileSync(join(dir, JOURNAL_FILE), JSON.stringify(row("gen-torn")).slice(0, 40));
    const { logger, lines } = logged();
    const second = new GenerationStore(db, logger, { flushDelayMs: 60_000 });
    await second.flush();
    const written = (await stored(db)).map((row) => `${row.id} ${row.status}`);
    expect(written.sort()).toEqual(["gen-lost 200", "gen-written 200"]);
    expect(await second.spentSince({ keyHash: "hash", includeByok: true }, new Date(0))).toBe(0.5);
    expect(readFileSync(join(dir, JOURNAL_FILE), "utf8")).toBe("");
    expect(lines.some((line) => line.includes("incomplete last line of the generation journal"))).toBe(true);
    await second.close();
    // The "killed" store's timer must not outlive the test.
    await first.close();
    await db.close();
    });
  });
});

describe("the change feed of a SQLite file", () => {
  test("records the writer thread commits leave the caches alone; a key or workspace written by another process is noticed", async () => {
    await inTempDir("roundhouse-changes-", async (dir) => {
    const db = openSqliteBackend({ dataDir: dir });
    // Interval 0: every check reads, as the next check after a second would.
    const watch = new ChangeWatch(db.sqlite!, 0);
    let fired = 0;
    watch.onChange(() => fired++);
    const dataVersion = () => (db.sqlite!.query("PRAGMA data_version").get() as { data_version: number }).data_version;
    const store = new GenerationStore(db, createLogger("silent"), { flushDelayMs: 60_000 });
    const before = dataVersion();
    store.record(row("gen-c1"));
    await store.flush();
    expect((await stored(db)).map((record) => record.id)).toEqual(["gen-c1"]);
    // The record came on the thread's own connection: SQLite reports a commit from elsewhere.
    expect(dataVersion()).not.toBe(before);
    watch.check();
    expect(fired).toBe(0);

    // Another process (the CLI) creates a workspace and a key on its own connection.
    const other = openSqliteBackend({ dataDir: dir });
    const workspace = await new WorkspaceStore(other).create({ name: "elsewhere", slug: "elsewhere" }, null);
    watch.check();
    expect(fired).toBe(1);
    await new KeyStore(other).create({ kind: "inference", name: "elsewhere", workspaceId: workspace.id });
    watch.check();
    expect(fired).toBe(2);
    watch.check();
    expect(fired).toBe(2);
    await other.close();
    await store.close();
    await db.close();
    });
  });

  test("every table whose rows are kept in memory counts its inserts, updates and deletes, as PostgreSQL announces them", () => {
    const db = openSqliteBackend({ dataDir: ":memory:" });
    const triggers = db.sqlite!.query("SELECT name, tbl_name AS tableName, sql FROM sqlite_master WHERE type = 'trigger'").all() as Array<{ name: string; tableName: string; sql: string }>;
    const counting = triggers.filter((trigger) => trigger.sql.includes("UPDATE `change_counter` SET `version` = `version` + 1"));
    const pgSql = readdirSync(PG_MIGRATIONS_DIR).filter((name) => name.endsWith(".sql")).map((name) => readFileSync(join(PG_MIGRATIONS_DIR, name), "utf8")).join("\n");
    const announced = [...pgSql.matchAll(/AFTER INSERT OR UPDATE OR DELETE ON (\w+) FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_announce_change/g)].map((match) => match[1]!);
    expect(announced.length).toBeGreaterThan(10);
    for (const table of announced) {
      const events = counting.filter((trigger) => trigger.tableName === table).map((trigger) => /AFTER (\w+) ON/.exec(trigger.sql)![1]).sort();
      expect({ table, events }).toEqual({ table, events: ["DELETE", "INSERT", "UPDATE"] });
    }
    expect(new Set(counting.map((trigger) => trigger.tableName))).toEqual(new Set(announced));
  });
});

describe("a refusal for the moment", () => {
  const pg = (errno: string) => Object.assign(new Error("server error"), { name: "PostgresError", errno });
  test("is a deadlock, a serialization failure, a lock not available or too many connections, also wrapped in a query's error", () => {
    for (const errno of ["40P01", "40001", "55P03", "53300"]) expect(isTransientRefusal(new Error("Failed query: insert …", { cause: pg(errno) }))).toBe(true);
    expect(isTransientRefusal(Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" }))).toBe(true);
    // The records thread hands back a SQLite error's name and message only.
    expect(isTransientRefusal(Object.assign(new Error("database is locked"), { name: "SQLiteError" }))).toBe(true);
  });

  test("is not a refusal of the records themselves", () => {
    expect(isTransientRefusal(new Error("Failed query", { cause: pg("23502") }))).toBe(false);
    expect(isTransientRefusal(Object.assign(new Error("NOT NULL constraint failed: generations.model"), { code: "SQLITE_CONSTRAINT_NOTNULL" }))).toBe(false);
    expect(isTransientRefusal(new Error("connection closed"))).toBe(false);
    expect(isTransientRefusal(undefined)).toBe(false);
  });
});
