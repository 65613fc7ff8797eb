import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DATABASE_FILE, migrationSources, openDatabase } from "../db/client.ts";
import type { MigrationSource } from "../db/migrations.ts";
import { LOCATION_HELP, LOCATION_OPTIONS, noPositionals, parseCommand } from "./args.ts";
import { dataDirOf, loadCliConfig } from "./context.ts";
import { printError, printLine } from "./output.ts";

export const MIGRATE_HELP = `Usage: roundhouse migrate [--config PATH] [--data-dir DIR]

Creates the database if needed and applies the migrations it lacks, printing each one applied, or
"up to date". ('roundhouse serve' applies them at start too; this does it ahead of time.)

Options:
${LOCATION_HELP}
  -h, --help        show this help

Exit codes: 0 migrated or up to date, 1 runtime failure, 2 bad usage or configuration.`;

export interface MigrationStatus {
  /** Migrations recorded in the database. */
  applied: number;
  /** This build's migrations the database lacks, oldest first. */
  pending: MigrationSource[];
  /** The database was migrated by a newer build than this one. */
  newer: boolean;
}

/** What drizzle's migrator would apply: every migration newer than the last one recorded. */
export function migrationStatus(client: Database, sources: MigrationSource[]): MigrationStatus {
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

export async function migrateCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("migrate", argv, { ...LOCATION_OPTIONS });
  if (values.help) return printLine(MIGRATE_HELP);
  noPositionals("migrate", positionals);
  const config = await loadCliConfig(values);
  const dataDir = dataDirOf(config);
  const file = join(dataDir, DATABASE_FILE);
  const sources = migrationSources();
  let before: MigrationStatus = { applied: 0, pending: sources, newer: false };
  if (existsSync(file)) {
    const client = new Database(file, { readwrite: true, create: false });
    try {
      before = migrationStatus(client, sources);
    } finally {
      client.close();
    }
  }
  const db = openDatabase({ dataDir, busyTimeoutMs: config.storage.busy_timeout_ms, migrations: sources });
  const after = migrationStatus(db.$client, sources);
  db.$client.close();
  if (before.newer) printError(`note: ${file} was migrated by a newer Roundhouse than this one; upgrade Roundhouse`);
  if (before.pending.length === 0) return printLine(`Database ${file} is up to date (${after.applied} migrations applied).`);
  for (const source of before.pending) printLine(`applied ${source.tag}`);
  printLine(`Database ${file} migrated: ${before.pending.length} applied, ${after.applied} in total.`);
}
