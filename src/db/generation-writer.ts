import type { Statement } from "bun:sqlite";
import { availableParallelism } from "node:os";
import { Column, getTableColumns, sql } from "drizzle-orm";
import { compiledModuleUrl, isCompiledBinary } from "../core/compiled.ts";
import type { Backend, PgExecutor } from "./backend.ts";
import { type PlannedColumn, rollupArguments, type StoredAs, storedValue, type WritePlan } from "./generation-plan.ts";
import { addToRollups, sqliteRollupSql } from "./generation-rollup.ts";
import type { GenerationRow } from "./schema.ts";

/**
 * Writes one batch of generation records (ids already stored are skipped) and, in the same
 * transaction, adds the records it inserted to their daily and hourly rollups; `close` releases what it prepared.
 */
export interface BatchWriter {
  /** `lines`, when given, are the rows as JSON (the journal's lines): a thread takes those, cheaper to hand over than objects. */
  write(batch: GenerationRow[], lines?: string[]): Promise<void>;
  close(): void | Promise<void>;
}

/** PostgreSQL's limit on the parameters of one statement. */
const MAX_PARAMETERS = 65_535;

/**
 * The generation writer of a backend. SQLite: one transaction per batch through one prepared
 * statement. PostgreSQL: one transaction per batch, one multi-row INSERT … ON CONFLICT DO NOTHING
 * RETURNING id per chunk of the batch, each under the limit of parameters per statement. Either
 * upserts the rollups of the records it inserted before committing.
 */
export function batchWriter(backend: Backend): BatchWriter {
  return backend.sqlite ? sqliteWriter(backend) : multiRowWriter(backend);
}

/**
 * The generation store's writer: for a SQLite file, a thread of its own with its own connection
 * (threadWriter), so a batch's inserts, rollups, commit and the WAL checkpoints that follow commits
 * never hold the event loop; else (PostgreSQL, whose driver does not block, or an in-memory database
 * no second connection can open) batchWriter.
 */
export function storeWriter(backend: Backend, slicing: Partial<Pick<WritePlan, "sliceMs" | "pauseMs" | "rollupRows">> = {}): BatchWriter {
  const file = backend.sqlite?.filename;
  if (!backend.sqlite || !file || file === ":memory:") return batchWriter(backend);
  const timeout = Object.values(backend.sqlite.query("PRAGMA busy_timeout").get() as Record<string, number>)[0] ?? 5000;
  return threadWriter(file, timeout, { ...writePlan(backend), ...slicing });
}

/**
 * The writer thread's slices where the process may run on one core only (its CPU affinity: a pinned
 * process, a one-CPU container): a request then waits for the core about a slice and a rollup of up
 * to ROLLUP_ROWS records (under a millisecond), not a whole batch. The pause is a little shorter than
 * the slice, so a thread that has the core to itself still writes at half speed or better; with a
 * second core the thread never pauses. A rollup costs about as much for one record as for ten, hence
 * not one per slice.
 */
const SLICE_MS = 0.25;
const PAUSE_MS = 0.2;
const ROLLUP_ROWS = 64;

/** How each kind of column drizzle maps stores its values, as the thread does it without drizzle. */
const STORED_AS: Record<string, StoredAs> = { SQLiteText: "plain", SQLiteInteger: "plain", SQLiteReal: "plain", SQLiteBoolean: "boolean", SQLiteTextJson: "json" };

/**
 * The statements and column mappings the thread writes with, from the schema: the same INSERT as
 * sqliteWriter's and addToRollups' upsert. A column of a kind the thread does not know, or whose
 * mapping is not the one it assumes, fails here, at start, rather than storing a value differently.
 */
function writePlan(backend: Backend): WritePlan {
  const entries = Object.entries(getTableColumns(backend.tables.generations)) as Array<[keyof GenerationRow, Column]>;
  const columns = entries.map(([field, column]): PlannedColumn => {
    const storedAs = STORED_AS[column.columnType];
    const planned = { field, storedAs: storedAs ?? "plain", fallback: column.default === undefined ? null : column.mapToDriverValue(column.default) };
    const samples: unknown[] = storedAs === "boolean" ? [true, false] : storedAs === "json" ? [{ a: [1, "é"] }, []] : ["x", 3, 0.5];
    if (!storedAs || samples.some((sample) => storedValue(planned, sample) !== column.mapToDriverValue(sample))) {
      throw new Error(`the generation writer's thread cannot store column ${column.name} (${column.columnType})`);
    }
    return planned;
  });
  const names = entries.map(([, column]) => `"${column.name}"`).join(", ");
  const rollup = sqliteRollupSql(backend.db, backend.tables);
  return {
    insertSql: `INSERT INTO generations (${names}) VALUES (${columns.map(() => "?").join(", ")}) ON CONFLICT DO NOTHING`,
    rollupSql: rollup.sql,
    rollupParameters: rollup.parameters,
    columns,
    sliceMs: availableParallelism() > 1 ? null : SLICE_MS,
    pauseMs: PAUSE_MS,
    rollupRows: ROLLUP_ROWS,
  };
}

/**
 * The writer thread's entry point: from source, the file beside this one; in a compiled binary, the
 * copy compiled into it (from the source tree's path, the thread would not start on any other host).
 */
function threadEntry(): URL {
  return isCompiledBinary() ? compiledModuleUrl("src/db/generation-thread.ts") : new URL("./generation-thread.ts", import.meta.url);
}

