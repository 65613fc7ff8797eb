import { and, asc, eq, inArray, isNull, or } from "drizzle-orm";
import { GatewayError } from "../core/errors.ts";
import { newId, nowIso } from "../core/ids.ts";
import type { SecretBox } from "../core/secret-box.ts";
import type { Db } from "./client.ts";
import { type VaultSecretRow, vaultSecrets } from "./schema.ts";

/** A vault is a workspace's own secrets (internId null) or one intern's. */
export interface VaultScope {
  workspaceId: string;
  internId: string | null;
}

export interface EffectiveSecret extends VaultSecretRow {
  source: "workspace" | "intern";
}

function scopeCondition(scope: VaultScope) {
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

/** Vault secrets: values sealed with AES-256-GCM, bound to their scope and name; reads return metadata only. */
export class VaultStore {
  #version = 0;

  /** Bumped on every write, so readers of decrypted secrets know their copy is stale. */
  get version(): number {
    return this.#version;
  }

  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
  ) {}

  put(scope: VaultScope, name: string, hosts: string[], value: string): VaultSecretRow {
    return this.db.transaction((tx) => this.#upsert(tx as unknown as Db, scope, name, hosts, value), { behavior: "immediate" });
  }

  #upsert(db: Db, scope: VaultScope, name: string, hosts: string[] | null, value: string): VaultSecretRow {
    this.#version++;
    const now = nowIso();
    const sealed = this.box.seal(value, associatedData(scope, name));
    const fingerprint = this.box.fingerprint(value, fingerprintScope(scope));
    const existing = db
      .select({ id: vaultSecrets.id })
      .from(vaultSecrets)
      .where(and(scopeCondition(scope), eq(vaultSecrets.name, name)))
      .get();
    if (existing) {
      return db
        .update(vaultSecrets)
        .set({ hosts, valueEnc: sealed, fingerprint, updatedAt: now })
        .where(eq(vaultSecrets.id, existing.id))
        .returning()
        .get()!;
    }
    return db
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
      .returning()
      .get();
  }

  /** Ordered by name. */
  list(scope: VaultScope, offset: number, limit: number): { rows: VaultSecretRow[]; hasMore: boolean } {
    const rows = this.db
      .select()
      .from(vaultSecrets)
      .where(scopeCondition(scope))
      .orderBy(asc(vaultSecrets.name))
      .limit(limit + 1)
      .offset(offset)
      .all();
    return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
  }

  delete(scope: VaultScope, name: string): boolean {
    this.#version++;
    return this.db.delete(vaultSecrets).where(and(scopeCondition(scope), eq(vaultSecrets.name, name))).returning({ id: vaultSecrets.id }).all().length > 0;
  }

  /** Copies workspace secrets into an intern's vault, all or nothing. */
  copyToIntern(workspaceId: string, internId: string, names: string[]): VaultSecretRow[] {
    return this.db.transaction(
      (tx) => {
        const db = tx as unknown as Db;
        const source = { workspaceId, internId: null };
        const found = db
          .select()
          .from(vaultSecrets)
          .where(and(scopeCondition(source), inArray(vaultSecrets.name, names)))
          .all();
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
        return names.map((name) => {
          const row = byName.get(name)!;
          const value = this.box.open(row.valueEnc, associatedData(source, name));
          return this.#upsert(db, target, name, row.hosts, value);
        });
      },
      { behavior: "immediate" },
    );
  }

  /** What an intern can use: the workspace's secrets, overridden by the intern's own of the same name. */
  effective(workspaceId: string, internId: string): EffectiveSecret[] {
    const rows = this.db
      .select()
      .from(vaultSecrets)
      .where(
        and(
          eq(vaultSecrets.workspaceId, workspaceId),
          or(isNull(vaultSecrets.internId), eq(vaultSecrets.internId, internId)),
        ),
      )
      .orderBy(asc(vaultSecrets.name))
      .all();
    const merged = new Map<string, EffectiveSecret>();
    for (const row of rows) {
      const source = row.internId === null ? "workspace" : "intern";
      if (source === "workspace" && merged.has(row.name)) continue;
      merged.set(row.name, { ...row, source });
    }
    return [...merged.values()];
  }

  /** The plaintext of a secret, for sending to one of its hosts. Never rendered in a response. */
  reveal(scope: VaultScope, name: string): { value: string; hosts: string[] | null } | undefined {
    const row = this.db
      .select()
      .from(vaultSecrets)
      .where(and(scopeCondition(scope), eq(vaultSecrets.name, name)))
      .get();
    if (!row) return undefined;
    return { value: this.box.open(row.valueEnc, associatedData(scope, name)), hosts: row.hosts };
  }
}
