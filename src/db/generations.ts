import { dirname, join } from "node:path";
import { and, eq, gte, isNotNull, lt, notInArray, sql, sum } from "drizzle-orm";
import { periodStart } from "../core/periods.ts";
import type { LedgerOwner } from "../core/ledgers.ts";
import type { Logger } from "../core/log.ts";
import { describeError } from "../core/log.ts";
import type { Backend } from "./backend.ts";
import { GenerationJournal, JOURNAL_FILE, readJournal, sealedFiles } from "./generation-journal.ts";
import { type BatchWriter, storeWriter } from "./generation-writer.ts";
import { addCommittedUsage, committedRequestsByModel, committedSpendSince, type KeyUsage, NO_USAGE } from "./key-usage.ts";
import type { GenerationRow } from "./schema.ts";

export { type KeyUsage, NO_USAGE } from "./key-usage.ts";

/** Successful generations of one classified task on one model. */
export interface TaskUsage {
  task: string;
  model: string;
  requests: number;
  tokens: number;
}

export interface GenerationStoreOptions {
  /** Longest a record waits before it is written. */
  flushDelayMs?: number;
  /** A batch this large is written at once. */
  batchSize?: number;
  /**
   * The write-ahead journal file; default `generations.journal` beside an on-disk SQLite database, none
   * for an in-memory one or PostgreSQL (null: none).
   */
  journalFile?: string | null;
  /**
   * Most records held in memory while the database cannot take them; past it a new record is dropped
   * (counted in `dropped`, logged) rather than growing without bound. Default 50,000.
   */
  maxPending?: number;
}

/** The journal's default place: beside the SQLite database file. */
function journalBeside(backend: Backend): string | null {
  const file = backend.sqlite?.filename;
  return file === undefined || file === "" || file === ":memory:" ? null : join(dirname(file), JOURNAL_FILE);
}

/** Longest wait between two attempts of a batch the database refused. */
const MAX_RETRY_MS = 5_000;

/** PostgreSQL's refusals that are about the moment, not the records: serialization failure, deadlock, a lock not available, too many connections. */
const TRANSIENT_STATES = new Set(["40001", "40P01", "55P03", "53300"]);

/** Whether the database refused for the moment (its error, or one it wraps): the batch is kept for its retry, never written one by one. */
export function isTransientRefusal(error: unknown): boolean {
  let current = error;
  for (let depth = 0; current !== null && typeof current === "object" && depth < 5; depth++) {
    const { errno, code, message, cause } = current as { errno?: unknown; code?: unknown; message?: unknown; cause?: unknown };
    if (typeof errno === "string" && TRANSIENT_STATES.has(errno)) return true;
    if (typeof code === "string" && /^SQLITE_(BUSY|LOCKED)/.test(code)) return true;
    // The records thread hands back a SQLite error's message only.
    if (typeof message === "string" && /^database (table )?is locked/.test(message)) return true;
    current = cause;
  }
  return false;
}

/**
 * Generation records, written behind the response: records queue in memory and are written in
 * batches (generation-writer.ts) on a timer (or at the next turn of the event loop once a batch is
 * full), never inside the request that queued them. While a batch is in flight, new records queue for
 * the next one. Reads see queued records too, so a client can fetch its generation at once. A queued
 * record is appended to the journal at once, and its journal file is deleted only once its batch is
 * committed, so the record of an answer already sent survives a killed process: the next start
 * replays it. A batch the database cannot take (unreachable, or refusing for the moment) is kept and
 * retried with backoff.
 */
export class GenerationStore {
  /** Records not yet taken into a batch (journaled in the live journal file). */
  readonly #queued = new Map<string, GenerationRow>();
  /** The batch in flight, or refused and waiting for its retry (journaled in `#sealed`). */
  readonly #batch = new Map<string, GenerationRow>();
  /** The JSON line of each record queued or in flight, as the journal has it: what the writer's thread takes. */
  readonly #lines = new Map<string, string>();
  #sealed: string[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #immediate: ReturnType<typeof setImmediate> | undefined;
  #flushing: Promise<void> | undefined;
  #failing = false;
  #retries = 0;
  readonly #delay: number;
  readonly #batchSize: number;
  readonly #maxPending: number;
  #dropped = 0;
  #closed = false;
  readonly #writer: BatchWriter;
  readonly #journal: GenerationJournal | undefined;

