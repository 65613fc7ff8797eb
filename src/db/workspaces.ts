import { asc, count, eq } from "drizzle-orm";
import { GatewayError } from "../core/errors.ts";
import { newId, nowIso } from "../core/ids.ts";
import type { ChangeWatch } from "./change-watch.ts";
import type { Db } from "./client.ts";
import { isUniqueViolation } from "./sqlite-errors.ts";
import { apiKeys, type WorkspaceRow, workspaces } from "./schema.ts";

export type WorkspaceInput = Partial<Omit<WorkspaceRow, "id" | "createdAt" | "updatedAt" | "createdBy">>;

/** Workspaces, cached in memory by id: every authenticated request needs its key's workspace. */
export class WorkspaceStore {
  readonly #cache = new Map<string, WorkspaceRow>();

  constructor(
    private readonly db: Db,
    private readonly changes?: ChangeWatch,
  ) {
    // Another process (the CLI) wrote to the database: what is cached may be stale.
    changes?.onChange(() => this.#cache.clear());
  }

  create(input: WorkspaceInput & { name: string; slug: string }, createdBy: string | null): WorkspaceRow {
    const row = {
      ...input,
      id: newId(),
      createdBy,
      createdAt: nowIso(),
      updatedAt: null,
    };
    try {
      return this.db.insert(workspaces).values(row).returning().get();
    } catch (error) {
      throw uniqueSlugError(error) ?? error;
    }
  }

  get(id: string): WorkspaceRow | undefined {
    this.changes?.check();
    const cached = this.#cache.get(id);
    if (cached) return cached;
    const row = this.db.select().from(workspaces).where(eq(workspaces.id, id)).get();
    if (row) this.#cache.set(id, row);
    return row;
  }

  /** By id, or by slug for the convenience of people typing URLs. */
  find(idOrSlug: string): WorkspaceRow | undefined {
    return this.get(idOrSlug) ?? this.db.select().from(workspaces).where(eq(workspaces.slug, idOrSlug)).get();
  }

  list(offset: number, limit: number): { rows: WorkspaceRow[]; total: number } {
    const rows = this.db
      .select()
      .from(workspaces)
      .orderBy(asc(workspaces.createdAt), asc(workspaces.id))
      .limit(limit)
      .offset(offset)
      .all();
    const total = this.db.select({ n: count() }).from(workspaces).get()?.n ?? 0;
    return { rows, total };
  }

  update(id: string, patch: WorkspaceInput): WorkspaceRow | undefined {
    const values = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
    try {
      const row = this.db
        .update(workspaces)
        .set({ ...values, updatedAt: nowIso() })
        .where(eq(workspaces.id, id))
        .returning()
        .get();
      this.#cache.delete(id);
      return row;
    } catch (error) {
      throw uniqueSlugError(error) ?? error;
    }
  }

  /** Deletes a workspace and, by cascade, its presets, interns and vault. Refused while keys remain. */
  delete(id: string): boolean {
    return this.db.transaction(
      (tx) => {
        const keys = tx.select({ n: count() }).from(apiKeys).where(eq(apiKeys.workspaceId, id)).get()?.n ?? 0;
        if (keys > 0) {
          throw new GatewayError(
            "bad_request",
            `Workspace still has ${keys} API key(s); delete them before deleting the workspace`,
          );
        }
        const removed = tx.delete(workspaces).where(eq(workspaces.id, id)).returning({ id: workspaces.id }).all();
        this.#cache.delete(id);
        return removed.length > 0;
      },
      { behavior: "immediate" },
    );
  }
}

function uniqueSlugError(error: unknown): GatewayError | undefined {
  if (isUniqueViolation(error)) {
    return new GatewayError("conflict", "A workspace with this slug already exists");
  }
  return undefined;
}
