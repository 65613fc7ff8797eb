import { accessSync, constants, existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { DATABASE_FILE, migrationSources } from "../db/client.ts";
import { Catalog } from "../config/catalog.ts";
import { parseMasterKey } from "../security/master-key.ts";
import { type SealedCheck, SecretBox } from "../core/secret-box.ts";
import { LOCATION_HELP, LOCATION_OPTIONS, noPositionals, parseCommand, parseInteger } from "./args.ts";
import { dataDirOf, loadCliConfig, masterKeyFileOf } from "./context.ts";
import { fileSealedSample, migrationStatus, openExistingDatabase, type SqliteClient } from "../db/migration-status.ts";
import { EXIT, printLine } from "./output.ts";
import { probe } from "./reachability.ts";

export const DOCTOR_HELP = `Usage: roundhouse doctor [--config PATH] [--data-dir DIR] [--timeout-ms N]

Checks what the gateway needs and prints one line per check, "ok", "warn" or "FAIL", then the check
and what was found in plain words:
  config       the config file (or embedded defaults) loads; otherwise the error names the key
  data dir     the data directory is writable (or can be created)
  database     the database opens and PRAGMA integrity_check is ok
  migrations   every migration of this build is applied
  master key   ROUNDHOUSE_MASTER_KEY, or the key file with mode 0600, is valid and decrypts a stored secret
  upstream X   each configured provider's base URL accepts a TCP connection (the simulator always does)
It changes nothing: it creates no database, key file or directory.

Options:
${LOCATION_HELP}
  --timeout-ms N            how long each upstream may take to accept a connection (default 3000)
  -h, --help                show this help

Exit codes: 0 every check ok or warn, 1 any check FAILed, 2 bad usage.`;

type Status = "ok" | "warn" | "FAIL";

interface Finding {
  status: Status;
  check: string;
  message: string;
}

const finding = (status: Status, check: string, message: string): Finding => ({ status, check, message });

function print(item: Finding): void {
  const [first, ...rest] = item.message.split("\n");
  printLine([`${item.status.padEnd(4)}  ${item.check}: ${first}`, ...rest.map((line) => `      ${line.trim()}`)].join("\n"));
}

export async function doctor(argv: string[]): Promise<number | void> {
  const { values, positionals } = parseCommand("doctor", argv, { ...LOCATION_OPTIONS, "timeout-ms": { type: "string" } });
  if (values.help) return printLine(DOCTOR_HELP);
  noPositionals("doctor", positionals);
  const timeoutMs = values["timeout-ms"] === undefined ? 3000 : parseInteger("doctor", "timeout-ms", values["timeout-ms"], 1, 600_000);
  const findings: Finding[] = [];
  const report = (item: Finding) => {
    findings.push(item);
    print(item);
  };

  let config: Config;
  let catalog: Catalog;
  try {
    config = await loadCliConfig(values);
    catalog = new Catalog(config);
    const source = values.config ?? process.env.ROUNDHOUSE_CONFIG ?? "embedded defaults";
    report(finding("ok", "config", `${source} loads: ${catalog.providers.size} provider(s), ${catalog.models.size} model(s)`));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    report(finding("FAIL", "config", error.message));
    return EXIT.failure;
  }

  const dataDir = dataDirOf(config);
  report(checkDataDir(dataDir));
  if (config.storage.url) {
    // It changes nothing: opening PostgreSQL through the gateway's backend would migrate it.
    report(finding("warn", "database", "storage.url names a PostgreSQL database; the database and migrations checks are for the SQLite file only"));
    report(checkMasterKey(config, null));
  } else {
    const database = openExisting(join(dataDir, DATABASE_FILE), config.storage.busy_timeout_ms);
    report(database.finding);
    try {
      if (database.client) report(checkMigrations(database.client));
      report(checkMasterKey(config, database.client ? await fileSealedSample(database.client) : null));
    } finally {
      database.client?.close();
    }
  }
  const providers = [...catalog.providers.values()];
  const probes = await Promise.all(
    providers.map((provider) => (provider.type === "simulated" ? null : probe(provider.baseUrl, timeoutMs))),
  );
  providers.forEach((provider, index) => {
    const check = `upstream ${provider.slug}`;
    const result = probes[index];
    if (!result) return report(finding("ok", check, "simulated; needs no network"));
    if (result.ok) return report(finding("ok", check, `${provider.baseUrl} accepted a connection in ${result.ms} ms`));
    report(finding("FAIL", check, `cannot reach ${provider.baseUrl} (${result.address}): ${result.reason}`));
  });
  return findings.some((item) => item.status === "FAIL") ? EXIT.failure : EXIT.ok;
}

function checkDataDir(dir: string): Finding {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) return finding("FAIL", "data dir", `${dir} exists but is not a directory`);
    const probeFile = join(dir, `.roundhouse-doctor-${process.pid}`);
    try {
      writeFileSync(probeFile, "");
      rmSync(probeFile);
      return finding("ok", "data dir", `${dir} is writable`);
    } catch (error) {
      return finding("FAIL", "data dir", `${dir} is not writable (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  }
  let ancestor = dirname(dir);
  while (!existsSync(ancestor) && dirname(ancestor) !== ancestor) ancestor = dirname(ancestor);
  try {
    accessSync(ancestor, constants.W_OK);
    return finding("ok", "data dir", `${dir} does not exist yet; the first start creates it`);
  } catch {
    return finding("FAIL", "data dir", `${dir} does not exist and cannot be created: ${ancestor} is not writable`);
  }
}

function openExisting(file: string, busyTimeoutMs: number): { client: SqliteClient | null; finding: Finding } {
  if (!existsSync(file)) {
    return { client: null, finding: finding("warn", "database", `no database at ${file} yet; 'roundhouse migrate' or the first start creates it`) };
  }
  let client: SqliteClient | null = null;
  try {
    client = openExistingDatabase(file);
    client.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    const rows = client.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all();
    if (rows.length === 1 && rows[0]!.integrity_check === "ok") {
      return { client, finding: finding("ok", "database", `${file} opens and passes the integrity check`) };
    }
    const problems = rows.slice(0, 3).map((row) => row.integrity_check);
    client.close();
    return { client: null, finding: finding("FAIL", "database", `${file} is damaged: ${problems.join("; ")}`) };
  } catch (error) {
    client?.close();
    return { client: null, finding: finding("FAIL", "database", `${file} cannot be read: ${error instanceof Error ? error.message : String(error)}`) };
  }
}

function checkMigrations(client: SqliteClient): Finding {
  const sources = migrationSources();
  const status = migrationStatus(client, sources);
  if (status.newer) return finding("warn", "migrations", "the database was migrated by a newer Roundhouse than this one");
  if (status.pending.length === 0) return finding("ok", "migrations", `all ${sources.length} migrations are applied`);
  const tags = status.pending.map((source) => source.tag).join(", ");
  return finding("warn", "migrations", `${status.pending.length} pending (${tags}); 'roundhouse migrate' or the next start applies them`);
}

function checkMasterKey(config: Config, sample: SealedCheck | null): Finding {
  const envValue = process.env.ROUNDHOUSE_MASTER_KEY;
  let key: Buffer;
  let source: string;
  try {
    if (envValue !== undefined && envValue !== "") {
      source = "ROUNDHOUSE_MASTER_KEY";
      key = parseMasterKey(envValue, source);
    } else {
      const file = masterKeyFileOf(config);
      source = `key file ${file}`;
      if (!existsSync(file)) {
        if (sample) return finding("FAIL", "master key", `ROUNDHOUSE_MASTER_KEY is not set and ${file} does not exist, so the stored secrets cannot be decrypted`);
        return finding("warn", "master key", `ROUNDHOUSE_MASTER_KEY is not set and ${file} does not exist yet; the first start creates it (mode 0600)`);
      }
      const mode = statSync(file).mode & 0o777;
      if ((mode & 0o077) !== 0) {
        return finding("FAIL", "master key", `${file} has mode 0${mode.toString(8)}, readable by others, and the gateway refuses it; run chmod 600 ${file}`);
      }
      source += ` (mode 0${mode.toString(8)})`;
      key = parseMasterKey(readFileSync(file, "utf8"), file);
    }
  } catch (error) {
    return finding("FAIL", "master key", error instanceof Error ? error.message : String(error));
  }
  if (!sample) return finding("ok", "master key", `${source} is valid; no stored secret to test it against`);
  try {
    sample(new SecretBox(key));
    return finding("ok", "master key", `${source} decrypts the stored secrets`);
  } catch {
    return finding("FAIL", "master key", `${source} does not decrypt the stored secrets: it is not the key they were encrypted with`);
  }
}
