import { and, asc, count, eq, inArray, type SQL, sql } from "drizzle-orm";
import { newId, nowIso } from "../core/ids.ts";
import { type ScimFilter, scimError } from "../core/scim-filter.ts";
import { GatewayError } from "../core/errors.ts";
import type { Backend, Conn } from "./backend.ts";
import { isUniqueViolation } from "./errors.ts";
import type { Page } from "./members.ts";
import type { ScimGroupRow } from "./schema-people.ts";
import { type FieldMap, filterCondition } from "./scim-query.ts";
import { recomputeMemberships } from "./scim-memberships.ts";

/** A group with its members (ids and e-mail addresses, for SCIM's `members[].display`). */
export interface GroupWithMembers {
  row: ScimGroupRow;
  members: Array<{ id: string; email: string }>;
}

/** What a group is created with. */
export interface NewGroup {
  displayName: string;
  externalId?: string | null;
  memberIds?: readonly string[];
}

/** A change to a group: renamed, and its members replaced, added to or removed from (`"all"` empties it). */
export interface GroupChange {
  displayName?: string;
  externalId?: string | null;
  setMembers?: readonly string[];
  addMembers?: readonly string[];
  removeMembers?: readonly string[] | "all";
}

const DUPLICATE = "A group with this displayName already exists";

/**
 * The groups the identity provider pushes and their members. Every change of membership recomputes
 * the SCIM-granted workspace memberships of the members concerned, in the same transaction.
 */
export class ScimGroupStore {
  constructor(private readonly backend: Backend) {}

  async create(input: NewGroup): Promise<GroupWithMembers> {
    const now = nowIso();
    const row: ScimGroupRow = { id: newId(), displayName: input.displayName, externalId: input.externalId ?? null, createdAt: now, updatedAt: now };
    await this.unique(() =>
      this.backend.transaction(async (tx) => {
        await tx.insert(this.backend.tables.scimGroups).values(row);
        await recomputeMemberships(tx, this.backend.tables, await this.addMembers(tx, row.id, input.memberIds ?? []));
      }),
    );
    return (await this.get(row.id))!;
  }

  async get(id: string): Promise<GroupWithMembers | undefined> {
    const { scimGroups } = this.backend.tables;
    const [row] = await this.backend.db.select().from(scimGroups).where(eq(scimGroups.id, id)).limit(1);
    return row ? (await this.withMembers([row]))[0] : undefined;
  }

  /** Groups in creation order, optionally filtered (displayName, externalId, id, members.value). */
  async list(options: { filter?: ScimFilter; offset: number; limit: number }): Promise<Page<GroupWithMembers>> {
    const { scimGroups } = this.backend.tables;
    const where = options.filter ? filterCondition(options.filter, this.fields()) : undefined;
    const rows = await this.backend.db.select().from(scimGroups).where(where).orderBy(asc(scimGroups.createdAt), asc(scimGroups.id)).limit(options.limit).offset(options.offset);
    const [total] = await this.backend.db.select({ n: count() }).from(scimGroups).where(where);
    return { rows: await this.withMembers(rows), total: Number(total?.n ?? 0) };
  }

  /** Applies a change in one transaction; undefined when there is no such group. */
  async update(id: string, change: GroupChange): Promise<GroupWithMembers | undefined> {
    const { scimGroups, scimGroupMembers } = this.backend.tables;
    const found = await this.unique(() =>
      this.backend.transaction(async (tx) => {
        const values: Partial<ScimGroupRow> = { updatedAt: nowIso() };
        if (change.displayName !== undefined) values.displayName = change.displayName;
        if (change.externalId !== undefined) values.externalId = change.externalId;
        const [row] = await tx.update(scimGroups).set(values).where(eq(scimGroups.id, id)).returning();
        if (!row) return false;
        const touched: string[] = [];
        const removed = change.setMembers !== undefined ? "all" : change.removeMembers;
        if (removed !== undefined) {
          const gone = await tx
            .delete(scimGroupMembers)
            .where(removed === "all" ? eq(scimGroupMembers.groupId, id) : and(eq(scimGroupMembers.groupId, id), inArray(scimGroupMembers.memberId, [...removed, ""])))
            .returning({ memberId: scimGroupMembers.memberId });
          touched.push(...gone.map((member) => member.memberId));
        }
        touched.push(...(await this.addMembers(tx, id, [...(change.setMembers ?? []), ...(change.addMembers ?? [])])));
        // Once, after every change: a member removed and added back keeps its memberships as they were.
        await recomputeMemberships(tx, this.backend.tables, touched);
        return true;
      }),
    );
    return found ? this.get(id) : undefined;
  }

