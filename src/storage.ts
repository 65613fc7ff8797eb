import { join, resolve } from "node:path";
import type { Config } from "./config/schema.ts";
import { type Backend, openSqliteBackend } from "./db/backend.ts";
import type { MigrationSource } from "./db/migrations.ts";
import { sealedSample } from "./db/sealed-sample.ts";
import { existingMasterKey, loadMasterKey, type MasterKeyResult } from "./security/master-key.ts";

export interface OpenStorageOptions {
  env: Record<string, string | undefined>;
  /** The SQLite migrations (tests, a compiled binary's inlined list); default: this build's. */
  migrations?: MigrationSource[] | undefined;
}

/**
 * Opens the storage a gateway or a CLI command works on: PostgreSQL when `storage.url` (or
 * ROUNDHOUSE_DATABASE_URL) is set, else the SQLite file under data_dir; and the master key, checked
 * against a sealed value the database holds. A malformed or exposed key fails before the database is
 * opened (so before a SQLite file is created).
 */
export async function openStorage(config: Config, options: OpenStorageOptions): Promise<{ backend: Backend; masterKey: MasterKeyResult }> {
  const dataDir = resolve(config.data_dir);
  const keyOptions = { envValue: options.env.ROUNDHOUSE_MASTER_KEY, file: resolve(config.master_key_file ?? join(dataDir, "master.key")) };
  existingMasterKey(keyOptions);
  const backend = config.storage.url
    ? // The PostgreSQL driver and schema are loaded only in team mode.
      await (await import("./db/postgres.ts")).openPostgresBackend({ url: config.storage.url })
    : openSqliteBackend({ dataDir, busyTimeoutMs: config.storage.busy_timeout_ms, migrations: options.migrations });
  try {
    const sample = await sealedSample(backend);
    return { backend, masterKey: loadMasterKey({ ...keyOptions, sealed: () => sample }) };
  } catch (error) {
    await backend.close();
    throw error;
  }
}
