import { asc, eq } from "drizzle-orm";
import { nowIso } from "../core/ids.ts";
import type { Backend } from "./backend.ts";
import type { ScimTokenRow } from "./schema-people.ts";

/** Every SCIM token starts with this, so that it is told apart from an API key at a glance (and by scanners). */
export const SCIM_TOKEN_PREFIX = "rh-scim-";

/** Shape of a SCIM token: the prefix and 64 hex digits. */
export const SCIM_TOKEN_PATTERN = /^rh-scim-[0-9a-f]{64}$/;

/** SHA-256 of a SCIM token, hex: what is stored and looked up. */
export function scimTokenHash(token: string): string {
  return Bun.SHA256.hash(token, "hex");
}

/** How often a token's `last_used_at` is written at most: every call of a busy provisioning run needs no write. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * The bearer tokens the identity provider calls `/scim/v2` with: their own credential kind, stored as
 * SHA-256 hashes, shown in plaintext once at creation, and revoked (never deleted) so the audit trail
 * keeps their names.
 */
export class ScimTokenStore {
  constructor(private readonly backend: Backend) {}

  /** Creates a token; the plaintext is returned here and never again. */
  async create(name: string): Promise<{ row: ScimTokenRow; token: string }> {
    const token = SCIM_TOKEN_PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
    const row: ScimTokenRow = { id: `scimtok_${Bun.randomUUIDv7()}`, name, hash: scimTokenHash(token), createdAt: nowIso(), lastUsedAt: null, revokedAt: null };
    await this.backend.write((db) => db.insert(this.backend.tables.scimTokens).values(row));
    return { row, token };
  }

  /** Every token, revoked ones included, oldest first. */
  async list(): Promise<ScimTokenRow[]> {
    const { scimTokens } = this.backend.tables;
    return this.backend.db.select().from(scimTokens).orderBy(asc(scimTokens.createdAt), asc(scimTokens.id));
  }

  /** Revokes a token; undefined when there is none. Revoking twice keeps the first time. */
  async revoke(id: string): Promise<ScimTokenRow | undefined> {
    const { scimTokens } = this.backend.tables;
    const [row] = await this.backend.db.select().from(scimTokens).where(eq(scimTokens.id, id)).limit(1);
    if (!row || row.revokedAt !== null) return row;
    const [revoked] = await this.backend.write((db) => db.update(scimTokens).set({ revokedAt: nowIso() }).where(eq(scimTokens.id, id)).returning());
    return revoked;
  }

  /** The live token a plaintext names (recording its use), or undefined when unknown, malformed or revoked. */
  async verify(token: string): Promise<ScimTokenRow | undefined> {
    if (!SCIM_TOKEN_PATTERN.test(token)) return undefined;
    const { scimTokens } = this.backend.tables;
    const [row] = await this.backend.db.select().from(scimTokens).where(eq(scimTokens.hash, scimTokenHash(token))).limit(1);
    if (!row || row.revokedAt !== null) return undefined;
    const now = Date.now();
    if (row.lastUsedAt === null || now - Date.parse(row.lastUsedAt) > TOUCH_INTERVAL_MS) {
      const lastUsedAt = new Date(now).toISOString();
      await this.backend.write((db) => db.update(scimTokens).set({ lastUsedAt }).where(eq(scimTokens.id, row.id)));
      row.lastUsedAt = lastUsedAt;
    }
    return row;
  }
}
