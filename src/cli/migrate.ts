import { existsSync } from "node:fs";
import { join } from "node:path";
import { DATABASE_FILE, migrationSources, openDatabase } from "../db/client.ts";
import { openPostgresBackend } from "../db/postgres.ts";
import { type MigrationStatus, migrationStatus, openExistingDatabase } from "../db/migration-status.ts";
import { LOCATION_HELP, LOCATION_OPTIONS, noPositionals, parseCommand } from "./args.ts";
import { dataDirOf, loadCliConfig } from "./context.ts";
import { printError, printLine } from "./output.ts";

export const MIGRATE_HELP = `Usage: roundhouse migrate [--config PATH] [--data-dir DIR] [--database-url URL]

Creates the database if needed and applies the migrations it lacks, printing each one applied, or
"up to date". ('roundhouse serve' applies them at start too; this does it ahead of time.) With a
PostgreSQL database (team mode) it applies what is missing, once, whichever replica asks first.

Options:
${LOCATION_HELP}
  -h, --help        show this help

Exit codes: 0 migrated or up to date, 1 runtime failure, 2 bad usage or configuration.`;

export async function migrateCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("migrate", argv, { ...LOCATION_OPTIONS });
  if (values.help) return printLine(MIGRATE_HELP);
  noPositionals("migrate", positionals);
  const config = await loadCliConfig(values);
  if (config.storage.url) {
    const backend = await openPostgresBackend({ url: config.storage.url });
    await backend.close();
    return printLine("PostgreSQL database migrated (up to date); the per-migration status is shown for the SQLite file only.");
  }
  const dataDir = dataDirOf(config);
  const file = join(dataDir, DATABASE_FILE);
  const sources = migrationSources();
  let before: MigrationStatus = { applied: 0, pending: sources, newer: false };
  if (existsSync(file)) {
    const client = openExistingDatabase(file);
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
