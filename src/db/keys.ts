import { and, asc, count, eq, like, ne } from "drizzle-orm";
import { GatewayError } from "../core/errors.ts";
import { nowIso } from "../core/ids.ts";
import { generateApiKey, hashApiKey, type KeyKind, keyLabel } from "../core/api-key.ts";
import type { ChangeWatch } from "./change-watch.ts";
import type { Db } from "./client.ts";
import { isUniqueViolation } from "./sqlite-errors.ts";
import { type ApiKeyRow, apiKeys } from "./schema.ts";

export interface NewKey {
  kind: KeyKind;
  /**
   * Only for a management key: it administers every workspace of the deployment. Default: true for the
   * deployment's first management key (as the bootstrap key and the upgrade migration), else false.
   */
  deploymentAdmin?: boolean;
  name: string;
  workspaceId: string;
  internId?: string | null;
  limit?: number | null;
  limitReset?: ApiKeyRow["limitReset"];
  includeByokInLimit?: boolean;
  expiresAt?: string | null;
  creatorUserId?: string | null;
  externalUser?: string | null;
  requestsPerMinute?: number | null;
  tokensPerMinute?: number | null;
  /** Use this plaintext instead of generating one (bootstrap from ROUNDHOUSE_ADMIN_KEY). */
  plaintext?: string;
}

export interface KeyPatch {
  name?: string;
  disabled?: boolean;
  limit?: number | null;
  limitReset?: ApiKeyRow["limitReset"];
  includeByokInLimit?: boolean;
  expiresAt?: string | null;
  requestsPerMinute?: number | null;
  tokensPerMinute?: number | null;
}

/**
 * API keys, stored as SHA-256 hashes only. Lookups by hash are served from memory after the first read,
 * so authentication reads no table on the hot path; every write drops the cached entry.
 */
export class KeyStore {
  readonly #cache = new Map<string, ApiKeyRow>();

  constructor(
    private readonly db: Db,
    private readonly changes?: ChangeWatch,
  ) {
    // Another process (the CLI) wrote to the database: what is cached may be stale.
    changes?.onChange(() => this.#cache.clear());
  }

  create(input: NewKey): { row: ApiKeyRow; plaintext: string } {
    if (input.deploymentAdmin && input.kind !== "management") throw new GatewayError("bad_request", "Only a management key can be a deployment admin");
    const plaintext = input.plaintext ?? generateApiKey(input.kind);
    const row: ApiKeyRow = {
      hash: hashApiKey(plaintext),
      kind: input.kind,
      deploymentAdmin: input.deploymentAdmin ?? (input.kind === "management" && this.countManagementKeys() === 0),
      name: input.name,
      label: keyLabel(plaintext),
      workspaceId: input.workspaceId,
      internId: input.internId ?? null,
      disabled: false,
      limit: input.limit ?? null,
      limitReset: input.limitReset ?? null,
      includeByokInLimit: input.includeByokInLimit ?? false,
      requestsPerMinute: input.requestsPerMinute ?? null,
      tokensPerMinute: input.tokensPerMinute ?? null,
      expiresAt: input.expiresAt ?? null,
      creatorUserId: input.creatorUserId ?? null,
      externalUser: input.externalUser ?? null,
      createdAt: nowIso(),
      updatedAt: null,
    };
    try {
      this.db.insert(apiKeys).values(row).run();
    } catch (error) {
      if (isUniqueViolation(error)) throw new GatewayError("conflict", "A key with this value already exists");
      throw error;
    }
    return { row, plaintext };
  }

  /** The key with this hash, from memory when seen before. */
  findByHash(hash: string): ApiKeyRow | undefined {
    this.changes?.check();
    const cached = this.#cache.get(hash);
    if (cached) return cached;
    const row = this.db.select().from(apiKeys).where(eq(apiKeys.hash, hash)).get();
    if (row) this.#cache.set(hash, row);
    return row;
  }

  /** Keys of any workspace whose hash starts with `prefix` (lowercase hex), at most `limit`. */
  findByHashPrefix(prefix: string, limit: number): ApiKeyRow[] {
    return this.db.select().from(apiKeys).where(like(apiKeys.hash, `${prefix}%`)).limit(limit).all();
  }

  get(workspaceId: string, hash: string): ApiKeyRow | undefined {
    const row = this.findByHash(hash);
    return row && row.workspaceId === workspaceId ? row : undefined;
  }

  list(workspaceId: string, options: { offset: number; limit: number; includeDisabled: boolean }): ApiKeyRow[] {
    const where = options.includeDisabled
      ? eq(apiKeys.workspaceId, workspaceId)
      : and(eq(apiKeys.workspaceId, workspaceId), eq(apiKeys.disabled, false));
    return this.db
      .select()
      .from(apiKeys)
      .where(where)
      .orderBy(asc(apiKeys.createdAt), asc(apiKeys.hash))
      .limit(options.limit)
      .offset(options.offset)
      .all();
  }

  update(workspaceId: string, hash: string, patch: KeyPatch): ApiKeyRow | undefined {
    const values = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
    const row = this.db
      .update(apiKeys)
      .set({ ...values, updatedAt: nowIso() })
      .where(and(eq(apiKeys.hash, hash), eq(apiKeys.workspaceId, workspaceId)))
      .returning()
      .get();
    this.#cache.delete(hash);
    return row;
  }

  delete(workspaceId: string, hash: string): boolean {
    const removed = this.db.delete(apiKeys).where(and(eq(apiKeys.hash, hash), eq(apiKeys.workspaceId, workspaceId))).returning({ id: apiKeys.hash }).all();
    this.#cache.delete(hash);
    return removed.length > 0;
  }

  countManagementKeys(): number {
    return this.db.select({ n: count() }).from(apiKeys).where(eq(apiKeys.kind, "management")).get()?.n ?? 0;
  }

  countInWorkspace(workspaceId: string, exceptHash?: string): number {
    const where = exceptHash
      ? and(eq(apiKeys.workspaceId, workspaceId), ne(apiKeys.hash, exceptHash))
      : eq(apiKeys.workspaceId, workspaceId);
    return this.db.select({ n: count() }).from(apiKeys).where(where).get()?.n ?? 0;
  }

  /** Drops cached entries of keys removed by a cascade (an intern or workspace deleted). */
  forgetWhere(predicate: (row: ApiKeyRow) => boolean): void {
    for (const [hash, row] of this.#cache) if (predicate(row)) this.#cache.delete(hash);
  }
}
