import { and, asc, count, eq, inArray } from "drizzle-orm";
import { GatewayError } from "../core/errors.ts";
import { nowIso } from "../core/ids.ts";
import type { Backend } from "./backend.ts";
import { isUniqueViolation } from "./errors.ts";
import type { KeyStore } from "./keys.ts";
import type { MemberRow, MembershipSource, OrganizationRole, WorkspaceMemberRow, WorkspaceRole } from "./schema-people.ts";

/** What a member is created with; the e-mail address is stored lower-cased. */
export interface NewMember {
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  role?: OrganizationRole;
  oidcSubject?: string | null;
  externalId?: string | null;
  scimManaged?: boolean;
}

/** A change to a member: an absent field is kept. Deactivation goes through `deactivate`. */
export type MemberPatch = { [K in keyof NewMember]?: NewMember[K] | undefined };

/** One page of rows and how many there are in all. */
export interface Page<T> {
  rows: T[];
  total: number;
}

/** A member's role in a workspace, with how the membership came to be. */
export type Membership = Pick<WorkspaceMemberRow, "workspaceId" | "role" | "source">;

/** `user_` and a UUID: the id form of the reference's user ids. */
export function newMemberId(): string {
  return `user_${Bun.randomUUIDv7()}`;
}

/** E-mail addresses compare case-insensitively. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The organization's members and their workspace memberships. Deactivating a member disables every key
 * the member created and ends every session, in one transaction.
 */
export class MembersStore {
  constructor(
    private readonly backend: Backend,
    private readonly keys: KeyStore,
  ) {}

  /** Creates a member; 409 when the e-mail address (or OIDC subject) is taken. */
  async create(input: NewMember): Promise<MemberRow> {
    const now = nowIso();
    const row: MemberRow = {
      id: newMemberId(),
      email: normalizeEmail(input.email),
      firstName: input.firstName ?? null,
      lastName: input.lastName ?? null,
      role: input.role ?? "member",
      active: true,
      oidcSubject: input.oidcSubject ?? null,
      externalId: input.externalId ?? null,
      scimManaged: input.scimManaged ?? false,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.backend.write((db) => db.insert(this.backend.tables.members).values(row));
    } catch (error) {
      if (isUniqueViolation(error)) throw new GatewayError("conflict", "A member with this email already exists");
      throw error;
    }
    return row;
  }

  async get(id: string): Promise<MemberRow | undefined> {
    const { members } = this.backend.tables;
    return (await this.backend.db.select().from(members).where(eq(members.id, id)).limit(1))[0];
  }

  async findByEmail(email: string): Promise<MemberRow | undefined> {
    const { members } = this.backend.tables;
    return (await this.backend.db.select().from(members).where(eq(members.email, normalizeEmail(email))).limit(1))[0];
  }

  async findBySubject(oidcSubject: string): Promise<MemberRow | undefined> {
    const { members } = this.backend.tables;
    return (await this.backend.db.select().from(members).where(eq(members.oidcSubject, oidcSubject)).limit(1))[0];
  }

  /** Members in creation order. */
  async list(options: { offset: number; limit: number }): Promise<Page<MemberRow>> {
    const { members } = this.backend.tables;
    const rows = await this.backend.db.select().from(members).orderBy(asc(members.createdAt), asc(members.id)).limit(options.limit).offset(options.offset);
    const [total] = await this.backend.db.select({ n: count() }).from(members);
    return { rows, total: Number(total?.n ?? 0) };
  }

  /** Updates a member; undefined when there is none; 409 when the new e-mail address is taken. */
  async update(id: string, patch: MemberPatch): Promise<MemberRow | undefined> {
    const { members } = this.backend.tables;
    const values = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
    if (typeof values.email === "string") values.email = normalizeEmail(values.email);
    try {
      const [row] = await this.backend.write((db) => db.update(members).set({ ...values, updatedAt: nowIso() }).where(eq(members.id, id)).returning());
      return row;
    } catch (error) {
      if (isUniqueViolation(error)) throw new GatewayError("conflict", "A member with this email already exists");
      throw error;
    }
  }

