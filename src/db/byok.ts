import { and, asc, count, eq, isNull, max } from "drizzle-orm";
import { newId, nowIso } from "../core/ids.ts";
import type { SecretBox } from "../core/secret-box.ts";
import type { Backend } from "./backend.ts";
import type { ByokKeyRow } from "./schema-groups.ts";
import { SealedStore } from "./sealed-store.ts";

/** What a BYOK credential is created with; allow-lists are null for "any". */
export interface ByokInput {
  provider: string;
  key: string;
  name: string | null;
  disabled: boolean;
  isFallback: boolean;
  sortOrder?: number | undefined;
  allowedApiKeyHashes: string[] | null;
  allowedModels: string[] | null;
  allowedUserIds: string[] | null;
}

/** A change to a credential: an absent field is kept; `key` rotates the secret in place. */
export type ByokPatch = { [K in Exclude<keyof ByokInput, "provider">]?: ByokInput[K] | undefined };

/** A live credential with its plaintext, for routing only (never rendered). */
export interface RevealedByok {
  row: ByokKeyRow;
  key: string;
}

function associatedData(workspaceId: string, id: string): string {
  return `byok-key\u0000${workspaceId}\u0000${id}`;
}

/** The masked label of a secret: its first and last four characters, or asterisks for a short one. */
export function maskedLabel(key: string): string {
  return key.length >= 12 ? `${key.slice(0, 4)}...${key.slice(-4)}` : "*".repeat(8);
}

/**
 * BYOK provider credentials of a workspace: secrets sealed with the SecretBox (bound to workspace and
 * id), reads return metadata only, delete is soft and wipes the key material.
 */
export class ByokStore extends SealedStore {
  constructor(backend: Backend, box: SecretBox) {
    super(backend, box, "byok_keys");
  }

  #live(workspaceId: string) {
    const { byokKeys } = this.backend.tables;
    return and(eq(byokKeys.workspaceId, workspaceId), isNull(byokKeys.deletedAt));
  }

  /** Creates a credential; without `sortOrder` it goes after the provider's others. */
  create(workspaceId: string, input: ByokInput): Promise<ByokKeyRow> {
    const { byokKeys } = this.backend.tables;
    return this.writes.around(() =>
      this.backend.transaction(async (tx) => {
        let sortOrder = input.sortOrder;
        if (sortOrder === undefined) {
          const [last] = await tx
            .select({ n: max(byokKeys.sortOrder) })
            .from(byokKeys)
            .where(and(this.#live(workspaceId), eq(byokKeys.provider, input.provider)));
          sortOrder = last?.n === null || last?.n === undefined ? 0 : Number(last.n) + 1;
        }
        const id = newId();
        const now = nowIso();
        const [row] = await tx
          .insert(byokKeys)
          .values({
            id,
            workspaceId,
            provider: input.provider,
            name: input.name,
            label: maskedLabel(input.key),
            keyEnc: this.box.seal(input.key, associatedData(workspaceId, id)),
            disabled: input.disabled,
            isFallback: input.isFallback,
            sortOrder,
            allowedApiKeyHashes: input.allowedApiKeyHashes,
            allowedModels: input.allowedModels,
            allowedUserIds: input.allowedUserIds,
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        return row!;
      }),
    );
  }

  /** Live credentials, by provider, then sort order. */
  async list(workspaceId: string, options: { provider?: string | undefined; offset: number; limit: number }): Promise<{ rows: ByokKeyRow[]; total: number }> {
    const { byokKeys } = this.backend.tables;
    const where = options.provider === undefined ? this.#live(workspaceId) : and(this.#live(workspaceId), eq(byokKeys.provider, options.provider));
    const rows = await this.backend.db
      .select()
      .from(byokKeys)
      .where(where)
      .orderBy(asc(byokKeys.provider), asc(byokKeys.isFallback), asc(byokKeys.sortOrder), asc(byokKeys.id))
      .limit(options.limit)
      .offset(options.offset);
    const [counted] = await this.backend.db.select({ n: count() }).from(byokKeys).where(where);
    return { rows, total: Number(counted?.n ?? 0) };
  }

  async get(workspaceId: string, id: string): Promise<ByokKeyRow | undefined> {
    const { byokKeys } = this.backend.tables;
    const [row] = await this.backend.db
      .select()
      .from(byokKeys)
      .where(and(this.#live(workspaceId), eq(byokKeys.id, id)))
      .limit(1);
    return row;
  }

  /** Applies a patch; undefined when there is no such live credential. */
  update(workspaceId: string, id: string, patch: ByokPatch): Promise<ByokKeyRow | undefined> {
    const { byokKeys } = this.backend.tables;
    const fields: Partial<ByokKeyRow> = { updatedAt: nowIso() };
    if (patch.key !== undefined) {
      fields.keyEnc = this.box.seal(patch.key, associatedData(workspaceId, id));
      fields.label = maskedLabel(patch.key);
    }
    if (patch.name !== undefined) fields.name = patch.name;
    if (patch.disabled !== undefined) fields.disabled = patch.disabled;
    if (patch.isFallback !== undefined) fields.isFallback = patch.isFallback;
    if (patch.sortOrder !== undefined) fields.sortOrder = patch.sortOrder;
    if (patch.allowedApiKeyHashes !== undefined) fields.allowedApiKeyHashes = patch.allowedApiKeyHashes;
    if (patch.allowedModels !== undefined) fields.allowedModels = patch.allowedModels;
    if (patch.allowedUserIds !== undefined) fields.allowedUserIds = patch.allowedUserIds;
    return this.writes.around(async () => {
      const [row] = await this.backend.write((db) =>
        db.update(byokKeys).set(fields).where(and(this.#live(workspaceId), eq(byokKeys.id, id))).returning(),
      );
      return row;
    });
  }

  /** Soft delete: the row stays (deleted_at), its key material is wiped. */
  delete(workspaceId: string, id: string): Promise<boolean> {
    const { byokKeys } = this.backend.tables;
    const now = nowIso();
    return this.writes.around(async () => {
      const removed = await this.backend.write((db) =>
        db
          .update(byokKeys)
          .set({ deletedAt: now, updatedAt: now, keyEnc: null, disabled: true })
          .where(and(this.#live(workspaceId), eq(byokKeys.id, id)))
          .returning({ id: byokKeys.id }),
      );
      return removed.length > 0;
    });
  }

  /** Every live, enabled credential of a workspace with its plaintext, for routing. */
  async reveal(workspaceId: string): Promise<RevealedByok[]> {
    const { byokKeys } = this.backend.tables;
    const rows = await this.backend.db
      .select()
      .from(byokKeys)
      .where(and(this.#live(workspaceId), eq(byokKeys.disabled, false)))
      .orderBy(asc(byokKeys.provider), asc(byokKeys.isFallback), asc(byokKeys.sortOrder), asc(byokKeys.id));
    return rows.flatMap((row) => (row.keyEnc ? [{ row, key: this.box.open(row.keyEnc, associatedData(workspaceId, row.id)) }] : []));
  }
}
