/**
 * How the generation writer's thread stores a record without an ORM: the INSERT and the rollup upsert as
 * SQL text, and per column the field it reads and how its value is stored. Made by the gateway's thread
 * from the schema (generation-writer.ts); this module imports nothing, so the thread loads nothing else.
 */

/** How a column's value is stored: as it is, a boolean as 1 or 0, or a JSON value as its text. */
export type StoredAs = "plain" | "boolean" | "json";

export interface PlannedColumn {
  field: string;
  storedAs: StoredAs;
  /** What an absent (undefined) value stores: the column's default as stored, or null. */
  fallback: unknown;
}

export interface WritePlan {
  /** `INSERT … VALUES (?, …) ON CONFLICT DO NOTHING`, one parameter per column in `columns` order. */
  insertSql: string;
  /** The rollup upsert of the records just inserted; each of its `rollupParameters` parameters is their ids as a JSON array. */
  rollupSql: string;
  rollupParameters: number;
  columns: PlannedColumn[];
  /**
   * Where the gateway may run on one core only: once a batch has kept the thread busy this long (ms),
   * the thread sleeps for `pauseMs`, in the same transaction, so that the gateway's thread gets the
   * core back (the kernel would take it from the writer only at its next tick, milliseconds later).
   * Before it sleeps with `rollupRows` records or more not yet in the rollups, it adds them, so that
   * the rollup after the last pause stays short. Null: never pause (another core is free).
   */
  sliceMs: number | null;
  pauseMs: number;
  rollupRows: number;
}

/** A record's field as its column stores it. */
export function storedValue(column: PlannedColumn, value: unknown): unknown {
  if (value === undefined) return column.fallback;
  if (value === null || column.storedAs === "plain") return value;
  return column.storedAs === "boolean" ? (value ? 1 : 0) : JSON.stringify(value);
}

/** The rollup upsert's arguments for the records just inserted: their ids as a JSON array, for each of its parameters. */
export function rollupArguments(plan: Pick<WritePlan, "rollupParameters">, ids: string[]): string[] {
  return new Array<string>(plan.rollupParameters).fill(JSON.stringify(ids));
}
