import { and, asc, count, eq, inArray } from "drizzle-orm";
import { GatewayError } from "../core/errors.ts";
import { newId, nowIso } from "../core/ids.ts";
import type { Backend, Conn } from "./backend.ts";
import { isUniqueViolation } from "./errors.ts";
import type { Page } from "./members.ts";
import type { ScimGroupMappingRow, WorkspaceRole } from "./schema-people.ts";
import { recomputeMemberships } from "./scim-memberships.ts";

/**
 * Mappings from a SCIM group to a role in a workspace (one per group and workspace). Every change
 * recomputes the SCIM-granted memberships of the group's members in the same transaction.
 */
export class ScimMappingStore {
  constructor(private readonly backend: Backend) {}

  /** Mappings in creation order, of one workspace or (undefined) of every workspace. */
  async list(workspaceId: string | undefined, options: { offset: number; limit: number }): Promise<Page<ScimGroupMappingRow>> {
    const { scimGroupMappings } = this.backend.tables;
    const where = workspaceId === undefined ? undefined : eq(scimGroupMappings.workspaceId, workspaceId);
    const rows = await this.backend.db
      .select()
      .from(scimGroupMappings)
      .where(where)
      .orderBy(asc(scimGroupMappings.createdAt), asc(scimGroupMappings.id))
      .limit(options.limit)
      .offset(options.offset);
    const [total] = await this.backend.db.select({ n: count() }).from(scimGroupMappings).where(where);
    return { rows, total: Number(total?.n ?? 0) };
  }

  async get(id: string): Promise<ScimGroupMappingRow | undefined> {
    const { scimGroupMappings } = this.backend.tables;
    return (await this.backend.db.select().from(scimGroupMappings).where(eq(scimGroupMappings.id, id)).limit(1))[0];
  }

  /** Maps a group to a workspace role: 404 for an unknown group, 409 when the pair is already mapped. */
  async create(input: { scimGroupId: string; workspaceId: string; role: WorkspaceRole }): Promise<ScimGroupMappingRow> {
    const { scimGroups, scimGroupMappings } = this.backend.tables;
    const now = nowIso();
    const row: ScimGroupMappingRow = { id: newId(), ...input, createdAt: now, updatedAt: now };
    try {
      await this.backend.transaction(async (tx) => {
        const [group] = await tx.select({ id: scimGroups.id }).from(scimGroups).where(eq(scimGroups.id, input.scimGroupId)).limit(1);
        if (!group) throw new GatewayError("not_found", "scim_group_id: no SCIM group with this id");
        await tx.insert(scimGroupMappings).values(row);
        await recomputeMemberships(tx, this.backend.tables, await this.memberIds(tx, input.scimGroupId));
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new GatewayError("conflict", "This SCIM group is already mapped to this workspace");
      throw error;
    }
    return row;
  }

  /** Changes a mapping's role; undefined when there is none. */
  async update(id: string, role: WorkspaceRole): Promise<ScimGroupMappingRow | undefined> {
    const { scimGroupMappings } = this.backend.tables;
    return this.backend.transaction(async (tx) => {
      const [row] = await tx.update(scimGroupMappings).set({ role, updatedAt: nowIso() }).where(eq(scimGroupMappings.id, id)).returning();
      if (row) await recomputeMemberships(tx, this.backend.tables, await this.memberIds(tx, row.scimGroupId));
      return row;
    });
  }

  /**
   * Deletes a mapping. `keepMembers`: the group's members keep their SCIM-granted membership of the
   * workspace as a manual one; otherwise the access only this mapping granted is withdrawn (access
   * another mapping grants stays, at that mapping's role). False when there is no such mapping.
   */
  async delete(id: string, keepMembers: boolean): Promise<boolean> {
    const { scimGroupMappings, workspaceMembers } = this.backend.tables;
    return this.backend.transaction(async (tx) => {
      const [row] = await tx.delete(scimGroupMappings).where(eq(scimGroupMappings.id, id)).returning();
      if (!row) return false;
      const memberIds = await this.memberIds(tx, row.scimGroupId);
      if (keepMembers && memberIds.length > 0) {
        await tx
          .update(workspaceMembers)
          .set({ source: "manual" })
          .where(and(eq(workspaceMembers.workspaceId, row.workspaceId), eq(workspaceMembers.source, "scim"), inArray(workspaceMembers.memberId, memberIds)));
      }
      await recomputeMemberships(tx, this.backend.tables, memberIds);
      return true;
    });
  }

  private async memberIds(tx: Conn, groupId: string): Promise<string[]> {
    const { scimGroupMembers } = this.backend.tables;
    return (await tx.select({ id: scimGroupMembers.memberId }).from(scimGroupMembers).where(eq(scimGroupMembers.groupId, groupId))).map((row) => row.id);
  }
}
