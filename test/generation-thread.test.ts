/**
 * Generation records are written on a thread of their own, with its own connection to the SQLite file:
 * while another process holds the database's write lock (a backup, the CLI, a long transaction), the
 * records wait for it, and the gateway keeps answering meanwhile instead of stalling in SQLite's busy
 * wait. Once the lock is released, every record lands, with its rollups, exactly once.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { type InferenceSetup, startInference } from "./helpers/inference-setup.ts";

let setup: InferenceSetup;

beforeAll(async () => {
  // A long busy timeout: a writer on the gateway's own thread would hold the event loop that long.
  setup = await startInference({ extra: "storage:\n  busy_timeout_ms: 120000\n" });
});

afterAll(async () => {
  await setup?.stop();
});

async function chat(content: string): Promise<string> {
  const answer = await setup.post("/chat/completions", { model: "test/gpt", messages: [{ role: "user", content }] }, undefined, AbortSignal.timeout(20_000));
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { id: string }).id;
}

test("while another connection holds the write lock, requests are answered; the records land once it is released", async () => {
  const file = join(setup.gateway.dataDir, "roundhouse.db");
  const other = new Database(file);
  other.exec("PRAGMA busy_timeout = 10000");
  const count = () => (other.query("SELECT count(*) AS n FROM generations").get() as { n: number }).n;
  const rolled = () => (other.query("SELECT coalesce(sum(requests), 0) AS n FROM generation_rollups WHERE hour IS NULL").get() as { n: number }).n;
  // The audit entry of the setup's key is written behind its answer too, from the gateway's own thread
  // (management writes are few): it must be in before the lock is taken.
  for (let tries = 0; (other.query("SELECT count(*) AS n FROM audit_log").get() as { n: number }).n === 0; tries++) {
    if (tries > 400) throw new Error("the setup's audit entry was never written");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const [before, rolledBefore] = [count(), rolled()];
  other.exec("BEGIN IMMEDIATE");
  const ids: string[] = [];
  try {
    // Long enough for several batches to be due (each waits at most 50 ms): every one meets the lock.
    const started = Date.now();
    while (Date.now() - started < 400 || ids.length < 5) ids.push(await chat(`question ${ids.length}`));
    // Each record is readable at once (from memory), though none is in the database yet.
    expect((await setup.generation(ids[0]!)).id).toBe(ids[0]);
    expect((await setup.generation(ids.at(-1)!)).id).toBe(ids.at(-1));
    const held = (other.query("SELECT count(*) AS n FROM generations").get() as { n: number }).n;
    expect(held).toBe(before);
  } finally {
    other.exec("COMMIT");
  }
  for (let tries = 0; count() < before + ids.length; tries++) {
    if (tries > 400) throw new Error(`only ${count() - before} of ${ids.length} records were written`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(count()).toBe(before + ids.length);
  expect(rolled()).toBe(rolledBefore + ids.length);
  const stored = other.query(`SELECT id FROM generations WHERE id IN (${ids.map(() => "?").join(", ")})`).all(...ids) as Array<{ id: string }>;
  expect(stored.map((row) => row.id).sort()).toEqual([...ids].sort());
  other.close();
}, 60_000);
