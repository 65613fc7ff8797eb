import { and, eq, inArray } from "drizzle-orm";
import { nowIso } from "../core/ids.ts";
import type { Conn, Tables } from "./backend.ts";
import type { WorkspaceRole } from "./schema-people.ts";

const RANK: Record<WorkspaceRole, number> = { member: 1, admin: 2 };

/**
 * Brings the SCIM-granted workspace memberships of `memberIds` in line with their groups and the
 * group mappings, inside the caller's transaction: every workspace a member's groups are mapped to
 * gets a `scim` membership with the highest mapped role; a `scim` membership no mapping backs any
 * more is removed. Memberships granted otherwise (manual, SSO) are left alone.
 */
export async function recomputeMemberships(tx: Conn, tables: Tables, memberIds: readonly string[]): Promise<void> {
  const ids = [...new Set(memberIds)];
  if (ids.length === 0) return;
  const { scimGroupMembers, scimGroupMappings, workspaceMembers } = tables;
  const granted = await tx
    .select({ memberId: scimGroupMembers.memberId, workspaceId: scimGroupMappings.workspaceId, role: scimGroupMappings.role })
    .from(scimGroupMembers)
    .innerJoin(scimGroupMappings, eq(scimGroupMappings.scimGroupId, scimGroupMembers.groupId))
    .where(inArray(scimGroupMembers.memberId, ids));
  const desired = new Map<string, Map<string, WorkspaceRole>>();
  for (const row of granted) {
    const roles = desired.get(row.memberId) ?? new Map<string, WorkspaceRole>();
    const current = roles.get(row.workspaceId);
    if (!current || RANK[row.role] > RANK[current]) roles.set(row.workspaceId, row.role);
    desired.set(row.memberId, roles);
  }
  const existing = await tx.select().from(workspaceMembers).where(inArray(workspaceMembers.memberId, ids));
  for (const row of existing) {
    const wanted = desired.get(row.memberId);
    const role = wanted?.get(row.workspaceId);
    // Only `scim` memberships are SCIM's to change; a manual or SSO one stays as it was granted.
    if (row.source === "scim") {
      const where = and(eq(workspaceMembers.workspaceId, row.workspaceId), eq(workspaceMembers.memberId, row.memberId));
      if (role === undefined) await tx.delete(workspaceMembers).where(where);
      else if (role !== row.role) await tx.update(workspaceMembers).set({ role }).where(where);
    }
    wanted?.delete(row.workspaceId);
  }
  const now = nowIso();
  const inserts = [...desired].flatMap(([memberId, roles]) => [...roles].map(([workspaceId, role]) => ({ workspaceId, memberId, role, source: "scim" as const, createdAt: now })));
  if (inserts.length > 0) await tx.insert(workspaceMembers).values(inserts);
}
