import type { Statement } from "bun:sqlite";
import { dirname, join } from "node:path";
import { and, Column, eq, getTableColumns, gte, inArray, lt, sql, sum } from "drizzle-orm";
import { periodStart } from "../core/periods.ts";
import type { Logger } from "../core/log.ts";
import { describeError } from "../core/log.ts";
import type { Db } from "./client.ts";
import { GenerationJournal, JOURNAL_FILE, readJournal } from "./generation-journal.ts";
import { type GenerationRow, generations } from "./schema.ts";

export interface KeyUsage {
  total: number;
  daily: number;
  weekly: number;
  monthly: number;
}

export interface GenerationStoreOptions {
  /** Longest a record waits before it is written. */
  flushDelayMs?: number;
  /** A batch this large is written at once. */
  batchSize?: number;
  /**
   * The write-ahead journal file; default `generations.journal` beside an on-disk database, none for an
   * in-memory one (null: none).
   */
  journalFile?: string | null;
}

/** The journal's default place: beside the database file. */
function journalBeside(db: Db): string | null {
  const file = db.$client.filename;
  return file === "" || file === ":memory:" ? null : join(dirname(file), JOURNAL_FILE);
}

/** One column of the INSERT: the row's field, the SQL name and the value as the driver stores it. */
interface InsertColumn {
  field: keyof GenerationRow;
  name: string;
  encode: (value: unknown) => unknown;
}

/**
 * The INSERT's columns, in schema order, with drizzle's own value mapping (booleans, JSON) and defaults.
 * A column whose mapping is drizzle's identity (plain text, integer, real) stores its value as is.
 */
const INSERT_COLUMNS: InsertColumn[] = Object.entries(getTableColumns(generations)).map(([field, column]) => {
  const mapped = column as Column;
  const fallback = mapped.default === undefined ? null : mapped.mapToDriverValue(mapped.default);
  const identity = mapped.mapToDriverValue === Column.prototype.mapToDriverValue;
  return {
    field: field as keyof GenerationRow,
    name: mapped.name,
    encode: identity
      ? (value) => (value === undefined ? fallback : value)
      : (value) => (value === undefined ? fallback : value === null ? null : mapped.mapToDriverValue(value)),
  };
});

const INSERT_SQL = `INSERT INTO generations (${INSERT_COLUMNS.map((column) => `"${column.name}"`).join(", ")}) VALUES (${INSERT_COLUMNS.map(() => "?").join(", ")}) ON CONFLICT DO NOTHING`;

/**
 * Generation records, written behind the response: records queue in memory and are inserted in one
 * transaction per batch, through one prepared statement, on a timer (or at the next turn of the event
 * loop once a batch is full), never inside the request that queued them. Reads see queued records
 * too, so a client can fetch its generation at once. A queued record is appended to the journal at
 * once, so the record of an answer already sent survives a killed process: the next start replays it.
 */
