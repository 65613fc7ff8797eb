import { boolean, index, integer, pgTable, primaryKey, uniqueIndex } from "drizzle-orm/pg-core";
import type * as people from "./schema-people.ts";
import type { AuditActorKind, MembershipSource, OrganizationRole, SessionKind, WorkspaceRole } from "./schema-people.ts";
import { workspaces } from "./schema-pg.ts";
import { text } from "./schema-pg-types.ts";

/*
 * The people tables in PostgreSQL's types (see schema-people.ts), each checked to have the SQLite
 * table's row type exactly.
 */

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Rows<T extends { $inferSelect: unknown }> = T["$inferSelect"];

/** The organization's members (see schema-people.ts). */
export const members = pgTable(
  "members",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    firstName: text("first_name"),
    lastName: text("last_name"),
    role: text("role").$type<OrganizationRole>().notNull().default("member"),
    active: boolean("active").notNull().default(true),
    oidcSubject: text("oidc_subject"),
    externalId: text("external_id"),
    scimManaged: boolean("scim_managed").notNull().default(false),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("members_email_idx").on(table.email), uniqueIndex("members_oidc_subject_idx").on(table.oidcSubject), index("members_created_idx").on(table.createdAt)],
);

/** A member's role in one workspace. */
export const workspaceMembers = pgTable(
  "workspace_members",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    role: text("role").$type<WorkspaceRole>().notNull(),
    source: text("source").$type<MembershipSource>().notNull().default("manual"),
    createdAt: text("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.workspaceId, table.memberId] }), index("workspace_members_member_idx").on(table.memberId)],
);

/** Signed-in sessions (token hashes only). */
export const memberSessions = pgTable(
  "member_sessions",
  {
    hash: text("hash").primaryKey(),
    kind: text("kind").$type<SessionKind>().notNull(),
    memberId: text("member_id").references(() => members.id, { onDelete: "cascade" }),
    keyHash: text("key_hash"),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    revokedAt: text("revoked_at"),
  },
  (table) => [index("member_sessions_member_idx").on(table.memberId), index("member_sessions_expires_idx").on(table.expiresAt)],
);

const samePeopleRows: [
  Same<Rows<typeof members>, Rows<typeof people.members>>,
  Same<Rows<typeof workspaceMembers>, Rows<typeof people.workspaceMembers>>,
  Same<Rows<typeof memberSessions>, Rows<typeof people.memberSessions>>,
] = [true, true, true];
void samePeopleRows;

/** The audit log (see schema-people.ts): append-only, refused UPDATE and DELETE by a trigger. */
export const auditLog = pgTable(
  "audit_log",
  {
    seq: integer("seq").primaryKey(),
    id: text("id").notNull(),
    at: text("at").notNull(),
    actorKind: text("actor_kind").$type<AuditActorKind>().notNull(),
    actorId: text("actor_id"),
    workspaceId: text("workspace_id"),
    action: text("action").notNull(),
    target: text("target"),
    outcome: integer("outcome").notNull(),
    ip: text("ip"),
    requestId: text("request_id"),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (table) => [
    uniqueIndex("audit_log_id_idx").on(table.id),
    index("audit_log_at_idx").on(table.at),
    index("audit_log_actor_idx").on(table.actorKind, table.actorId),
    index("audit_log_workspace_idx").on(table.workspaceId),
  ],
);

const sameAuditRows: Same<Rows<typeof auditLog>, Rows<typeof people.auditLog>> = true;
void sameAuditRows;
