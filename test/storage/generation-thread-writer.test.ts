/**
 * The generation writer's thread stores records without the ORM (plain SQLite with a plan made from the
 * schema): every column, the defaults of absent fields and the rollups must come out exactly as the
 * ORM-backed writer stores them. The same batches go through both, into two database files, and the
 * tables are compared row by row; then a batch with an id already stored is skipped by both alike.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteBackend } from "../../src/db/backend.ts";
import { DATABASE_FILE } from "../../src/db/client.ts";
import { batchWriter, storeWriter } from "../../src/db/generation-writer.ts";
import type { GenerationRow } from "../../src/db/schema.ts";
import { generation } from "./rows.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function fileBackend() {
  const dir = mkdtempSync(join(tmpdir(), "roundhouse-thread-writer-"));
  dirs.push(dir);
  return openSqliteBackend({ dataDir: dir });
}

/** Every row of a table, in a fixed order, as SQLite stores it. */
function dump(file: string, table: string): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.query(`SELECT * FROM ${table} ORDER BY id`).all();
  } finally {
    db.close();
  }
}

test("the thread stores every column, default and rollup exactly as the ORM-backed writer does", async () => {
  const day = "2026-11-27T10:15:00.000Z";
  const batches: GenerationRow[][] = [
    [
      generation("g1", { createdAt: day }),
      generation("g2", { createdAt: "2026-11-27T23:59:59.999Z", streamed: false, cancelled: true, isByok: true, status: 502, errorCode: "upstream_error", totalCost: 0.1 + 0.2 }),
      generation("g3", { createdAt: "2026-11-28T00:00:00.000Z", attempts: [], warnings: null, meters: null, costs: null, model: "acme/ünïcode \"quoted\"\n", keyHash: "key-2" }),
    ],
    // Absent fields take the column defaults (cancelled, is_byok, total_cost): undefined is not null.
    [{ ...generation("g4", { createdAt: day }), cancelled: undefined, isByok: undefined, totalCost: undefined } as unknown as GenerationRow],
    // An id already stored is skipped (and not added to the rollups twice); the new one is written.
    [generation("g1", { createdAt: day, totalCost: 99 }), generation("g5", { createdAt: day, guardrailFlags: [{ guardrail: "g", kind: "pii" }] as never })],
  ];
  const viaOrm = fileBackend();
  const viaThread = fileBackend();
  const orm = batchWriter(viaOrm);
  const thread = storeWriter(viaThread);
  try {
    for (const batch of batches) {
      await orm.write(batch);
      await thread.write(batch);
    }
  } finally {
    orm.close();
    await thread.close();
  }
  const files = [viaOrm, viaThread].map((backend) => join(backend.sqlite!.filename.replace(/\/[^/]+$/, ""), DATABASE_FILE));
  for (const table of ["generations", "generation_rollups"]) {
    const [expected, actual] = files.map((file) => dump(file, table));
    expect(actual).toEqual(expected);
    expect((actual as unknown[]).length).toBeGreaterThan(0);
  }
  const stored = dump(files[1]!, "generations") as Array<Record<string, unknown>>;
  expect(stored.map((row) => row.id)).toEqual(["g1", "g2", "g3", "g4", "g5"]);
  expect(stored.find((row) => row.id === "g1")!.total_cost).toBe(0.25);
  expect(stored.find((row) => row.id === "g4")).toMatchObject({ cancelled: 0, is_byok: 0, total_cost: 0 });
  await Promise.all([viaOrm.close(), viaThread.close()]);
});

test("a batch the database refuses is rolled back whole and its error comes back to the caller", async () => {
  const backend = fileBackend();
  const thread = storeWriter(backend);
  try {
    const broken = { ...generation("b2"), workspaceId: null } as unknown as GenerationRow;
    await expect(thread.write([generation("b1"), broken])).rejects.toThrow(/NOT NULL/);
    await thread.write([generation("b3")]);
  } finally {
    await thread.close();
  }
  const file = join(backend.sqlite!.filename.replace(/\/[^/]+$/, ""), DATABASE_FILE);
  expect((dump(file, "generations") as Array<{ id: string }>).map((row) => row.id)).toEqual(["b3"]);
  await backend.close();
});
