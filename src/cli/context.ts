import { join, resolve } from "node:path";
import { loadConfig } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import type { Backend } from "../db/backend.ts";
import { AnalyticsStore } from "../db/analytics.ts";
import { ConnectionStore } from "../db/connections.ts";
import { GenerationStore } from "../db/generations.ts";
import { InternFeatureStore } from "../db/intern-features.ts";
import { InternStore } from "../db/interns.ts";
import { KeyStore } from "../db/keys.ts";
import { PresetStore } from "../db/presets.ts";
import { VaultStore } from "../db/vault.ts";
import type { WorkspaceRow } from "../db/schema.ts";
import { WorkspaceStore } from "../db/workspaces.ts";
import { createLogger } from "../core/log.ts";
import { SecretBox } from "../core/secret-box.ts";
import { openStorage } from "../storage.ts";
import { CliError, UsageError } from "./output.ts";

export interface LocationFlags {
  config?: string | undefined;
  "data-dir"?: string | undefined;
  "database-url"?: string | undefined;
}

/** The config file (or embedded defaults) with the environment, then the --data-dir and --database-url flags, applied. */
export async function loadCliConfig(flags: LocationFlags): Promise<Config> {
  const config = await loadConfig({ path: flags.config });
  if (flags["data-dir"] !== undefined) config.data_dir = flags["data-dir"];
  const url = flags["database-url"];
  if (url !== undefined) {
    if (!/^postgres(ql)?:\/\//i.test(url)) throw new UsageError("--database-url must be a postgres:// or postgresql:// URL");
    config.storage.url = url;
  }
  return config;
}

export function dataDirOf(config: Config): string {
  return resolve(config.data_dir);
}

export function masterKeyFileOf(config: Config): string {
  return resolve(config.master_key_file ?? join(dataDirOf(config), "master.key"));
}

/** The stores the HTTP API uses, over the same database, for commands that work without a server. */
export interface Stores {
  backend: Backend;
  keys: KeyStore;
  workspaces: WorkspaceStore;
  presets: PresetStore;
  interns: InternStore;
  connections: ConnectionStore;
  internFeatures: InternFeatureStore;
  vault: VaultStore;
  /** Reads only: no journal of its own, so a running gateway's journal is left to it. */
  generations: GenerationStore;
  analytics: AnalyticsStore;
  close(): Promise<void>;
}

/**
 * Opens (creating and migrating if needed) the database the gateway would use: the SQLite file, or
 * PostgreSQL when a database URL is set. The master key is read (or created) exactly as `serve` does,
 * so a command never runs against a data directory whose key is missing or exposed.
 */
export async function openStores(config: Config): Promise<Stores> {
  const { backend, masterKey } = await openStorage(config, { env: process.env });
  const box = new SecretBox(masterKey.key);
  return {
    backend,
    keys: new KeyStore(backend),
    workspaces: new WorkspaceStore(backend),
    presets: new PresetStore(backend),
    interns: new InternStore(backend),
    connections: new ConnectionStore(backend, box),
    internFeatures: new InternFeatureStore(backend),
    vault: new VaultStore(backend, box),
    generations: new GenerationStore(backend, createLogger("error"), { journalFile: null }),
    analytics: new AnalyticsStore(backend),
    close: () => backend.close(),
  };
}

/** Opens the stores for one piece of work and closes them after it, whatever happens. */
export async function withStores<T>(flags: LocationFlags, work: (stores: Stores, config: Config) => Promise<T>): Promise<T> {
  const config = await loadCliConfig(flags);
  const stores = await openStores(config);
  try {
    return await work(stores, config);
  } finally {
    await stores.close();
  }
}

/**
 * The workspace a command acts on: the one named by id or slug, else the first workspace. With
 * `create`, an empty database gets the first workspace ("Main", slug main) that `serve` would create.
 */
export async function resolveWorkspace(stores: Stores, reference: string | undefined, options: { create: true }): Promise<WorkspaceRow>;
export async function resolveWorkspace(stores: Stores, reference: string | undefined, options: { create: false }): Promise<WorkspaceRow | undefined>;
export async function resolveWorkspace(stores: Stores, reference: string | undefined, options: { create: boolean }): Promise<WorkspaceRow | undefined> {
  if (reference !== undefined) {
    const found = await stores.workspaces.find(reference);
    if (!found) throw new CliError(`no workspace with id or slug '${reference}'`);
    return found;
  }
  const first = (await stores.workspaces.list(0, 1)).rows[0];
  if (first || !options.create) return first;
  return await stores.workspaces.create({ name: "Main", slug: "main" }, null);
}

/** Every workspace, oldest first. */
export async function allWorkspaces(stores: Stores): Promise<WorkspaceRow[]> {
  return (await stores.workspaces.list(0, Number.MAX_SAFE_INTEGER)).rows;
}
