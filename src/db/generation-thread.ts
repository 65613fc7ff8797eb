/**
 * The generation writer's thread: its own connection to the database file, on which it writes the
 * batches the gateway's thread sends, each in one transaction: the records (an id already stored is
 * skipped), then the rollups of those inserted. Started by threadWriter (generation-writer.ts) with a
 * plan of the statements (generation-plan.ts); it loads nothing but SQLite, so the thread stays small.
 * One message in, one answer out per batch, in order. On one core it works in slices (the plan's
 * sliceMs) with a short sleep between them, inside the batch's transaction.
 */
import { Database, type Statement } from "bun:sqlite";
import { rollupArguments, storedValue, type WritePlan } from "./generation-plan.ts";
import type { WriterAnswer, WriterMessage } from "./generation-writer.ts";

declare const self: Worker;

let database: Database | undefined;
let plan: WritePlan | undefined;
let insert: Statement | undefined;
let rollup: Statement | undefined;
/** What the thread sleeps on between slices: nothing ever wakes it but the timeout. */
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function write(lines: string): void {
  const { columns, sliceMs, pauseMs, rollupRows } = plan!;
  const values = new Array<unknown>(columns.length);
  let inserted: string[] = [];
  let sliceStart = performance.now();
  /** Sleeps if this slice is over (on one core only); the records not yet in the rollups are added first once there are `rollupRows`. */
  const breathe = () => {
    if (sliceMs === null || performance.now() - sliceStart < sliceMs) return;
    if (inserted.length >= rollupRows) addToRollups();
    Atomics.wait(sleeper, 0, 0, pauseMs);
    sliceStart = performance.now();
  };
  const addToRollups = () => {
    if (inserted.length > 0) rollup!.run(...rollupArguments(plan!, inserted));
    inserted = [];
  };
  database!.exec("BEGIN IMMEDIATE");
  try {
    for (const line of lines.split("\n")) {
      const row = JSON.parse(line) as Record<string, unknown>;
      for (let index = 0; index < columns.length; index++) values[index] = storedValue(columns[index]!, row[columns[index]!.field]);
      if (insert!.run(values as never).changes > 0) inserted.push(row.id as string);
      breathe();
    }
    addToRollups();
    breathe();
    database!.exec("COMMIT");
  } catch (error) {
    if (database!.inTransaction) database!.exec("ROLLBACK");
    throw error;
  }
}

self.onmessage = (event: MessageEvent<WriterMessage>) => {
  const message = event.data;
  if (message.type === "open") {
    database = new Database(message.file, { strict: true });
    database.exec(`PRAGMA busy_timeout = ${message.busyTimeoutMs}`);
    database.exec("PRAGMA synchronous = NORMAL");
    database.exec("PRAGMA foreign_keys = ON");
    plan = message.plan;
    insert = database.prepare(plan.insertSql);
    rollup = database.prepare(plan.rollupSql);
    return;
  }
  if (message.type === "close") {
    insert?.finalize();
    rollup?.finalize();
    database?.close();
    self.postMessage({ type: "closed" } satisfies WriterAnswer);
    return;
  }
  try {
    write(message.lines);
    self.postMessage({ type: "written", id: message.id } satisfies WriterAnswer);
  } catch (error) {
    const { name, message: text } = error instanceof Error ? error : { name: "Error", message: String(error) };
    self.postMessage({ type: "failed", id: message.id, name, message: text } satisfies WriterAnswer);
  }
};
