import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { MigrationMeta } from "drizzle-orm/migrator";

/** One migration as drizzle-kit wrote it: the journal entry plus its SQL text. */
export interface MigrationSource {
  tag: string;
  when: number;
  breakpoints: boolean;
  sql: string;
}

interface Journal {
  entries: Array<{ tag: string; when: number; breakpoints: boolean }>;
}

export const MIGRATIONS_DIR = join(import.meta.dir, "migrations");
/** Team mode's PostgreSQL migrations (drizzle.pg.config.ts). */
export const PG_MIGRATIONS_DIR = join(import.meta.dir, "migrations-pg");

/** Reads the committed drizzle-kit output (development and tests). build.ts inlines the same list. */
export function readMigrationSources(directory = MIGRATIONS_DIR): MigrationSource[] {
  const journal = JSON.parse(readFileSync(join(directory, "meta", "_journal.json"), "utf8")) as Journal;
  return journal.entries.map((entry) => ({
    ...entry,
    sql: readFileSync(join(directory, `${entry.tag}.sql`), "utf8"),
  }));
}

export function toMigrationMeta(sources: MigrationSource[]): MigrationMeta[] {
  return sources.map((source) => ({
    sql: source.sql.split("--> statement-breakpoint"),
    bps: source.breakpoints,
    folderMillis: source.when,
    hash: createHash("sha256").update(source.sql).digest("hex"),
  }));
}
