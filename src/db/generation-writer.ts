import type { Statement } from "bun:sqlite";
import { Column, getTableColumns } from "drizzle-orm";
import type { Backend } from "./backend.ts";
import type { GenerationRow } from "./schema.ts";

/** Writes one batch of generation records (ids already stored are skipped); `close` releases what it prepared. */
export interface BatchWriter {
  write(batch: GenerationRow[]): Promise<void>;
  close(): void;
}

/** PostgreSQL's limit on the parameters of one statement. */
const MAX_PARAMETERS = 65_535;

/**
 * The generation writer of a backend. SQLite: one transaction per batch through one prepared
 * statement. PostgreSQL: one multi-row INSERT … ON CONFLICT
 * DO NOTHING per chunk of the batch, each under the limit of parameters per statement.
 */
export function batchWriter(backend: Backend): BatchWriter {
  return backend.sqlite ? sqliteWriter(backend) : multiRowWriter(backend);
}

function multiRowWriter(backend: Backend): BatchWriter {
  const { generations } = backend.tables;
  const perChunk = Math.floor(MAX_PARAMETERS / Object.keys(getTableColumns(generations)).length);
  return {
    async write(batch) {
      for (let start = 0; start < batch.length; start += perChunk) {
        await backend.db.insert(generations).values(batch.slice(start, start + perChunk)).onConflictDoNothing();
      }
    },
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
    // each row through the one prepared statement, synchronously.
    write: (batch) =>
      backend.transaction(async () => {
        insert ??= client.prepare(`INSERT INTO generations (${names}) VALUES (${columns.map(() => "?").join(", ")}) ON CONFLICT DO NOTHING`);
        for (const row of batch) {
          for (let index = 0; index < columns.length; index++) {
            const column = columns[index]!;
            values[index] = column.encode(row[column.field]);
          }
          insert.run(values as never);
        }
      }),
    close() {
      insert?.finalize();
      insert = undefined;
    },
  };
}