export class GenerationStore {
  readonly #pending = new Map<string, GenerationRow>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #immediate: ReturnType<typeof setImmediate> | undefined;
  readonly #delay: number;
  readonly #batchSize: number;
  #closed = false;
  #insert: Statement | undefined;
  #write: ((batch: GenerationRow[]) => void) | undefined;
  readonly #journal: GenerationJournal | undefined;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    options: GenerationStoreOptions = {},
  ) {
    this.#delay = options.flushDelayMs ?? 50;
    this.#batchSize = options.batchSize ?? 256;
    const journalFile = options.journalFile === undefined ? journalBeside(db) : options.journalFile;
    if (journalFile !== null) {
      this.#replay(readJournal(journalFile, logger));
      this.#journal = new GenerationJournal(journalFile, logger);
      this.#journal.clear();
    }
  }

  /**
   * Inserts the records a killed process left in the journal; those already written are skipped (by
   * id). A record the database refuses is logged and dropped rather than blocking every start.
   */
  #replay(rows: GenerationRow[]): void {
    if (rows.length === 0) return;
    try {
      this.#writeBatch(rows);
    } catch {
      for (const row of rows) {
        try {
          this.#writeBatch([row]);
        } catch (error) {
          this.logger.error("a journaled generation record cannot be written; dropped", { id: row.id, error: describeError(error) });
        }
      }
    }
    this.logger.info("replayed generation records from the journal", { count: rows.length });
  }

  record(row: GenerationRow): void {
    if (this.#closed) {
      this.logger.warn("generation record after close; not written", { id: row.id });
      return;
    }
    this.#journal?.append(row);
    this.#pending.set(row.id, row);
    if (this.#pending.size >= this.#batchSize) this.#immediate ??= setImmediate(() => this.flush());
    else this.#timer ??= setTimeout(() => this.flush(), this.#delay);
  }

  /** Inserts a batch in one transaction (prepared once, on the first write). */
  #writeBatch(batch: GenerationRow[]): void {
    if (!this.#write) {
      const client = this.db.$client;
      const insert = (this.#insert = client.prepare(INSERT_SQL));
      const values = new Array<unknown>(INSERT_COLUMNS.length);
      this.#write = client.transaction((rows: GenerationRow[]) => {
        for (const row of rows) {
          for (let index = 0; index < INSERT_COLUMNS.length; index++) {
            const column = INSERT_COLUMNS[index]!;
            values[index] = column.encode(row[column.field]);
          }
          insert.run(values as never);
        }
      });
    }
    this.#write(batch);
  }

  /** Writes every queued record now. A failed batch stays queued and is retried on the next flush. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    clearImmediate(this.#immediate);
    this.#immediate = undefined;
    if (this.#pending.size === 0) return;
    const batch = [...this.#pending.values()];
    try {
      // Nothing can queue while the (synchronous) batch is written and the journal emptied: what is
      // pending (and journaled) is the batch.
      this.#writeBatch(batch);
      this.#pending.clear();
      this.#journal?.clear();
    } catch (error) {
      this.logger.error("writing generation records failed; will retry", { count: batch.length, error: describeError(error) });
      this.#timer = setTimeout(() => this.flush(), Math.max(this.#delay, 1000));
    }
  }

  /** Writes what is queued and stops: call before the database closes, or the last records are lost. */
  close(): void {
    this.flush();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#closed = true;
    this.#journal?.close();
    this.#insert?.finalize();
    this.#insert = undefined;
    this.#write = undefined;
  }

  get(workspaceId: string, id: string): GenerationRow | undefined {
    const pending = this.#pending.get(id);
    if (pending) return pending.workspaceId === workspaceId ? pending : undefined;
    return this.db
      .select()
      .from(generations)
      .where(and(eq(generations.id, id), eq(generations.workspaceId, workspaceId)))
      .get();
  }

  /**
   * What keys spent (USD): in total, today, this week (from Monday) and this month, UTC, queued records
   * included. One grouped query for any number of keys.
   */
  usageByKey(keyHashes: string[], now = new Date()): Map<string, KeyUsage> {
    const result = new Map<string, KeyUsage>(keyHashes.map((hash) => [hash, { total: 0, daily: 0, weekly: 0, monthly: 0 }]));
    if (keyHashes.length === 0) return result;
    const day = periodStart("daily", now).toISOString();
    const week = periodStart("weekly", now).toISOString();
    const month = periodStart("monthly", now).toISOString();
    const rows = this.db
      .select({
        keyHash: generations.keyHash,
        total: sql<number>`coalesce(sum(${generations.totalCost}), 0)`,
        daily: sql<number>`coalesce(sum(case when ${generations.createdAt} >= ${day} then ${generations.totalCost} end), 0)`,
        weekly: sql<number>`coalesce(sum(case when ${generations.createdAt} >= ${week} then ${generations.totalCost} end), 0)`,
        monthly: sql<number>`coalesce(sum(case when ${generations.createdAt} >= ${month} then ${generations.totalCost} end), 0)`,
      })
      .from(generations)
      .where(inArray(generations.keyHash, keyHashes))
      .groupBy(generations.keyHash)
      .all();
    for (const row of rows) result.set(row.keyHash, { total: row.total, daily: row.daily, weekly: row.weekly, monthly: row.monthly });
    for (const row of this.#pending.values()) {
      const usage = result.get(row.keyHash);
      if (!usage) continue;
      usage.total += row.totalCost;
      if (row.createdAt >= day) usage.daily += row.totalCost;
      if (row.createdAt >= week) usage.weekly += row.totalCost;
      if (row.createdAt >= month) usage.monthly += row.totalCost;
    }
    return result;
  }

  /** USD a key spent since a moment, queued records included. */
  /** Successful requests per model in a workspace since `since` (the records still queued included). */
  popularity(workspaceId: string, since: Date): Map<string, number> {
    this.flush();
    const rows = this.db
      .select({ model: generations.model, count: sql<number>`count(*)` })
      .from(generations)
      .where(and(eq(generations.workspaceId, workspaceId), gte(generations.createdAt, since.toISOString()), lt(generations.status, 400)))
      .groupBy(generations.model)
      .all();
    return new Map(rows.map((row) => [row.model, Number(row.count)]));
  }

  spentSince(keyHash: string, since: Date): number {
    const iso = since.toISOString();
    const stored =
      this.db
        .select({ total: sum(generations.totalCost) })
        .from(generations)
        .where(and(eq(generations.keyHash, keyHash), gte(generations.createdAt, iso)))
        .get()?.total ?? 0;
    let pending = 0;
    for (const row of this.#pending.values()) if (row.keyHash === keyHash && row.createdAt >= iso) pending += row.totalCost;
    return Number(stored) + pending;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }
}
