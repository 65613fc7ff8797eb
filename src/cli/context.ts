import { join, resolve } from "node:path";
import { loadConfig } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { type Db, openDatabase } from "../db/client.ts";
import { ConnectionStore } from "../db/connections.ts";
import { InternFeatureStore } from "../db/intern-features.ts";
import { InternStore } from "../db/interns.ts";
import { KeyStore } from "../db/keys.ts";
import { PresetStore } from "../db/presets.ts";
import type { WorkspaceRow } from "../db/schema.ts";
import { WorkspaceStore } from "../db/workspaces.ts";
import { sealedSample } from "../db/sealed-sample.ts";
import { loadMasterKey } from "../security/master-key.ts";
import { SecretBox } from "../core/secret-box.ts";
import { CliError } from "./output.ts";

export interface LocationFlags {
  config?: string | undefined;
  "data-dir"?: string | undefined;
}

/** The config file (or embedded defaults) with the environment, then the --data-dir flag, applied. */
export async function loadCliConfig(flags: LocationFlags): Promise<Config> {
  const config = await loadConfig({ path: flags.config });
  if (flags["data-dir"] !== undefined) config.data_dir = flags["data-dir"];
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
  db: Db;
  keys: KeyStore;
  workspaces: WorkspaceStore;
  presets: PresetStore;
  interns: InternStore;
  connections: ConnectionStore;
  internFeatures: InternFeatureStore;
  close(): void;
}

/**
 * Opens (creating and migrating if needed) the database the gateway would use. The master key is read
 * (or created) exactly as `serve` does, so a command never runs against a data directory whose key is
 * missing or exposed.
 */
export function openStores(config: Config): Stores {
  let opened: Db | undefined;
  let key: Buffer;
  const open = () => (opened ??= openDatabase({ dataDir: dataDirOf(config), busyTimeoutMs: config.storage.busy_timeout_ms }));
  try {
    key = loadMasterKey({ envValue: process.env.ROUNDHOUSE_MASTER_KEY, file: masterKeyFileOf(config), sealed: () => sealedSample(open().$client) }).key;
  } catch (error) {
    opened?.$client.close();
    throw error;
  }
  const db = open();
  return {
    db,
    keys: new KeyStore(db),
    workspaces: new WorkspaceStore(db),
    presets: new PresetStore(db),
    interns: new InternStore(db),
    connections: new ConnectionStore(db, new SecretBox(key)),
    internFeatures: new InternFeatureStore(db),
    close: () => db.$client.close(),
  };
}

/** Opens the stores for one piece of work and closes them after it, whatever happens. */
export async function withStores<T>(flags: LocationFlags, work: (stores: Stores, config: Config) => T): Promise<T> {
  const config = await loadCliConfig(flags);
  const stores = openStores(config);
  try {
    return work(stores, config);
  } finally {
    stores.close();
  }
}

/**
 * The workspace a command acts on: the one named by id or slug, else the first workspace. With
 * `create`, an empty database gets the first workspace ("Main", slug main) that `serve` would create.
 */
export function resolveWorkspace(stores: Stores, reference: string | undefined, options: { create: true }): WorkspaceRow;
export function resolveWorkspace(stores: Stores, reference: string | undefined, options: { create: false }): WorkspaceRow | undefined;
export function resolveWorkspace(stores: Stores, reference: string | undefined, options: { create: boolean }): WorkspaceRow | undefined {
  if (reference !== undefined) {
    const found = stores.workspaces.find(reference);
    if (!found) throw new CliError(`no workspace with id or slug '${reference}'`);
    return found;
  }
  const first = stores.workspaces.list(0, 1).rows[0];
  if (first || !options.create) return first;
  return stores.workspaces.create({ name: "Main", slug: "main" }, null);
}

/** Every workspace, oldest first. */
export function allWorkspaces(stores: Stores): WorkspaceRow[] {
  return stores.workspaces.list(0, Number.MAX_SAFE_INTEGER).rows;
}
