import type { Config } from "./config/schema.ts";
import type { Logger } from "./core/log.ts";
import type { Db } from "./db/client.ts";
import { ConnectionStore } from "./db/connections.ts";
import { InternStore } from "./db/interns.ts";
import { KeyStore } from "./db/keys.ts";
import { PresetStore } from "./db/presets.ts";
import { VaultStore } from "./db/vault.ts";
import { WorkspaceStore } from "./db/workspaces.ts";
import { SecretBox } from "./security/secret-box.ts";

/** Everything a request handler may use; built once at start and handed to createApp. */
export interface Services {
  config: Config;
  logger: Logger;
  db: Db;
  box: SecretBox;
  keys: KeyStore;
  workspaces: WorkspaceStore;
  interns: InternStore;
  presets: PresetStore;
  vault: VaultStore;
  connections: ConnectionStore;
}

export function createServices(input: { config: Config; logger: Logger; db: Db; masterKey: Uint8Array }): Services {
  const box = new SecretBox(input.masterKey);
  return {
    config: input.config,
    logger: input.logger,
    db: input.db,
    box,
    keys: new KeyStore(input.db),
    workspaces: new WorkspaceStore(input.db),
    interns: new InternStore(input.db),
    presets: new PresetStore(input.db),
    vault: new VaultStore(input.db, box),
    connections: new ConnectionStore(input.db, box),
  };
}
