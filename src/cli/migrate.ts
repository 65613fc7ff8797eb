import { existsSync } from "node:fs";
import { join } from "node:path";
import { DATABASE_FILE, migrationSources, openDatabase } from "../db/client.ts";
import { openPostgresBackend } from "../db/postgres.ts";
import { type MigrationStatus, migrationStatus, openExistingDatabase } from "../db/migration-status.ts";
import { LOCATION_HELP, LOCATION_OPTIONS, noPositionals, parseCommand } from "./args.ts";
import { dataDirOf, loadCliConfig } from "./context.ts";
import { CliError, printError, printLine, UsageError } from "./output.ts";
import { openSqliteBackend } from "../db/backend.ts";
import { copyDeployment } from "../db/copy.ts";

export const MIGRATE_HELP = `Usage: roundhouse migrate [--config PATH] [--data-dir DIR] [--database-url URL]
       roundhouse migrate --to postgres://USER:PASS@HOST:PORT/DB [--config PATH] [--data-dir DIR]

Creates the database if needed and applies the migrations it lacks, printing each one applied, or
"up to date". ('roundhouse serve' applies them at start too; this does it ahead of time.) With a
PostgreSQL database (team mode) it applies what is missing, once, whichever replica asks first.

With --to, copies this single-host deployment (the SQLite file under the data directory: keys,
workspaces, presets with every version, interns, the vault, connections and the generation records)
into the PostgreSQL database, migrating it first. Rows the target already has are left alone, so
running it again copies only what is missing. Stop the gateway first (or run it again after) so that
nothing written meanwhile is left behind; the replicas then need this deployment's master key.

Options:
${LOCATION_HELP}
  --to URL                  copy this deployment into the PostgreSQL database at URL
  -h, --help                show this help

Exit codes: 0 migrated or up to date, 1 runtime failure, 2 bad usage or configuration.`;

export async function migrateCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("migrate", argv, { ...LOCATION_OPTIONS, to: { type: "string" } });
  if (values.help) return printLine(MIGRATE_HELP);
  noPositionals("migrate", positionals);
  const config = await loadCliConfig(values);
  if (values.to !== undefined) return copyTo(values.to, dataDirOf(config));
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

/** `migrate --to`: the SQLite deployment under `dataDir` copied into PostgreSQL, table by table. */
async function copyTo(url: string, dataDir: string): Promise<void> {
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new UsageError("--to must be a postgres:// or postgresql:// URL");
  const file = join(dataDir, DATABASE_FILE);
  if (!existsSync(file)) throw new CliError(`no database at ${file}: nothing to copy (check --data-dir or data_dir)`);
  const source = openSqliteBackend({ dataDir });
  try {
    const target = await openPostgresBackend({ url, max: 2 }).catch((error: unknown) => {
      throw new CliError(`cannot open the PostgreSQL database: ${redactUrl(error instanceof Error ? error.message : String(error), url)}`);
    });
    try {
      const copied = await copyDeployment(source, target, (table) =>
        printLine(`${table.table}: ${table.read} read, ${table.inserted} copied${table.read > table.inserted ? `, ${table.read - table.inserted} already there` : ""}`),
      );
      const total = copied.reduce((sum, table) => sum + table.inserted, 0);
      printLine(`Copied ${total} rows from ${file} into PostgreSQL. Start the replicas with this deployment's master key.`);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/** An error message without the URL's password. */
function redactUrl(message: string, url: string): string {
  const password = /^[a-z]+:\/\/[^:/@]+:([^@]+)@/i.exec(url)?.[1];
  return password ? message.replaceAll(password, "***") : message;
}
