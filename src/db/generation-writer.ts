import type { Statement } from "bun:sqlite";
import { Column, getTableColumns } from "drizzle-orm";
import type { Backend } from "./backend.ts";
import { addToRollups } from "./generation-rollup.ts";
import type { GenerationRow } from "./schema.ts";

/**
 * Writes one batch of generation records (ids already stored are skipped) and, in the same
 * transaction, adds the records it inserted to their daily and hourly rollups; `close` releases what it prepared.
 */
export interface BatchWriter {
  write(batch: GenerationRow[]): Promise<void>;
  close(): void;
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

function multiRowWriter(backend: Backend): BatchWriter {
  const { generations } = backend.tables;
  const perChunk = Math.floor(MAX_PARAMETERS / Object.keys(getTableColumns(generations)).length);
  return {
    write: (batch) =>
      backend.transaction(async (tx) => {
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

/** One column of the INSERT: the row's field and the value as the driver stores it. */
interface InsertColumn {
  field: keyof GenerationRow;
  encode: (value: unknown) => unknown;
}

function sqliteWriter(backend: Backend): BatchWriter {
  const client = backend.sqlite!;
  // The INSERT's columns, in schema order, with drizzle's own value mapping (booleans, JSON) and
  // defaults. A column whose mapping is drizzle's identity (plain text, integer, real) stores its value as is.
  const entries = Object.entries(getTableColumns(backend.tables.generations)) as Array<[keyof GenerationRow, Column]>;
  const columns: InsertColumn[] = entries.map(([field, column]) => {
    const fallback = column.default === undefined ? null : column.mapToDriverValue(column.default);
    const identity = column.mapToDriverValue === Column.prototype.mapToDriverValue;
    return {
      field,
      encode: identity
        ? (value) => (value === undefined ? fallback : value)
        : (value) => (value === undefined ? fallback : value === null ? null : column.mapToDriverValue(value)),
    };
  });
  const names = entries.map(([, column]) => `"${column.name}"`).join(", ");
  let insert: Statement | undefined;
  const values = new Array<unknown>(columns.length);
  return {
    // In the backend's transaction (BEGIN IMMEDIATE, serialized with this process's other transactions),
    // each row through the one prepared statement, synchronously; then the rollups of those inserted.
    write: (batch) =>
      backend.transaction(async (tx) => {
        const inserted: string[] = [];
        insert ??= client.prepare(`INSERT INTO generations (${names}) VALUES (${columns.map(() => "?").join(", ")}) ON CONFLICT DO NOTHING`);
        for (const row of batch) {
          for (let index = 0; index < columns.length; index++) {
            const column = columns[index]!;
            values[index] = column.encode(row[column.field]);
          }
          if (insert.run(values as never).changes > 0) inserted.push(row.id);
        }
        await addToRollups(tx, backend.tables, backend.dialect, inserted);
      }),
    close() {
      insert?.finalize();
      insert = undefined;
    },
  };
}
