import { and, asc, desc, eq, gt, gte, lt, lte, type SQL, sql } from "drizzle-orm";
import { type AuditEntry, entryHash, GENESIS_HASH } from "../core/audit-chain.ts";
import { newId } from "../core/ids.ts";
import { describeError, type Logger } from "../core/log.ts";
import type { Backend, PgExecutor } from "./backend.ts";
import type { AuditActorKind, AuditLogRow } from "./schema-people.ts";

/** What the edge knows of one audited action; the store adds seq, id and the hashes. */
export interface AuditInput {
  at: string;
  actorKind: AuditActorKind;
  actorId: string | null;
  workspaceId: string | null;
  action: string;
  target: string | null;
  outcome: number;
  ip: string | null;
  requestId: string | null;
}

/** The filters of `GET /audit-log` (every one optional); `before` is the cursor: entries with a lower seq. */
export interface AuditFilter {
  actorKind?: AuditActorKind;
  actorId?: string;
  action?: string;
  workspaceId?: string;
  /** ISO 8601 UTC timestamps, inclusive. */
  from?: string;
  to?: string;
  before?: number;
  limit: number;
}

/** Entries appended in one transaction: a PostgreSQL statement takes at most 65,535 parameters (13 a row). */
const BATCH = 500;
/** Entries held while the database cannot take them; more are dropped (and counted as failed). */
const MAX_PENDING = 10_000;

/** A stored row in the API's shape (the shape the hashes are computed over). */
export function auditEntryJson(row: AuditLogRow): AuditEntry {
  return {
    seq: row.seq,
    id: row.id,
    at: row.at,
    actor_kind: row.actorKind,
    actor_id: row.actorId,
    workspace_id: row.workspaceId,
    action: row.action,
    target: row.target,
    outcome: row.outcome,
    ip: row.ip,
    request_id: row.requestId,
    prev_hash: row.prevHash,
    hash: row.hash,
  };
}

/**
 * The audit log: appends chain each entry to the last one under a lock every replica takes
 * (PostgreSQL: a transaction-scoped advisory lock; SQLite: the write lock of BEGIN IMMEDIATE), so concurrent
 * writers never fork the chain. There is no way to update or delete an entry (and the database
 * refuses it: see the append-only migrations). `record` queues an entry and returns at once; the queue
 * is appended in order, behind the requests.
 */
export class AuditLogStore {
  #pending: AuditInput[] = [];
  #draining: Promise<void> | undefined;
  #failed = 0;

  constructor(
    private readonly backend: Backend,
    private readonly logger: Logger,
  ) {}

  /** Entries that could not be appended (the database failed, or too many were queued), since start. */
  get failed(): number {
    return this.#failed;
  }

  /** Appends entries in order, chained to the current last entry; returns the stored rows. */
  async append(inputs: AuditInput[]): Promise<AuditLogRow[]> {
    if (inputs.length === 0) return [];
    const { auditLog } = this.backend.tables;
    return this.backend.transaction(async (tx) => {
      // PostgreSQL: replicas append one at a time (the lock is held to the end of the transaction).
      // SQLite: BEGIN IMMEDIATE already holds the file's write lock.
      if (this.backend.dialect === "postgres") await (tx as unknown as PgExecutor).execute(sql`select pg_advisory_xact_lock(hashtextextended('roundhouse:audit-log', 0))`);
      const [head] = await tx.select({ seq: auditLog.seq, hash: auditLog.hash }).from(auditLog).orderBy(desc(auditLog.seq)).limit(1);
      let previous = head ?? { seq: 0, hash: GENESIS_HASH };
      const rows = inputs.map((input): AuditLogRow => {
        const unhashed = { ...input, seq: previous.seq + 1, id: newId(), prevHash: previous.hash };
        const row = { ...unhashed, hash: entryHash(auditEntryJson({ ...unhashed, hash: "" })) };
        previous = row;
        return row;
      });
      await tx.insert(auditLog).values(rows);
      return rows;
    });
  }

  /** Queues an entry to append behind the request; never throws. A failed append is logged and counted. */
  record(input: AuditInput): void {
    if (this.#pending.length >= MAX_PENDING) {
      this.#failed += 1;
      this.logger.error("audit log entry dropped: too many entries wait for the database", { action: input.action });
      return;
    }
    this.#pending.push(input);
    this.#draining ??= this.#drain();
  }

  /** Settles once every entry queued so far was appended (or failed). */
  async flush(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, BATCH);
      try {
        await this.append(batch);
      } catch (error) {
        this.#failed += batch.length;
        this.logger.error("audit log append failed", { entries: batch.length, error: describeError(error) });
      }
    }
    this.#draining = undefined;
  }

  /** One page of entries, newest first, and whether older ones match too. */
  async list(filter: AuditFilter): Promise<{ rows: AuditLogRow[]; more: boolean }> {
    const { auditLog } = this.backend.tables;
    const conditions: SQL[] = [];
    if (filter.actorKind !== undefined) conditions.push(eq(auditLog.actorKind, filter.actorKind));
    if (filter.actorId !== undefined) conditions.push(eq(auditLog.actorId, filter.actorId));
    if (filter.action !== undefined) conditions.push(eq(auditLog.action, filter.action));
    if (filter.workspaceId !== undefined) conditions.push(eq(auditLog.workspaceId, filter.workspaceId));
    if (filter.from !== undefined) conditions.push(gte(auditLog.at, filter.from));
    if (filter.to !== undefined) conditions.push(lte(auditLog.at, filter.to));
    if (filter.before !== undefined) conditions.push(lt(auditLog.seq, filter.before));
    const rows = await this.backend.db
      .select()
      .from(auditLog)
      .where(and(...conditions))
      .orderBy(desc(auditLog.seq))
      .limit(filter.limit + 1);
    return { rows: rows.slice(0, filter.limit), more: rows.length > filter.limit };
  }

  /** Every entry in seq order, read a page at a time (an export or a verification of any length). */
  async *entries(pageSize = BATCH): AsyncGenerator<AuditLogRow> {
    const { auditLog } = this.backend.tables;
    let after = 0;
    for (;;) {
      const rows = await this.backend.db.select().from(auditLog).where(gt(auditLog.seq, after)).orderBy(asc(auditLog.seq)).limit(pageSize);
      yield* rows;
      if (rows.length < pageSize) return;
      after = rows.at(-1)!.seq;
    }
  }
}
