import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
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
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    client = new Database(join(options.dataDir, DATABASE_FILE), { create: true, strict: true });
    client.exec("PRAGMA journal_mode = WAL");
    client.exec("PRAGMA synchronous = NORMAL");
  }
  client.exec(`PRAGMA busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  client.exec("PRAGMA foreign_keys = ON");
  const db = drizzle({ client, schema }) as Db;
  migrate(db, options.migrations ?? migrationSources());
  return db;
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
