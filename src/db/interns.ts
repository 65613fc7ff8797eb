import { and, asc, eq, gt, inArray } from "drizzle-orm";
import { newId, nowIso } from "../core/ids.ts";
import type { Db } from "./client.ts";
import { type InternRow, interns } from "./schema.ts";

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
  constructor(private readonly db: Db) {}

  create(workspaceId: string, input: InternInput & { name: string }): InternRow {
    const now = nowIso();
    return this.db
      .insert(interns)
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
      .returning()
      .get();
  }

  get(workspaceId: string, id: string): InternRow | undefined {
    return this.db
      .select()
      .from(interns)
      .where(and(eq(interns.id, id), eq(interns.workspaceId, workspaceId)))
      .get();
  }

  /** Interns of a workspace with exactly this name (names need not be unique). */
  named(workspaceId: string, name: string): InternRow[] {
    return this.db
      .select()
      .from(interns)
      .where(and(eq(interns.workspaceId, workspaceId), eq(interns.name, name)))
      .orderBy(asc(interns.id))
      .all();
  }

  /** Ordered by id (time-ordered UUIDs), paged with a cursor: the id of the last item seen. */
  list(
    workspaceId: string,
    options: { limit: number; startingAfter?: string | undefined; statuses?: string[] | undefined },
  ): { rows: InternRow[]; hasMore: boolean } {
    const conditions = [eq(interns.workspaceId, workspaceId)];
    if (options.startingAfter) conditions.push(gt(interns.id, options.startingAfter));
    if (options.statuses && options.statuses.length > 0) conditions.push(inArray(interns.status, options.statuses));
    const rows = this.db
      .select()
      .from(interns)
      .where(and(...conditions))
      .orderBy(asc(interns.id))
      .limit(options.limit + 1)
      .all();
    return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
  }

  update(workspaceId: string, id: string, patch: InternInput): InternRow | undefined {
    const values = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
    return this.db
      .update(interns)
      .set({ ...values, updatedAt: nowIso() })
      .where(and(eq(interns.id, id), eq(interns.workspaceId, workspaceId)))
      .returning()
      .get();
  }

  delete(workspaceId: string, id: string): boolean {
    return (
      this.db
        .delete(interns)
        .where(and(eq(interns.id, id), eq(interns.workspaceId, workspaceId)))
        .returning({ id: interns.id }).all().length > 0
    );
  }
}
