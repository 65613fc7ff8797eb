import type { Database } from "bun:sqlite";
import { isNotNull } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { SealedCheck } from "../core/secret-box.ts";
import type { Db } from "./client.ts";
import { ConnectionStore } from "./connections.ts";
import * as schema from "./schema.ts";
import { VaultStore } from "./vault.ts";

/**
 * One stored sealed value (a vault secret, else a connection's credentials) to test a master key
 * against, or null when the database holds none: one indexed row read, one AES-GCM open.
 */
export function sealedSample(client: Database): SealedCheck | null {
  const db = drizzle({ client, schema }) as Db;
  try {
    const secret = db.select().from(schema.vaultSecrets).limit(1).get();
    if (secret) {
      return (box) => new VaultStore(db, box).reveal({ workspaceId: secret.workspaceId, internId: secret.internId }, secret.name);
    }
    const connection = db.select().from(schema.connections).where(isNotNull(schema.connections.credentialsEnc)).limit(1).get();
    if (connection) return (box) => new ConnectionStore(db, box).reveal(connection);
  } catch {
    // Tables missing before the migrations run: nothing is stored yet.
  }
  return null;
}
