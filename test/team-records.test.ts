import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import type { Backend } from "../src/db/backend.ts";
import { batchWriter } from "../src/db/generation-writer.ts";
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
