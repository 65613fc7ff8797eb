import { and, asc, count, eq, like, ne, sql } from "drizzle-orm";
import { GatewayError } from "../core/errors.ts";
import { nowIso } from "../core/ids.ts";
import { generateApiKey, hashApiKey, type KeyKind, keyLabel } from "../core/api-key.ts";
import type { Backend, Conn } from "./backend.ts";
import { isUniqueViolation } from "./errors.ts";
import type { ApiKeyRow } from "./schema.ts";

/** A read of the key with a hash, prepared once. */
interface ByHash {
  execute(values: { hash: string }): Promise<ApiKeyRow[]>;
}

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
 * so authentication reads no table on the hot path; every write drops the cached entry, and so does a
 * write another process or replica made (the backend's change feed).
 */
export class KeyStore {
  readonly #cache = new Map<string, ApiKeyRow>();
  #byHash: ByHash | undefined;

  constructor(private readonly backend: Backend) {
    backend.changes.onChange(() => this.#cache.clear());
  }

  /** Creates a key; `tx` runs it inside the caller's transaction (bootstrap). */
  async create(input: NewKey, tx: Conn = this.backend.db): Promise<{ row: ApiKeyRow; plaintext: string }> {
    if (input.deploymentAdmin && input.kind !== "management") throw new GatewayError("bad_request", "Only a management key can be a deployment admin");
    const plaintext = input.plaintext ?? generateApiKey(input.kind);
    const row: ApiKeyRow = {
      hash: hashApiKey(plaintext),
      kind: input.kind,
      deploymentAdmin: input.deploymentAdmin ?? (input.kind === "management" && (await this.countManagementKeys(tx)) === 0),
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
      await this.backend.write(() => tx.insert(this.backend.tables.apiKeys).values(row));
    } catch (error) {
      if (isUniqueViolation(error)) throw new GatewayError("conflict", "A key with this value already exists");
      throw error;
    }
    return { row, plaintext };
  }

  /** The key with this hash, from memory when seen before. */
  async findByHash(hash: string): Promise<ApiKeyRow | undefined> {
    const cached = this.cachedByHash(hash);
    if (cached) return cached;
    const row = (await this.#lookup().execute({ hash }))[0];
    if (row) this.#cache.set(hash, row);
    return row;
  }

  /** The key by hash when it is held in memory (no read): what an authenticated request's hot path asks first. */
  cachedByHash(hash: string): ApiKeyRow | undefined {
    this.backend.changes.check();
    return this.#cache.get(hash);
  }

  /** The read by hash, prepared once: an unknown key is read on every request that sends it. */
  #lookup(): ByHash {
    const { apiKeys } = this.backend.tables;
    return (this.#byHash ??= this.backend.prepare("api_key_by_hash", this.backend.db.select().from(apiKeys).where(eq(apiKeys.hash, sql.placeholder("hash"))).limit(1)));
  }

  /** Keys of any workspace whose hash starts with `prefix` (lowercase hex), at most `limit`. */
  async findByHashPrefix(prefix: string, limit: number): Promise<ApiKeyRow[]> {
    const { apiKeys } = this.backend.tables;
    return this.backend.db.select().from(apiKeys).where(like(apiKeys.hash, `${prefix}%`)).orderBy(asc(apiKeys.hash)).limit(limit);
  }

  async get(workspaceId: string, hash: string): Promise<ApiKeyRow | undefined> {
    const row = await this.findByHash(hash);
    return row && row.workspaceId === workspaceId ? row : undefined;
  }

  async list(workspaceId: string, options: { offset: number; limit: number; includeDisabled: boolean }): Promise<ApiKeyRow[]> {
    const { apiKeys } = this.backend.tables;
    const where = options.includeDisabled
      ? eq(apiKeys.workspaceId, workspaceId)
      : and(eq(apiKeys.workspaceId, workspaceId), eq(apiKeys.disabled, false));
    return this.backend.db
      .select()
      .from(apiKeys)
      .where(where)
      .orderBy(asc(apiKeys.createdAt), asc(apiKeys.hash))
      .limit(options.limit)
      .offset(options.offset);
  }

  /** The keys a member created (in one workspace when given), disabled ones included. */
  async createdBy(memberId: string, workspaceId?: string): Promise<ApiKeyRow[]> {
    const { apiKeys } = this.backend.tables;
    const where = workspaceId === undefined ? eq(apiKeys.creatorUserId, memberId) : and(eq(apiKeys.creatorUserId, memberId), eq(apiKeys.workspaceId, workspaceId));
    return this.backend.db.select().from(apiKeys).where(where).orderBy(asc(apiKeys.createdAt), asc(apiKeys.hash));
  }

  async update(workspaceId: string, hash: string, patch: KeyPatch): Promise<ApiKeyRow | undefined> {
    const { apiKeys } = this.backend.tables;
    const values = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
    const [row] = await this.backend.write((db) => db
      .update(apiKeys)
      .set({ ...values, updatedAt: nowIso() })
      .where(and(eq(apiKeys.hash, hash), eq(apiKeys.workspaceId, workspaceId)))
      .returning());
    this.#cache.delete(hash);
    return row;
  }

  async delete(workspaceId: string, hash: string): Promise<boolean> {
    const { apiKeys } = this.backend.tables;
    const removed = await this.backend.write((db) => db
      .delete(apiKeys)
      .where(and(eq(apiKeys.hash, hash), eq(apiKeys.workspaceId, workspaceId)))
      .returning({ id: apiKeys.hash }));
    this.#cache.delete(hash);
    return removed.length > 0;
  }

  /** Management keys of the deployment; `tx` reads inside the caller's transaction (bootstrap). */
  async countManagementKeys(tx: Conn = this.backend.db): Promise<number> {
    const { apiKeys } = this.backend.tables;
    const [row] = await tx.select({ n: count() }).from(apiKeys).where(eq(apiKeys.kind, "management"));
    return Number(row?.n ?? 0);
  }

  async countInWorkspace(workspaceId: string, exceptHash?: string): Promise<number> {
    const { apiKeys } = this.backend.tables;
    const where = exceptHash
      ? and(eq(apiKeys.workspaceId, workspaceId), ne(apiKeys.hash, exceptHash))
      : eq(apiKeys.workspaceId, workspaceId);
    const [row] = await this.backend.db.select({ n: count() }).from(apiKeys).where(where);
    return Number(row?.n ?? 0);
  }

  /**
   * Disables every key a member created, in every workspace (deprovisioning); `tx` writes inside the
   * caller's transaction. Returns how many were enabled before. Keys are not re-enabled on reactivation.
   */
  async disableCreatedBy(memberId: string, tx?: Conn): Promise<number> {
    const { apiKeys } = this.backend.tables;
    const update = (db: Conn) => db
      .update(apiKeys)
      .set({ disabled: true, updatedAt: nowIso() })
      .where(and(eq(apiKeys.creatorUserId, memberId), eq(apiKeys.disabled, false)))
      .returning({ hash: apiKeys.hash });
    const disabled = tx ? await update(tx) : await this.backend.write(update);
    this.forgetWhere((row) => row.creatorUserId === memberId);
    return disabled.length;
  }

  /** Drops cached entries of keys removed by a cascade (an intern or workspace deleted). */
  forgetWhere(predicate: (row: ApiKeyRow) => boolean): void {
    for (const [hash, row] of this.#cache) if (predicate(row)) this.#cache.delete(hash);
  }
}