/** What the gateway's thread sends the writer's thread. */
export type WriterMessage =
  | { type: "open"; file: string; busyTimeoutMs: number; plan: WritePlan }
  /** The batch as JSON lines joined by line feeds (JSON never holds a raw one). */
  | { type: "write"; id: number; lines: string }
  | { type: "close" };

/** What the writer's thread answers: a batch written or refused (with the database's error), or closed. */
export type WriterAnswer = { type: "written"; id: number } | { type: "failed"; id: number; name: string; message: string } | { type: "closed" };

/**
 * Writes batches on a thread of its own (generation-thread.ts), started at the first batch and again
 * after a crash. A batch's promise settles when that thread committed it (or the database refused it,
 * with the database's error). The thread does not keep the process alive: the store's close() waits for it.
 */
function threadWriter(file: string, busyTimeoutMs: number, plan: WritePlan): BatchWriter {
  let thread: Worker | undefined;
  let next = 0;
  const waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let onClosed: (() => void) | undefined;
  const failAll = (reason: string) => {
    for (const { reject } of waiting.values()) reject(new Error(reason));
    waiting.clear();
  };
  const start = (): Worker => {
    // A small heap: the thread loads only SQLite, holds one batch at a time, and SQLite works outside the heap.
    const worker = new Worker(threadEntry(), { smol: true, name: "generation writer" });
    worker.onmessage = ({ data }: MessageEvent<WriterAnswer>) => {
      if (data.type === "closed") return onClosed?.();
      const entry = waiting.get(data.id);
      waiting.delete(data.id);
      if (data.type === "written") entry?.resolve();
      else entry?.reject(Object.assign(new Error(data.message), { name: data.name }));
    };
    worker.addEventListener("error", (event) => {
      if (thread === worker) thread = undefined;
      failAll(`the generation writer's thread failed: ${event.message}`);
      worker.terminate();
    });
    worker.addEventListener("close", () => {
      if (thread === worker) thread = undefined;
      failAll("the generation writer's thread stopped");
      onClosed?.();
    });
    worker.postMessage({ type: "open", file, busyTimeoutMs, plan } satisfies WriterMessage);
    return worker;
  };
  return {
    write(rows, lines) {
      thread ??= start();
      const id = next++;
      // One string, not objects: copying a batch of objects (or of strings) to the thread costs this
      // thread more than one string of their JSON.
      const message: WriterMessage = { type: "write", id, lines: (lines ?? rows.map((row) => JSON.stringify(row))).join("\n") };
      return new Promise<void>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        thread!.postMessage(message);
      });
    },
    async close() {
      const worker = thread;
      thread = undefined;
      if (!worker) return;
      await new Promise<void>((resolve) => {
        onClosed = resolve;
        worker.postMessage({ type: "close" } satisfies WriterMessage);
      });
      worker.terminate();
    },
  };
}

/**
 * PostgreSQL's writer. Each record's INSERT charges its spend ledgers (a trigger: the key's, its
 * guardrails', its member's, the workspace's budgets) and the batch then upserts rollup rows, each
 * row locked to the commit. Two replicas' batches lock such rows in their own records' order, so two
 * batches with records of the same keys in another order deadlocked, and PostgreSQL found it only
 * after its deadlock_timeout (1 s): every reservation of those keys waited behind them for that
 * second, and one batch failed. A transaction-scoped advisory lock, taken first, makes the replicas'
 * batches take turns; a request's reservation still waits at most for the batch being written.
 */
function multiRowWriter(backend: Backend): BatchWriter {
  const { generations } = backend.tables;
  const perChunk = Math.floor(MAX_PARAMETERS / Object.keys(getTableColumns(generations)).length);
  return {
    write: (batch) =>
      backend.transaction(async (tx) => {
        await (tx as unknown as PgExecutor).execute(sql`select pg_advisory_xact_lock(hashtextextended('roundhouse:generations', 0))`);
        const inserted = new Set<string>();
        for (let start = 0; start < batch.length; start += perChunk) {
          const rows = await tx.insert(generations).values(batch.slice(start, start + perChunk)).onConflictDoNothing().returning({ id: generations.id });
          for (const row of rows) inserted.add(row.id);
        }
        await addToRollups(tx, backend.tables, backend.dialect, [...inserted]);
      }),
    close() {},
  };
}

export function sqliteWriter(backend: Backend): BatchWriter {
  const client = backend.sqlite!;
  // The same INSERT and column mapping the writer's thread uses (checked against drizzle's own mapping).
  const plan = writePlan(backend);
  const { insertSql, columns } = plan;
  let insert: Statement | undefined;
  let rollup: Statement | undefined;
  const values = new Array<unknown>(columns.length);
  return {
    // In the backend's transaction (BEGIN IMMEDIATE, serialized with this process's other transactions),
    // each row through the one prepared statement, then the rollups of those inserted, all synchronously:
    // a read on this connection meanwhile (an in-memory database has no other) sees a record together
    // with its rollups or neither, as one on another connection sees them once committed (key-usage.ts).
    write: (batch) =>
      backend.transaction(async () => {
        const inserted: string[] = [];
        insert ??= client.prepare(insertSql);
        for (const row of batch) {
          for (let index = 0; index < columns.length; index++) values[index] = storedValue(columns[index]!, row[columns[index]!.field as keyof GenerationRow]);
          if (insert.run(values as never).changes > 0) inserted.push(row.id);
        }
        if (inserted.length === 0) return;
        rollup ??= client.prepare(plan.rollupSql);
        rollup.run(...rollupArguments(plan, inserted));
      }),
    close() {
      insert?.finalize();
      rollup?.finalize();
      insert = rollup = undefined;
    },
  };
}
