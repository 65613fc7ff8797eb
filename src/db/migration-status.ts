/**
 * What the CLI's `migrate` and `doctor` read of an existing database file, without opening it for the
 * gateway: whether it opens, its integrity, and which migrations it lacks.
 */
import { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { SealedCheck } from "../core/secret-box.ts";
import { sqliteBackend } from "./backend.ts";
import type { Db } from "./client.ts";
import type { MigrationSource } from "./migrations.ts";
import * as schema from "./schema.ts";
import { sealedSample } from "./sealed-sample.ts";

/** An open SQLite database file (the CLI's checks hold it only briefly). */
export type SqliteClient = Database;

/** Opens an existing database file read-write, never creating one. */
export function openExistingDatabase(file: string): SqliteClient {
  return new Database(file, { readwrite: true, create: false });
}

export interface MigrationStatus {
  /** Migrations recorded in the database. */
  applied: number;
  /** This build's migrations the database lacks, oldest first. */
  pending: MigrationSource[];
  /** The database was migrated by a newer build than this one. */
  newer: boolean;
}

/** What drizzle's migrator would apply: every migration newer than the last one recorded. */
export function migrationStatus(client: SqliteClient, sources: MigrationSource[]): MigrationStatus {
  const table = client.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!table) return { applied: 0, pending: sources, newer: false };
  const row = client
    .query<{ applied: number; last: number | null }, []>(
      'SELECT count(*) AS applied, max(CAST(created_at AS INTEGER)) AS last FROM "__drizzle_migrations"',
    )
    .get();
  const last = row?.last ?? Number.NEGATIVE_INFINITY;
  const newest = Math.max(Number.NEGATIVE_INFINITY, ...sources.map((source) => source.when));
  return { applied: row?.applied ?? 0, pending: sources.filter((source) => source.when > last), newer: last > newest };
}

/** A sealed value the file holds to test a master key against (null: none, or not migrated yet); the file stays unchanged. */
export async function fileSealedSample(client: SqliteClient): Promise<SealedCheck | null> {
  try {
    return await sealedSample(sqliteBackend(drizzle({ client, schema }) as Db));
  } catch {
    // Tables missing before the migrations run: nothing is stored yet.
    return null;
  }
}
