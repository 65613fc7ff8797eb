/**
 * The SQLite generation writers (the thread's, and the in-process one a database in memory uses) store
 * records without the ORM's insert: a prepared statement with a plan made from the schema. Every column,
 * the defaults of absent fields and the rollups must come out exactly as the ORM's own insert stores
 * them. The same batches go through all of them, each into a database file of its own, and the tables
 * are compared row by row; a batch with an id already stored is skipped by all alike. The thread is run
 * twice: as it runs with a second core, and as on one core, pausing (here after every record) with the
 * rollups of each slice added before the pause.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Backend, openSqliteBackend } from "../../src/db/backend.ts";
import { DATABASE_FILE } from "../../src/db/client.ts";
import { addToRollups } from "../../src/db/generation-rollup.ts";
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

/** The oracle: the ORM's own insert (its value mapping and defaults), skipping stored ids, then the rollups. */
function ormInsert(backend: Backend, batch: GenerationRow[]): Promise<void> {
  return backend.transaction(async (tx) => {
    const { generations } = backend.tables;
    const inserted: string[] = [];
    for (const row of batch) inserted.push(...(await tx.insert(generations).values(row).onConflictDoNothing().returning({ id: generations.id })).map((stored) => stored.id));
    await addToRollups(tx, backend.tables, backend.dialect, inserted);
  });
}

test("the thread (whole batches, or in slices as on one core) and the in-process writer store every column, default and rollup exactly as the ORM's insert does", async () => {
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
  const viaProcess = fileBackend();
  const viaThread = fileBackend();
  const viaSlices = fileBackend();
  const inProcess = batchWriter(viaProcess);
  const thread = storeWriter(viaThread, { sliceMs: null });
  const sliced = storeWriter(viaSlices, { sliceMs: 0, pauseMs: 0.05, rollupRows: 1 });
  try {
    for (const batch of batches) {
      await ormInsert(viaOrm, batch);
      await inProcess.write(batch);
      await thread.write(batch);
      await sliced.write(batch);
    }
  } finally {
    inProcess.close();
    await thread.close();
    await sliced.close();
  }
  const files = [viaOrm, viaProcess, viaThread, viaSlices].map((backend) => join(backend.sqlite!.filename.replace(/\/[^/]+$/, ""), DATABASE_FILE));
  for (const table of ["generations", "generation_rollups"]) {
    const [expected, ...actual] = files.map((file) => dump(file, table));
    expect((expected as unknown[]).length).toBeGreaterThan(0);
    for (const written of actual) expect(written).toEqual(expected!);
  }
  const stored = dump(files[2]!, "generations") as Array<Record<string, unknown>>;
  expect(stored.map((row) => row.id)).toEqual(["g1", "g2", "g3", "g4", "g5"]);
  expect(stored.find((row) => row.id === "g1")!.total_cost).toBe(0.25);
  expect(stored.find((row) => row.id === "g4")).toMatchObject({ cancelled: 0, is_byok: 0, total_cost: 0 });
  await Promise.all([viaOrm.close(), viaProcess.close(), viaThread.close(), viaSlices.close()]);
});

for (const [name, slicing] of [
  ["whole", { sliceMs: null }],
  ["in slices, its first record's rollups added before the refused one", { sliceMs: 0, pauseMs: 0.05, rollupRows: 1 }],
] as const) {
  test(`a batch the database refuses (written ${name}) is rolled back whole, rollups too, and its error comes back to the caller`, async () => {
    const backend = fileBackend();
    const thread = storeWriter(backend, slicing);
    try {
      const broken = { ...generation("b2"), workspaceId: null } as unknown as GenerationRow;
      await expect(thread.write([generation("b1", { totalCost: 5 }), broken])).rejects.toThrow(/NOT NULL/);
      await thread.write([generation("b3", { totalCost: 0.5 })]);
    } finally {
      await thread.close();
    }
    const file = join(backend.sqlite!.filename.replace(/\/[^/]+$/, ""), DATABASE_FILE);
    expect((dump(file, "generations") as Array<{ id: string }>).map((row) => row.id)).toEqual(["b3"]);
    const rollups = dump(file, "generation_rollups") as Array<{ requests: number; total_cost: number }>;
    expect(rollups.length).toBeGreaterThan(0);
    for (const row of rollups) expect(row).toMatchObject({ requests: 1, total_cost: 0.5 });
    await backend.close();
  });
}
