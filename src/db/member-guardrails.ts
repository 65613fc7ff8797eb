import { and, asc, count, eq, inArray } from "drizzle-orm";
import { GatewayError } from "../core/errors.ts";
import { newId, nowIso } from "../core/ids.ts";
import type { Backend } from "./backend.ts";
import type { GuardrailStore } from "./guardrails.ts";
import type { GuardrailMemberAssignmentRow } from "./schema-people.ts";

/** One page of assignments and how many there are in all. */
export interface MemberAssignmentPage {
  rows: GuardrailMemberAssignmentRow[];
  total: number;
}

/**
 * Guardrails assigned to members: a member's guardrail applies to every key the member created in the
 * guardrail's workspace (GuardrailStore.policiesFor), with one budget ledger per member. Every write
 * drops the workspace's cached policies (other replicas drop theirs through the change feed).
 */
export class MemberGuardrailStore {
  constructor(
    private readonly backend: Backend,
    private readonly guardrails: GuardrailStore,
  ) {}

  /**
   * Assigns the guardrail to members of the workspace, replacing what each held there; 404 naming the
   * first id that is not a member of the workspace. Returns how many members now hold it that did not before.
   */
  async assign(workspaceId: string, guardrailId: string, memberIds: readonly string[], assignedBy: string | null): Promise<number> {
    const { workspaceMembers, guardrailMemberAssignments: assignments } = this.backend.tables;
    const ids = [...new Set(memberIds)];
    const assigned = await this.backend.transaction(async (tx) => {
      const found = await tx
        .select({ id: workspaceMembers.memberId })
        .from(workspaceMembers)
        .where(and(eq(workspaceMembers.workspaceId, workspaceId), inArray(workspaceMembers.memberId, ids)));
      const known = new Set(found.map((row) => row.id));
      const missing = ids.find((id) => !known.has(id));
      if (missing !== undefined) throw new GatewayError("not_found", `member_user_ids: no member ${missing} in this workspace`);
      const already = await tx
        .select({ memberId: assignments.memberId })
        .from(assignments)
        .where(and(eq(assignments.guardrailId, guardrailId), inArray(assignments.memberId, ids)));
      const held = new Set(already.map((row) => row.memberId));
      const fresh = ids.filter((id) => !held.has(id));
      if (fresh.length === 0) return 0;
      await tx.delete(assignments).where(and(eq(assignments.workspaceId, workspaceId), inArray(assignments.memberId, fresh)));
      const createdAt = nowIso();
      await tx.insert(assignments).values(fresh.map((memberId) => ({ id: newId(), guardrailId, memberId, workspaceId, assignedBy, createdAt })));
      return fresh.length;
    });
    this.guardrails.forget(workspaceId);
    return assigned;
  }

  /** Removes the guardrail from those of the members that hold it; returns how many did. */
  async unassign(workspaceId: string, guardrailId: string, memberIds: readonly string[]): Promise<number> {
    const { guardrailMemberAssignments: assignments } = this.backend.tables;
    const removed = await this.backend.write((db) =>
      db
        .delete(assignments)
        .where(and(eq(assignments.workspaceId, workspaceId), eq(assignments.guardrailId, guardrailId), inArray(assignments.memberId, [...new Set(memberIds)])))
        .returning({ id: assignments.id }),
    );
    this.guardrails.forget(workspaceId);
    return removed.length;
  }

  /** Member assignments of the workspace (of one guardrail when given), oldest first. */
  async list(workspaceId: string, guardrailId: string | undefined, offset: number, limit: number): Promise<MemberAssignmentPage> {
    const { guardrailMemberAssignments: assignments } = this.backend.tables;
    const where = guardrailId === undefined ? eq(assignments.workspaceId, workspaceId) : and(eq(assignments.workspaceId, workspaceId), eq(assignments.guardrailId, guardrailId));
    const rows = await this.backend.db.select().from(assignments).where(where).orderBy(asc(assignments.createdAt), asc(assignments.id)).limit(limit).offset(offset);
    const [counted] = await this.backend.db.select({ n: count() }).from(assignments).where(where);
    return { rows, total: Number(counted?.n ?? 0) };
  }

  /** The hashes of the keys a member created in a guardrail's workspace: what the member's ledger of it counts. */
  async keyHashesOf(guardrailId: string, memberId: string): Promise<string[]> {
    const { apiKeys, guardrails } = this.backend.tables;
    const rows = await this.backend.db
      .select({ hash: apiKeys.hash })
      .from(apiKeys)
      .innerJoin(guardrails, eq(guardrails.workspaceId, apiKeys.workspaceId))
      .where(and(eq(guardrails.id, guardrailId), eq(apiKeys.creatorUserId, memberId)));
    return rows.map((row) => row.hash);
  }
}
