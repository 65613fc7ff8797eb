import { isNotNull } from "drizzle-orm";
import type { SealedCheck } from "../core/secret-box.ts";
import type { Backend } from "./backend.ts";
import { openCredentials } from "./connections.ts";
import { openSecret } from "./vault.ts";

/**
 * One stored sealed value (a vault secret, else a connection's credentials) to test a master key
 * against, or null when the database holds none: one indexed row read now, then one AES-GCM open per
 * check (synchronous, so the master key's loader can run it).
 */
export async function sealedSample(backend: Backend): Promise<SealedCheck | null> {
  const { vaultSecrets, connections } = backend.tables;
  const [secret] = await backend.db.select().from(vaultSecrets).limit(1);
  if (secret) return (box) => openSecret(box, secret);
  const [connection] = await backend.db.select().from(connections).where(isNotNull(connections.credentialsEnc)).limit(1);
  if (connection) return (box) => openCredentials(box, connection);
  return null;
}
