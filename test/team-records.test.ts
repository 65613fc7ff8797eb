import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import type { Backend } from "../src/db/backend.ts";
import { createLogger } from "../src/core/log.ts";
import { batchWriter } from "../src/db/generation-writer.ts";
import { GenerationStore } from "../src/db/generations.ts";
import { openPostgresBackend } from "../src/db/postgres.ts";
import type { GenerationRow } from "../src/db/schema.ts";
import { freshDatabaseUrl } from "./helpers/postgres.ts";

const KEYS = Array.from({ length: 8 }, (_, index) => `key-${index}`);
const COST = 0.001;

/** A batch of records charging the keys' spend ledgers in `order`, `times` over. */
function batch(replica: number, round: number, order: string[], times: number): GenerationRow[] {
  const createdAt = new Date().toISOString();
  return Array.from({ length: times }, (_, pass) =>
    order.map((keyHash, index) => ({ id: `gen-r${replica}-${round}-${pass}-${index}`, workspaceId: "w1", keyHash, style: "chat", model: "m", streamed: false, status: 200, totalCost: COST, createdAt }) as GenerationRow),
  ).flat();
}

describe("records of three replicas on one database", () => {
  let url: string;
  let admin: SQL;
  const replicas: Backend[] = [];

  beforeAll(async () => {
    url = await freshDatabaseUrl();
    admin = new SQL(url, { max: 1 });
    // A deadlock is found after deadlock_timeout (1 s by default); a short one makes it fail the batch at once.
    await admin.unsafe(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET deadlock_timeout = '20ms'`);
    for (let index = 0; index < 3; index++) replicas.push(await openPostgresBackend({ url }));
    await admin`INSERT INTO spend_ledgers ${admin(KEYS.map((key) => ({ key_hash: key, period_start: "", spent: 0 })))}`;
  });

  afterAll(async () => {
    for (const backend of replicas) await backend.close();
    await admin.close();
  });

  test("write at once, with the same keys in other orders, without deadlocking; every cost reaches its ledger once", async () => {
    const writers = replicas.map((backend) => batchWriter(backend));
    const orders = [KEYS, [...KEYS].reverse(), [...KEYS.slice(4), ...KEYS.slice(0, 4)]];
    const rounds = 8;
    const times = 10;
    for (let round = 0; round < rounds; round++) {
      const results = await Promise.allSettled(writers.map((writer, replica) => writer.write(batch(replica, round, orders[replica]!, times))));
      expect(results.map((result) => (result.status === "rejected" ? String((result.reason as Error).cause ?? result.reason) : "written"))).toEqual(["written", "written", "written"]);
    }
    const [stats] = (await admin`SELECT deadlocks::int AS deadlocks FROM pg_stat_database WHERE datname = current_database()`) as Array<{ deadlocks: number }>;
    expect(stats!.deadlocks).toBe(0);
    const ledgers = (await admin`SELECT key_hash, spent FROM spend_ledgers ORDER BY key_hash`) as Array<{ key_hash: string; spent: number }>;
    const perKey = 3 * rounds * times * COST;
    expect(ledgers.map((row) => [row.key_hash, Math.round(row.spent * 1e6) / 1e6])).toEqual(KEYS.map((key) => [key, Math.round(perKey * 1e6) / 1e6]));
    const [count] = (await admin`SELECT count(*)::int AS n FROM generations`) as Array<{ n: number }>;
    expect(count!.n).toBe(3 * rounds * times * KEYS.length);
  });
});

describe("records the database refuses for the moment", () => {
  test("are kept and written once it takes them again, never dropped one by one", async () => {
    const url = await freshDatabaseUrl();
    const admin = new SQL(url, { max: 1 });
    // A batch that waits this long for a lock is refused (55P03), as one in a deadlock would be (40P01).
    await admin.unsafe(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET lock_timeout = '50ms'`);
    const backend = await openPostgresBackend({ url });
    const lines: string[] = [];
    const store = new GenerationStore(backend, createLogger("warn", (line) => lines.push(line)), { journalFile: null, flushDelayMs: 10 });
    const holder = new SQL(url, { max: 1 });
    const rows = batch(9, 0, KEYS, 2);
    try {
      // Another replica's batch holds the turn (the writers' advisory lock) while these records come.
      await holder.begin(async (tx) => {
        await tx`select pg_advisory_xact_lock(hashtextextended('roundhouse:generations', 0))`;
        for (const row of rows) store.record(row);
        const deadline = Date.now() + 10_000;
        while (!lines.some((line) => line.includes("writing generation records failed; will retry") || line.includes("dropped"))) {
          if (Date.now() > deadline) throw new Error(`the store did not report the refusal: ${lines.join("")}`);
          await Bun.sleep(20);
        }
      });
      const deadline = Date.now() + 10_000;
      let stored = 0;
      while ((stored < rows.length || store.pendingCount > 0) && Date.now() < deadline) {
        stored = ((await admin`SELECT count(*)::int AS n FROM generations`) as Array<{ n: number }>)[0]!.n;
        if (stored < rows.length || store.pendingCount > 0) await Bun.sleep(50);
      }
      expect(stored).toBe(rows.length);
      expect(store.pendingCount).toBe(0);
      expect(lines.filter((line) => line.includes("dropped") || line.includes("one by one"))).toEqual([]);
    } finally {
      await store.close();
      await backend.close();
      await Promise.all([holder.close(), admin.close()]);
    }
  }, 30_000);
});