  /** Deletes a group (its mappings go with it) and withdraws the access it granted. */
  async delete(id: string): Promise<boolean> {
    const { scimGroups, scimGroupMembers } = this.backend.tables;
    return this.backend.transaction(async (tx) => {
      const members = await tx.select({ memberId: scimGroupMembers.memberId }).from(scimGroupMembers).where(eq(scimGroupMembers.groupId, id));
      const removed = await tx.delete(scimGroups).where(eq(scimGroups.id, id)).returning({ id: scimGroups.id });
      await recomputeMemberships(tx, this.backend.tables, members.map((member) => member.memberId));
      return removed.length > 0;
    });
  }

  /** Takes a member out of every group and withdraws the access the groups granted (a user deleted through SCIM). */
  async leaveAll(memberId: string): Promise<void> {
    const { scimGroupMembers } = this.backend.tables;
    await this.backend.transaction(async (tx) => {
      await tx.delete(scimGroupMembers).where(eq(scimGroupMembers.memberId, memberId));
      await recomputeMemberships(tx, this.backend.tables, [memberId]);
    });
  }

  /** Adds members (known member ids only: 400 otherwise), keeping those already in the group; returns their ids. */
  private async addMembers(tx: Conn, groupId: string, memberIds: readonly string[]): Promise<string[]> {
    const ids = [...new Set(memberIds)];
    if (ids.length === 0) return [];
    const { members, scimGroupMembers } = this.backend.tables;
    const known = new Set((await tx.select({ id: members.id }).from(members).where(inArray(members.id, ids))).map((row) => row.id));
    const unknown = ids.find((id) => !known.has(id));
    if (unknown !== undefined) throw scimError("invalidValue", `members: no user with id '${unknown.slice(0, 80)}'`);
    const now = nowIso();
    await tx.insert(scimGroupMembers).values(ids.map((memberId) => ({ groupId, memberId, createdAt: now }))).onConflictDoNothing();
    return ids;
  }

  private async withMembers(rows: ScimGroupRow[]): Promise<GroupWithMembers[]> {
    if (rows.length === 0) return [];
    const { members, scimGroupMembers } = this.backend.tables;
    const found = await this.backend.db
      .select({ groupId: scimGroupMembers.groupId, id: members.id, email: members.email })
      .from(scimGroupMembers)
      .innerJoin(members, eq(members.id, scimGroupMembers.memberId))
      .where(inArray(scimGroupMembers.groupId, rows.map((row) => row.id)))
      .orderBy(asc(scimGroupMembers.createdAt), asc(members.id));
    return rows.map((row) => ({ row, members: found.filter((member) => member.groupId === row.id).map(({ id, email }) => ({ id, email })) }));
  }

  private fields(): FieldMap {
    const { scimGroups, scimGroupMembers } = this.backend.tables;
    const hasMember = (op: string, value: unknown): SQL => {
      if (op !== "eq" || typeof value !== "string") throw scimError("invalidFilter", "filter: members.value supports only 'eq' with a quoted id");
      return sql`exists (select 1 from ${scimGroupMembers} where ${scimGroupMembers.groupId} = ${scimGroups.id} and ${scimGroupMembers.memberId} = ${value})`;
    };
    return {
      id: { column: scimGroups.id, type: "string", caseExact: true },
      displayname: { column: scimGroups.displayName, type: "string" },
      externalid: { column: scimGroups.externalId, type: "string", caseExact: true },
      "members.value": { custom: hasMember },
      members: { custom: hasMember },
      "meta.created": { column: scimGroups.createdAt, type: "date" },
      "meta.lastmodified": { column: scimGroups.updatedAt, type: "date" },
    };
  }

  private async unique<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw new GatewayError("conflict", DUPLICATE, { metadata: { scimType: "uniqueness" } });
      throw error;
    }
  }
}
