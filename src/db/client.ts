import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { type BunSQLiteDatabase, drizzle } from "drizzle-orm/bun-sqlite";
import { type MigrationSource, readMigrationSources, toMigrationMeta } from "./migrations.ts";
import * as schema from "./schema.ts";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

export const DATABASE_FILE = "roundhouse.db";

export interface OpenDatabaseOptions {
  /** Directory for the database file; `:memory:` opens a private in-memory database. */
  dataDir: string;
  busyTimeoutMs?: number;
  migrations?: MigrationSource[];
}

/** Opens (creating if needed) the database, sets WAL, busy timeout and foreign keys, and migrates. */
export function openDatabase(options: OpenDatabaseOptions): Db {
  let client: Database;
  if (options.dataDir === ":memory:") {
    client = new Database(":memory:");
  } else {
    createPrivateDirectory(options.dataDir);
    const file = join(options.dataDir, DATABASE_FILE);
    // SQLite would create the file 0644 less the umask; created (or found) here, it is owner-only, and
    // SQLite gives the -wal and -shm files it creates the database file's mode.
    createPrivateFile(file);
    for (const suffix of ["-wal", "-shm"]) if (existsSync(file + suffix)) chmodSync(file + suffix, PRIVATE_FILE_MODE);
    client = new Database(file, { create: true, strict: true });
    // The busy timeout first: setting the journal mode needs a lock another connection may hold for a
    // moment (the last one to close checkpoints the WAL under an exclusive lock, e.g. a gateway just
    // stopped); without a busy timeout that is an immediate "database is locked".
    client.exec(`PRAGMA busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    client.exec("PRAGMA journal_mode = WAL");
    client.exec("PRAGMA synchronous = NORMAL");
  }
  client.exec("PRAGMA foreign_keys = ON");
  const db = drizzle({ client, schema }) as Db;
  migrate(db, options.migrations ?? migrationSources());
  return db;
}

export const PRIVATE_FILE_MODE = 0o600;

/** Creates a directory (and missing parents) readable by its owner only, whatever the umask. */
function createPrivateDirectory(path: string): void {
  const created = mkdirSync(path, { recursive: true, mode: 0o700 });
  if (created !== undefined) chmodSync(path, 0o700);
}

/** Creates the file if missing, and makes it (new or old) readable and writable by its owner only, whatever the umask. */
function createPrivateFile(path: string): void {
  closeSync(openSync(path, "a", PRIVATE_FILE_MODE));
  chmodSync(path, PRIVATE_FILE_MODE);
}

/** The migrations this build knows: inlined by build.ts into a compiled binary (which cannot read the
 * source tree), else read from src/db/migrations. */
export function migrationSources(): MigrationSource[] {
  return (globalThis as { __roundhouseMigrations?: MigrationSource[] }).__roundhouseMigrations ?? readMigrationSources();
}

export function migrate(db: Db, sources: MigrationSource[]): void {
  // drizzle's own migrator reads a folder; the dialect entry point takes the list directly, so the
  // compiled binary can hand it migrations inlined at build time.
  const internal = db as unknown as {
    dialect: { migrate(migrations: unknown, session: unknown, config: object): void };
    session: unknown;
  };
  internal.dialect.migrate(toMigrationMeta(sources), internal.session, {});
}
