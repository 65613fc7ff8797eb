import { and, asc, eq, gt, inArray } from "drizzle-orm";
import { newId, nowIso } from "../core/ids.ts";
import type { Backend } from "./backend.ts";
import type { InternRow } from "./schema.ts";

export const INTERN_STATUSES = [
  "awaiting_slack_install",
  "queued",
  "provisioning",
  "running",
  "failed",
  "stopped",
  "destroying",
  "destroy_failed",
] as const;

export interface InternInput {
  name?: string;
  description?: string | null;
  instructions?: string | null;
  model?: string | null;
}

/** Interns of a workspace; every read is scoped by workspace so a foreign id is simply not found. */
export class InternStore {
  constructor(private readonly backend: Backend) {}

  async create(workspaceId: string, input: InternInput & { name: string }): Promise<InternRow> {
    const now = nowIso();
    const [row] = await this.backend.write((db) => db
      .insert(this.backend.tables.interns)
      .values({
        id: newId(),
        workspaceId,
        name: input.name,
        description: input.description ?? null,
        instructions: input.instructions ?? null,
        model: input.model ?? null,
        status: "stopped",
        hostname: null,
        lastFailureMessage: null,
        createdAt: now,
        updatedAt: now,
      })
      .returning());
    return row!;
  }

  async get(workspaceId: string, id: string): Promise<InternRow | undefined> {
    const { interns } = this.backend.tables;
    const rows = await this.backend.db
      .select()
      .from(interns)
      .where(and(eq(interns.id, id), eq(interns.workspaceId, workspaceId)))
      .limit(1);
    return rows[0];
  }

  /** Interns of a workspace with exactly this name (names need not be unique). */
  async named(workspaceId: string, name: string): Promise<InternRow[]> {
    const { interns } = this.backend.tables;
    return this.backend.db
      .select()
      .from(interns)
      .where(and(eq(interns.workspaceId, workspaceId), eq(interns.name, name)))
      .orderBy(asc(interns.id));
  }

  /** Ordered by id (time-ordered UUIDs), paged with a cursor: the id of the last item seen. */
  async list(
    workspaceId: string,
    options: { limit: number; startingAfter?: string | undefined; statuses?: string[] | undefined },
  ): Promise<{ rows: InternRow[]; hasMore: boolean }> {
    const { interns } = this.backend.tables;
    const conditions = [eq(interns.workspaceId, workspaceId)];
    if (options.startingAfter) conditions.push(gt(interns.id, options.startingAfter));
    if (options.statuses && options.statuses.length > 0) conditions.push(inArray(interns.status, options.statuses));
    const rows = await this.backend.db
      .select()
      .from(interns)
      .where(and(...conditions))
      .orderBy(asc(interns.id))
      .limit(options.limit + 1);
    return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
  }

  async update(workspaceId: string, id: string, patch: InternInput): Promise<InternRow | undefined> {
    const { interns } = this.backend.tables;
    const values = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
    const [row] = await this.backend.write((db) => db
      .update(interns)
      .set({ ...values, updatedAt: nowIso() })
      .where(and(eq(interns.id, id), eq(interns.workspaceId, workspaceId)))
      .returning());
    return row;
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const { interns } = this.backend.tables;
    const removed = await this.backend.write((db) => db
      .delete(interns)
      .where(and(eq(interns.id, id), eq(interns.workspaceId, workspaceId)))
      .returning({ id: interns.id }));
    return removed.length > 0;
  }
}