  /**
   * Deprovisions a member at once: marks it inactive, revokes its sessions and disables every key it
   * created, in one transaction. Returns the member, or undefined when there is none.
   */
  async deactivate(id: string): Promise<MemberRow | undefined> {
    const { members, memberSessions } = this.backend.tables;
    const now = nowIso();
    return this.backend.transaction(async (tx) => {
      const [row] = await tx.update(members).set({ active: false, updatedAt: now }).where(eq(members.id, id)).returning();
      if (!row) return undefined;
      await tx.update(memberSessions).set({ revokedAt: now }).where(eq(memberSessions.memberId, id));
      await this.keys.disableCreatedBy(id, tx);
      return row;
    });
  }

  /** Reactivates a member; its keys stay disabled. */
  async reactivate(id: string): Promise<MemberRow | undefined> {
    const { members } = this.backend.tables;
    const [row] = await this.backend.write((db) => db.update(members).set({ active: true, updatedAt: nowIso() }).where(eq(members.id, id)).returning());
    return row;
  }

  /** Deletes a member with its memberships and sessions, after disabling its keys. */
  async delete(id: string): Promise<boolean> {
    const { members } = this.backend.tables;
    return this.backend.transaction(async (tx) => {
      await this.keys.disableCreatedBy(id, tx);
      const removed = await tx.delete(members).where(eq(members.id, id)).returning({ id: members.id });
      return removed.length > 0;
    });
  }

  /** Grants a role in a workspace, or changes it when the member already has one (its source is replaced too). */
  async addToWorkspace(workspaceId: string, memberId: string, role: WorkspaceRole, source: MembershipSource = "manual"): Promise<WorkspaceMemberRow> {
    const { workspaceMembers } = this.backend.tables;
    const row: WorkspaceMemberRow = { workspaceId, memberId, role, source, createdAt: nowIso() };
    await this.backend.write((db) =>
      db
        .insert(workspaceMembers)
        .values(row)
        .onConflictDoUpdate({ target: [workspaceMembers.workspaceId, workspaceMembers.memberId], set: { role, source } }),
    );
    return row;
  }

  /** Removes memberships; returns how many there were. */
  async removeFromWorkspace(workspaceId: string, memberIds: readonly string[]): Promise<number> {
    if (memberIds.length === 0) return 0;
    const { workspaceMembers } = this.backend.tables;
    const removed = await this.backend.write((db) =>
      db
        .delete(workspaceMembers)
        .where(and(eq(workspaceMembers.workspaceId, workspaceId), inArray(workspaceMembers.memberId, [...memberIds])))
        .returning({ id: workspaceMembers.memberId }),
    );
    return removed.length;
  }

  /** A workspace's memberships in the order they were granted. */
  async listWorkspace(workspaceId: string, options: { offset: number; limit: number }): Promise<Page<WorkspaceMemberRow>> {
    const { workspaceMembers } = this.backend.tables;
    const where = eq(workspaceMembers.workspaceId, workspaceId);
    const rows = await this.backend.db
      .select()
      .from(workspaceMembers)
      .where(where)
      .orderBy(asc(workspaceMembers.createdAt), asc(workspaceMembers.memberId))
      .limit(options.limit)
      .offset(options.offset);
    const [total] = await this.backend.db.select({ n: count() }).from(workspaceMembers).where(where);
    return { rows, total: Number(total?.n ?? 0) };
  }

  /** Every workspace a member belongs to, with its role there. */
  async membershipsOf(memberId: string): Promise<Membership[]> {
    const { workspaceMembers } = this.backend.tables;
    return this.backend.db
      .select({ workspaceId: workspaceMembers.workspaceId, role: workspaceMembers.role, source: workspaceMembers.source })
      .from(workspaceMembers)
      .where(eq(workspaceMembers.memberId, memberId))
      .orderBy(asc(workspaceMembers.createdAt));
  }

  /** A member's role in one workspace, or undefined when it is not a member there. */
  async roleIn(workspaceId: string, memberId: string): Promise<WorkspaceRole | undefined> {
    const { workspaceMembers } = this.backend.tables;
    const [row] = await this.backend.db
      .select({ role: workspaceMembers.role })
      .from(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.memberId, memberId)))
      .limit(1);
    return row?.role;
  }
}