  constructor(
    private readonly backend: Backend,
    private readonly logger: Logger,
    options: GenerationStoreOptions = {},
  ) {
    this.#delay = options.flushDelayMs ?? 50;
    this.#batchSize = options.batchSize ?? 256;
    this.#maxPending = options.maxPending ?? 50_000;
    this.#writer = storeWriter(backend);
    const journalFile = options.journalFile === undefined ? journalBeside(backend) : options.journalFile;
    if (journalFile !== null) {
      this.#journal = new GenerationJournal(journalFile, logger);
      this.#replay(journalFile);
    }
  }

  /**
   * Takes the records a killed process left in the journal as the first batch, written at once; those
   * already written are skipped (by id).
   */
  #replay(journalFile: string): void {
    this.#journal!.seal();
    this.#sealed = sealedFiles(journalFile);
    for (const file of this.#sealed) for (const row of readJournal(file, this.logger)) this.#batch.set(row.id, row);
    if (this.#batch.size === 0) return this.#journal!.discard(this.#sealed.splice(0));
    this.logger.info("replaying generation records from the journal", { count: this.#batch.size });
    this.#immediate = setImmediate(() => void this.flush());
  }

  record(row: GenerationRow): void {
    if (this.#closed) {
      this.logger.warn("generation record after close; not written", { id: row.id });
      return;
    }
    if (this.pendingCount >= this.#maxPending) {
      if (this.#dropped++ % 1000 === 0) {
        this.logger.error("generation records dropped: the database has not taken the records held in memory", { held: this.pendingCount, dropped: this.#dropped });
      }
      return;
    }
    if (this.#journal) {
      const line = JSON.stringify(row);
      this.#journal.append(line);
      this.#lines.set(row.id, line);
    }
    this.#queued.set(row.id, row);
    // While the database refuses batches, only the retry timer writes.
    if (this.#failing) return;
    if (this.#queued.size >= this.#batchSize) this.#immediate ??= setImmediate(() => void this.flush());
    else this.#timer ??= setTimeout(() => void this.flush(), this.#delay);
  }

  /**
   * Writes every record queued now (after the batch in flight, if any). Never rejects: a batch the
   * database refuses stays queued (and journaled) and is retried with backoff.
   */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    this.#flushing = this.#round();
    try {
      await this.#flushing;
    } finally {
      this.#flushing = undefined;
    }
  }

  async #round(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    clearImmediate(this.#immediate);
    this.#immediate = undefined;
    if (this.#queued.size > 0) {
      const sealed = this.#journal?.seal();
      if (sealed) this.#sealed.push(sealed);
      for (const [id, row] of this.#queued) this.#batch.set(id, row);
      this.#queued.clear();
    }
    if (this.#batch.size === 0) return;
    const batch = [...this.#batch.values()];
    try {
      await this.#writer.write(batch, this.#linesOf(batch));
    } catch (error) {
      if (isTransientRefusal(error) || !(await this.#writeEach(batch, error))) return this.#retryLater(batch.length, error);
    }
    for (const row of batch) this.#lines.delete(row.id);
    this.#batch.clear();
    this.#journal?.discard(this.#sealed.splice(0));
    this.#failing = false;
    this.#retries = 0;
    if (this.#queued.size > 0 && !this.#closed) this.#timer ??= setTimeout(() => void this.flush(), this.#delay);
  }

  /**
   * After a refused batch: when the database answers, one record it refuses (not a lost connection)
   * must not block the others forever, so the records are written one by one and a refused one is
   * logged and dropped. False when the database cannot be reached, or refuses for the moment (a lock,
   * a deadlock): the batch is kept, and the records already written are skipped when it is retried.
   */
  async #writeEach(batch: GenerationRow[], batchError: unknown): Promise<boolean> {
    if (!(await this.#reachable())) return false;
    this.logger.warn("a batch of generation records was refused; writing them one by one", { count: batch.length, error: describeError(batchError) });
    for (const row of batch) {
      try {
        await this.#writer.write([row], this.#linesOf([row]));
      } catch (error) {
        if (isTransientRefusal(error) || !(await this.#reachable())) return false;
        this.logger.error("a generation record cannot be written; dropped", { id: row.id, error: describeError(error) });
      }
    }
    return true;
  }

  /** The rows' journal lines (a replayed record's made again), for a writer that takes them; none without a journal. */
  #linesOf(rows: GenerationRow[]): string[] | undefined {
    return this.#journal ? rows.map((row) => this.#lines.get(row.id) ?? JSON.stringify(row)) : undefined;
  }

  async #reachable(): Promise<boolean> {
    try {
      await this.backend.ping();
      return true;
    } catch {
      return false;
    }
  }

  #retryLater(count: number, error: unknown): void {
    this.#failing = true;
    const wait = Math.min(MAX_RETRY_MS, Math.max(this.#delay, 1000) * 2 ** this.#retries++);
    this.logger.error("writing generation records failed; will retry", { count, retry_in_ms: wait, error: describeError(error) });
    if (!this.#closed) this.#timer = setTimeout(() => void this.flush(), wait);
  }

  /**
   * Writes what is queued and stops: call before the database closes. What the database refuses even
   * now stays in the journal for the next start.
   */
  async close(): Promise<void> {
    await this.flush();
    if (this.#queued.size > 0 && !this.#failing) await this.flush();
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    clearImmediate(this.#immediate);
    this.#immediate = undefined;
    if (this.pendingCount > 0) this.logger.warn("generation records not written at shutdown; the journal keeps them for the next start", { count: this.pendingCount });
    this.#journal?.close();
    await this.#writer.close();
  }

  /** Records dropped because too many were held while the database could not take them. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Records not yet committed (queued, in flight, or waiting for a retry). */
  get pendingCount(): number {
    return this.#queued.size + this.#batch.size;
  }

  /** The database refused the last batch (unreachable): records are kept and retried. */
  get failing(): boolean {
    return this.#failing;
  }

  /** Records not yet known to be committed. */
  #pending(): GenerationRow[] {
    return [...this.#queued.values(), ...this.#batch.values()];
  }

  async get(workspaceId: string, id: string): Promise<GenerationRow | undefined> {
    const pending = this.#queued.get(id) ?? this.#batch.get(id);
    if (pending) return pending.workspaceId === workspaceId ? pending : undefined;
    const { generations } = this.backend.tables;
    const rows = await this.backend.db
      .select()
      .from(generations)
      .where(and(eq(generations.id, id), eq(generations.workspaceId, workspaceId)))
      .limit(1);
    return rows[0];
  }

  /**
   * What keys spent (USD): in total, today, this week (from Monday) and this month, UTC, queued records
   * included, for any number of keys: the committed records from the daily rollups, the others from
   * memory; a record that commits while the query runs is counted once (see key-usage.ts).
   */
  async usageByKey(keyHashes: string[], now = new Date()): Promise<Map<string, KeyUsage>> {
    const result = new Map<string, KeyUsage>(keyHashes.map((hash) => [hash, { ...NO_USAGE }]));
    if (keyHashes.length === 0) return result;
    const day = periodStart("daily", now).toISOString();
    const week = periodStart("weekly", now).toISOString();
    const month = periodStart("monthly", now).toISOString();
    const pending = this.#pending().filter((row) => result.has(row.keyHash));
    const committed = await addCommittedUsage(this.backend, result, { day, week, month }, pending);
    for (const row of pending) {
      if (committed.has(row.id)) continue;
      const usage = result.get(row.keyHash)!;
      const byok = row.isByok ? row.totalCost : 0;
      usage.total += row.totalCost;
      usage.byokTotal += byok;
      if (row.createdAt >= day) (usage.daily += row.totalCost), (usage.byokDaily += byok);
      if (row.createdAt >= week) (usage.weekly += row.totalCost), (usage.byokWeekly += byok);
      if (row.createdAt >= month) (usage.monthly += row.totalCost), (usage.byokMonthly += byok);
    }
    return result;
  }

  /**
   * Successful requests per model in a workspace since `since`, the records still queued included: the
   * committed ones from the hourly rollups but for the first hour's rest (see key-usage.ts).
   */
  async popularity(workspaceId: string, since: Date): Promise<Map<string, number>> {
    const iso = since.toISOString();
    const pending = this.#pending().filter((row) => row.workspaceId === workspaceId && row.createdAt >= iso && row.status < 400);
    const { counts, committed } = await committedRequestsByModel(this.backend, workspaceId, iso, pending);
    for (const row of pending) if (!committed.has(row.id)) counts.set(row.model, (counts.get(row.model) ?? 0) + 1);
    return counts;
  }

  /**
   * Requests and tokens (prompt + completion) per classified task and model in a workspace, over
   * [since, until), successful generations only, queued records included. Unclassified ones are left out.
   */
  async taskUsage(workspaceId: string, since: Date, until: Date): Promise<TaskUsage[]> {
    const { generations } = this.backend.tables;
    const [from, to] = [since.toISOString(), until.toISOString()];
    const pending = this.#pending().filter((row) => row.workspaceId === workspaceId && row.createdAt >= from && row.createdAt < to && row.status < 400 && row.task !== null);
    const rows = await this.backend.db
      .select({
        task: generations.task,
        model: generations.model,
        requests: sql<number>`count(*)`,
        tokens: sql<number>`coalesce(sum(coalesce(${generations.tokensPrompt}, 0) + coalesce(${generations.tokensCompletion}, 0)), 0)`,
      })
      .from(generations)
      .where(and(
        eq(generations.workspaceId, workspaceId), gte(generations.createdAt, from), lt(generations.createdAt, to),
        lt(generations.status, 400), isNotNull(generations.task), notPending(generations.id, pending),
      ))
      .groupBy(generations.task, generations.model);
    const usage = new Map<string, TaskUsage>(rows.map((row) => [`${row.task}\u0000${row.model}`, { task: row.task!, model: row.model, requests: Number(row.requests), tokens: Number(row.tokens) }]));
    for (const row of pending) {
      const key = `${row.task}\u0000${row.model}`;
      const entry = usage.get(key) ?? { task: row.task!, model: row.model, requests: 0, tokens: 0 };
      entry.requests += 1;
      entry.tokens += (row.tokensPrompt ?? 0) + (row.tokensCompletion ?? 0);
      usage.set(key, entry);
    }
    return [...usage.values()];
  }

  /**
   * USD a ledger's owner (a key, or a whole workspace) spent since a moment, queued records included;
   * the cost of generations served with a BYOK credential only when the ledger counts it.
   */
  async spentSince(owner: LedgerOwner, since: Date): Promise<number> {
    const iso = since.toISOString();
    const byKey = "keyHash" in owner;
    const pending = this.#pending().filter((row) => (byKey ? row.keyHash === owner.keyHash : row.workspaceId === owner.workspaceId) && row.createdAt >= iso);
    const fromMemory = (rows: GenerationRow[]) => rows.reduce((total, row) => total + (owner.includeByok || !row.isByok ? row.totalCost : 0), 0);
    // A period starts at a UTC midnight: the daily rollups hold it whole, whatever the traffic (key-usage.ts).
    if (iso.endsWith("T00:00:00.000Z")) {
      const { spent, committed } = await committedSpendSince(this.backend, owner, iso.slice(0, 10), pending);
      return spent + fromMemory(pending.filter((row) => !committed.has(row.id)));
    }
    const { generations } = this.backend.tables;
    const [stored] = await this.backend.db
      .select({ total: sum(generations.totalCost) })
      .from(generations)
      .where(and(
        byKey ? eq(generations.keyHash, owner.keyHash) : eq(generations.workspaceId, owner.workspaceId),
        owner.includeByok ? undefined : eq(generations.isByok, false),
        gte(generations.createdAt, iso),
        notPending(generations.id, pending),
      ));
    return Number(stored?.total ?? 0) + fromMemory(pending);
  }
}

/** Leaves out the records counted from memory. */
function notPending(id: Parameters<typeof notInArray>[0], pending: GenerationRow[]) {
  return pending.length === 0 ? undefined : notInArray(id, pending.map((row) => row.id));
}
