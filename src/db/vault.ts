import { and, asc, eq, inArray, isNull, or } from "drizzle-orm";
import { GatewayError } from "../core/errors.ts";
import { newId, nowIso } from "../core/ids.ts";
import type { SecretBox } from "../core/secret-box.ts";
import type { Backend, Conn, Tables } from "./backend.ts";
import { upsertRetried } from "./errors.ts";
import type { VaultSecretRow } from "./schema.ts";
import { SealedStore } from "./sealed-store.ts";

/** A vault is a workspace's own secrets (internId null) or one intern's. */
export interface VaultScope {
  workspaceId: string;
  internId: string | null;
}

export interface EffectiveSecret extends VaultSecretRow {
  source: "workspace" | "intern";
}

function scopeCondition(vaultSecrets: Tables["vaultSecrets"], scope: VaultScope) {
  return and(
    eq(vaultSecrets.workspaceId, scope.workspaceId),
    scope.internId === null ? isNull(vaultSecrets.internId) : eq(vaultSecrets.internId, scope.internId),
  );
}

function associatedData(scope: VaultScope, name: string): string {
  return `vault-secret\u0000${scope.workspaceId}\u0000${scope.internId ?? ""}\u0000${name}`;
}

function fingerprintScope(scope: VaultScope): string {
  return `${scope.workspaceId}/${scope.internId ?? "workspace"}`;
}

/** The plaintext of a stored secret row (its scope and name are bound into the seal); throws for another key. */
export function openSecret(box: SecretBox, row: VaultSecretRow): string {
  return box.open(row.valueEnc, associatedData({ workspaceId: row.workspaceId, internId: row.internId }, row.name));
}

/** Vault secrets: values sealed with AES-256-GCM, bound to their scope and name; reads return metadata only. */
export class VaultStore extends SealedStore {
  constructor(backend: Backend, box: SecretBox) {
    super(backend, box, "vault_secrets");
  }

  put(scope: VaultScope, name: string, hosts: string[], value: string): Promise<VaultSecretRow> {
    return this.writes.around(() => upsertRetried(() => this.backend.transaction((tx) => this.#upsert(tx, scope, name, hosts, value))));
  }

  async #upsert(db: Conn, scope: VaultScope, name: string, hosts: string[] | null, value: string): Promise<VaultSecretRow> {
    const { vaultSecrets } = this.backend.tables;
    const now = nowIso();
    const sealed = this.box.seal(value, associatedData(scope, name));
    const fingerprint = this.box.fingerprint(value, fingerprintScope(scope));
    const [existing] = await db
      .select({ id: vaultSecrets.id })
      .from(vaultSecrets)
      .where(and(scopeCondition(vaultSecrets, scope), eq(vaultSecrets.name, name)))
      .limit(1);
    if (existing) {
      const [updated] = await db
        .update(vaultSecrets)
        .set({ hosts, valueEnc: sealed, fingerprint, updatedAt: now })
        .where(eq(vaultSecrets.id, existing.id))
        .returning();
      return updated!;
    }
    const [inserted] = await db
      .insert(vaultSecrets)
      .values({
        id: newId(),
        workspaceId: scope.workspaceId,
        internId: scope.internId,
        name,
        hosts,
        valueEnc: sealed,
        fingerprint,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return inserted!;
  }

  /** Ordered by name. */
  async list(scope: VaultScope, offset: number, limit: number): Promise<{ rows: VaultSecretRow[]; hasMore: boolean }> {
    const { vaultSecrets } = this.backend.tables;
    const rows = await this.backend.db
      .select()
      .from(vaultSecrets)
      .where(scopeCondition(vaultSecrets, scope))
      .orderBy(asc(vaultSecrets.name))
      .limit(limit + 1)
      .offset(offset);
    return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
  }

  delete(scope: VaultScope, name: string): Promise<boolean> {
    const { vaultSecrets } = this.backend.tables;
    return this.writes.around(async () => {
      const removed = await this.backend.write((db) => db
        .delete(vaultSecrets)
        .where(and(scopeCondition(vaultSecrets, scope), eq(vaultSecrets.name, name)))
        .returning({ id: vaultSecrets.id }));
      return removed.length > 0;
    });
  }

  /** Copies workspace secrets into an intern's vault, all or nothing. */
  copyToIntern(workspaceId: string, internId: string, names: string[]): Promise<VaultSecretRow[]> {
    const { vaultSecrets } = this.backend.tables;
    return this.writes.around(() =>
      this.backend.transaction(async (db) => {
        const source = { workspaceId, internId: null };
        const found = await db
          .select()
          .from(vaultSecrets)
          .where(and(scopeCondition(vaultSecrets, source), inArray(vaultSecrets.name, names)));
        const byName = new Map(found.map((row) => [row.name, row]));
        const missing = names.filter((name) => !byName.has(name));
        if (missing.length > 0) {
          throw new GatewayError("not_found", `Workspace secret(s) not found: ${missing.join(", ")}`);
        }
        const legacy = found.filter((row) => row.hosts === null).map((row) => row.name);
        if (legacy.length > 0) {
          throw new GatewayError(
            "conflict",
            `Workspace secret(s) without hosts cannot be copied; store them again with hosts: ${legacy.join(", ")}`,
          );
        }
        const target = { workspaceId, internId };
        const copied: VaultSecretRow[] = [];
        for (const name of names) {
          const row = byName.get(name)!;
          const value = this.box.open(row.valueEnc, associatedData(source, name));
          copied.push(await this.#upsert(db, target, name, row.hosts, value));
        }
        return copied;
      }),
    );
  }

  /** What an intern can use: the workspace's secrets, overridden by the intern's own of the same name. */
  async effective(workspaceId: string, internId: string): Promise<EffectiveSecret[]> {
    const { vaultSecrets } = this.backend.tables;
    const rows = await this.backend.db
      .select()
      .from(vaultSecrets)
      .where(
        and(
          eq(vaultSecrets.workspaceId, workspaceId),
          or(isNull(vaultSecrets.internId), eq(vaultSecrets.internId, internId)),
        ),
      )
      .orderBy(asc(vaultSecrets.name));
    const merged = new Map<string, EffectiveSecret>();
    for (const row of rows) {
      const source = row.internId === null ? "workspace" : "intern";
      if (source === "workspace" && merged.has(row.name)) continue;
      merged.set(row.name, { ...row, source });
    }
    return [...merged.values()];
  }

  /** The plaintext of a secret, for sending to one of its hosts. Never rendered in a response. */
  async reveal(scope: VaultScope, name: string): Promise<{ value: string; hosts: string[] | null } | undefined> {
    const { vaultSecrets } = this.backend.tables;
    const [row] = await this.backend.db
      .select()
      .from(vaultSecrets)
      .where(and(scopeCondition(vaultSecrets, scope), eq(vaultSecrets.name, name)))
      .limit(1);
    if (!row) return undefined;
    return { value: this.box.open(row.valueEnc, associatedData(scope, name)), hosts: row.hosts };
  }
}
