import type { Database } from "bun:sqlite";
import { AsyncLocalStorage } from "node:async_hooks";
import type { SQL } from "bun";
import type { SQL as Query } from "drizzle-orm";
import { ChangeWatch } from "./change-watch.ts";
import { type Db, openDatabase } from "./client.ts";
import type { MigrationSource } from "./migrations.ts";
import * as lite from "./schema.ts";
import * as liteGroups from "./schema-groups.ts";
import * as litePeople from "./schema-people.ts";

/** Every table of the SQLite schema: the core, the operation groups and the people tables. */
const LITE = { ...lite, ...liteGroups, ...litePeople };

/**
 * The storage backend: the embedded SQLite file (one host) or PostgreSQL (team mode: N replicas on one
 * database). Repositories are written once against it: every query is awaited (never `.get()`,
 * `.all()` or `.run()`, which only SQLite has), tables come from `tables` (the dialect's own, with
 * the same TypeScript row types; see schema-pg.ts), and multi-statement writes go through
 * `transaction`.
 */
export type Dialect = "sqlite" | "postgres";

/** The typed query surface both dialects share; at run time a PostgreSQL database in team mode. */
export type Conn = Db;

/** A PostgreSQL transaction's raw statement (Conn, the shared type, is SQLite's). */
export type PgExecutor = { execute(query: Query): Promise<unknown> };

/** The tables of the schema, as the repositories use them (the PostgreSQL tables in team mode). */
export type Tables = Pick<
  typeof LITE,
  | "workspaces"
  | "interns"
  | "apiKeys"
  | "connections"
  | "internConnectionSettings"
  | "internFeatures"
  | "vaultSecrets"
  | "presets"
  | "presetVersions"
  | "generations"
  | "videoJobs"
  | "guardrails"
  | "guardrailKeyAssignments"
  | "observabilityDestinations"
  | "byokKeys"
  | "files"
  | "fileChunks"
  | "generationContents"
  | "generationFeedback"
  | "generationRollups"
  | "members"
  | "workspaceMembers"
  | "memberSessions"
  | "workspaceBudgets"
  | "guardrailMemberAssignments"
  | "scimTokens"
  | "scimGroups"
  | "scimGroupMembers"
  | "scimGroupMappings"
  | "oauthCodes"
  | "auditLog"
>;

/** A query drizzle can prepare (a select built on `db`). */
export interface Preparable {
  prepare(): unknown;
}

/** A change another replica or process made: the table written, or `*` when anything may have changed. */
export type ChangeListener = (table: string) => void;

/** Tells caches that something they hold may be stale. */
export interface ChangeFeed {
  onChange(listener: ChangeListener): void;
  /** Called by a cache before it serves from memory; cheap (SQLite asks at most once a second, PostgreSQL pushes). */
  check(): void;
  close(): void | Promise<void>;
}

export interface Backend {
  readonly dialect: Dialect;
  readonly db: Conn;
  readonly tables: Tables;
  readonly changes: ChangeFeed;
  /**
   * Runs `work` in one transaction: all or nothing. SQLite: BEGIN IMMEDIATE (one writer at a time,
   * serialized in this process too). PostgreSQL: READ COMMITTED; a write that must see the latest
   * committed state locks its row first (an UPDATE of it) before it reads.
   */
  transaction<T>(work: (tx: Conn) => Promise<T>): Promise<T>;
  /**
   * Runs one write outside a transaction. Every write goes through here or `transaction`: on SQLite
   * one connection serves every request, so a write issued while another request's transaction is
   * open would land inside it (and be lost with its rollback); here it waits for that transaction to
   * end. Within a transaction's own work it runs at once. PostgreSQL runs it at once.
   */
  write<T>(work: (db: Conn) => Promise<T>): Promise<T>;
  /**
   * Runs `work` while holding a lock named `name` across every process on this database (PostgreSQL:
   * an advisory lock; SQLite: this process only, where one file has one gateway). For start-up work
   * that concurrent replicas must do once (bootstrap keys).
   */
  exclusive<T>(name: string, work: () => Promise<T>): Promise<T>;
  /**
   * Prepares a query built with `sql.placeholder`s once, for a read on the hot path that memory cannot
   * always answer (a key not cached, as an unknown key never is): building a query costs about ten
   * times running it. `name` names the statement on PostgreSQL; SQLite's is finalized on `close`.
   */
  prepare<Q extends Preparable>(name: string, query: Q): ReturnType<Q["prepare"]>;
  /** Fails when the database cannot be reached (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** The SQLite connection (the generation writer's fast path, the CLI's file checks); only for sqlite. */
  readonly sqlite?: Database;
  /** The PostgreSQL client (LISTEN/NOTIFY, the team functions); only for postgres. */
  readonly pg?: SQL;
}

/** A simple FIFO async lock. */
export class Mutex {
  #tail: Promise<void> = Promise.resolve();

  async run<T>(work: () => Promise<T>): Promise<T> {
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      return await work();
    } finally {
      release();
    }
  }
}

export interface SqliteBackendOptions {
  dataDir: string;
  busyTimeoutMs?: number;
  migrations?: MigrationSource[];
}

/** The embedded SQLite backend: one file under data_dir, migrated on open. */
export function openSqliteBackend(options: SqliteBackendOptions): Backend {
  return sqliteBackend(openDatabase(options));
}

/** Wraps an open SQLite database (already migrated). */
export function sqliteBackend(db: Db): Backend {
  const client = db.$client;
  const changes = new ChangeWatch(client);
  const writes = new Mutex();
  const locks = new Map<string, Mutex>();
  const prepared: object[] = [];
  // Marks the work of this process's open transaction (its async continuations), so that its own
  // writes run inside it while anyone else's wait.
  const inside = new AsyncLocalStorage<true>();
  return {
    dialect: "sqlite",
    db,
    tables: LITE,
    sqlite: client,
    changes: { onChange: (listener) => changes.onChange(() => listener("*")), check: () => changes.check(), close() {} },
    // Queries on bun:sqlite run synchronously when awaited, so the work runs on this one connection
    // between BEGIN and COMMIT; the mutex keeps two of this process's transactions, and any write from
    // elsewhere (`write`), from interleaving with it. A nested transaction joins the open one.
    transaction: (work) =>
      inside.getStore()
        ? work(db)
        : writes.run(() =>
            inside.run(true, async () => {
              client.exec("BEGIN IMMEDIATE");
              try {
                const result = await work(db);
                client.exec("COMMIT");
                return result;
              } catch (error) {
                if (client.inTransaction) client.exec("ROLLBACK");
                throw error;
              }
            }),
          ),
    write: (work) => (inside.getStore() ? work(db) : writes.run(() => work(db))),
    exclusive: (name, work) => {
      let lock = locks.get(name);
      if (!lock) locks.set(name, (lock = new Mutex()));
      return lock.run(work);
    },
    async ping() {
      client.query("SELECT 1").get();
    },
    prepare: (_name, query) => {
      const statement = query.prepare();
      prepared.push(statement as object);
      return statement as never;
    },
    async close() {
      // A statement left unfinalized would keep the file open (a zombie connection SQLite closes only
      // once it is finalized), its lock blocking another process. drizzle keeps it as `stmt`.
      for (const statement of prepared.splice(0)) (Reflect.get(statement, "stmt") as { finalize(): void } | undefined)?.finalize();
      client.close();
    },
  };
}
