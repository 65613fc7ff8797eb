import { asc, count, eq } from "drizzle-orm";
import { GatewayError } from "../core/errors.ts";
import { newId, nowIso } from "../core/ids.ts";
import type { Backend, Conn } from "./backend.ts";
import { isUniqueViolation } from "./errors.ts";
import type { WorkspaceRow } from "./schema.ts";

export type WorkspaceInput = Partial<Omit<WorkspaceRow, "id" | "createdAt" | "updatedAt" | "createdBy">>;

/**
 * Workspaces, cached in memory by id: every authenticated request needs its key's workspace. A write
 * another process or replica made (the backend's change feed) drops the cache.
 */
export class WorkspaceStore {
  readonly #cache = new Map<string, WorkspaceRow>();

  constructor(private readonly backend: Backend) {
    backend.changes.onChange(() => this.#cache.clear());
  }

  /** Creates a workspace; `tx` runs it inside the caller's transaction (bootstrap). */
  async create(input: WorkspaceInput & { name: string; slug: string }, createdBy: string | null, tx: Conn = this.backend.db): Promise<WorkspaceRow> {
    const row = {
      ...input,
      id: newId(),
      createdBy,
      createdAt: nowIso(),
      updatedAt: null,
    };
    try {
      const [created] = await this.backend.write(() => tx.insert(this.backend.tables.workspaces).values(row).returning());
      return created!;
    } catch (error) {
      throw uniqueSlugError(error) ?? error;
    }
  }

  /** The workspace's row when it is cached (undefined when it was not read since the last change). */
  cached(id: string): WorkspaceRow | undefined {
    this.backend.changes.check();
    return this.#cache.get(id);
  }

  async get(id: string): Promise<WorkspaceRow | undefined> {
    const cached = this.cached(id);
    if (cached) return cached;
    const { workspaces } = this.backend.tables;
    const row = (await this.backend.db.select().from(workspaces).where(eq(workspaces.id, id)).limit(1))[0];
    if (row) this.#cache.set(id, row);
    return row;
  }

  /** By id, or by slug for the convenience of people typing URLs. */
  async find(idOrSlug: string): Promise<WorkspaceRow | undefined> {
    const { workspaces } = this.backend.tables;
    return (await this.get(idOrSlug)) ?? (await this.backend.db.select().from(workspaces).where(eq(workspaces.slug, idOrSlug)).limit(1))[0];
  }

  /** Oldest first; `tx` reads inside the caller's transaction (bootstrap). */
  async list(offset: number, limit: number, tx: Conn = this.backend.db): Promise<{ rows: WorkspaceRow[]; total: number }> {
    const { workspaces } = this.backend.tables;
    const rows = await tx
      .select()
      .from(workspaces)
      .orderBy(asc(workspaces.createdAt), asc(workspaces.id))
      .limit(limit)
      .offset(offset);
    const [counted] = await tx.select({ n: count() }).from(workspaces);
    return { rows, total: Number(counted?.n ?? 0) };
  }

  async update(id: string, patch: WorkspaceInput): Promise<WorkspaceRow | undefined> {
    const { workspaces } = this.backend.tables;
    const values = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
    try {
      const [row] = await this.backend.write((db) => db
        .update(workspaces)
        .set({ ...values, updatedAt: nowIso() })
        .where(eq(workspaces.id, id))
        .returning());
      this.#cache.delete(id);
      return row;
    } catch (error) {
      throw uniqueSlugError(error) ?? error;
    }
  }

  /** Deletes a workspace and, by cascade, its presets, interns and vault. Refused while keys remain. */
  async delete(id: string): Promise<boolean> {
    const { workspaces, apiKeys } = this.backend.tables;
    const removed = await this.backend.transaction(async (tx) => {
      const [counted] = await tx.select({ n: count() }).from(apiKeys).where(eq(apiKeys.workspaceId, id));
      const keys = Number(counted?.n ?? 0);
      if (keys > 0) {
        throw new GatewayError(
          "bad_request",
          `Workspace still has ${keys} API key(s); delete them before deleting the workspace`,
        );
      }
      return tx.delete(workspaces).where(eq(workspaces.id, id)).returning({ id: workspaces.id });
    });
    this.#cache.delete(id);
    return removed.length > 0;
  }
}

function uniqueSlugError(error: unknown): GatewayError | undefined {
  if (isUniqueViolation(error)) {
    return new GatewayError("conflict", "A workspace with this slug already exists");
  }
  return undefined;
}
