import { bigint, boolean, doublePrecision, index, integer, pgTable, primaryKey, uniqueIndex } from "drizzle-orm/pg-core";
import type * as people from "./schema-people.ts";
import type { AuditActorKind, CodeChallengeMethod, MembershipSource, OrganizationRole, SessionKind, WorkspaceRole } from "./schema-people.ts";
import { workspaces } from "./schema-pg.ts";
import { guardrails } from "./schema-pg-groups.ts";
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

/** Guardrails assigned to members (see schema-people.ts). */
export const guardrailMemberAssignments = pgTable(
  "guardrail_member_assignments",
  {
    id: text("id").primaryKey(),
    guardrailId: text("guardrail_id")
      .notNull()
      .references(() => guardrails.id, { onDelete: "cascade" }),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    assignedBy: text("assigned_by"),
    createdAt: text("created_at").notNull(),
  },
  (table) => [
    uniqueIndex("guardrail_member_assignments_member_idx").on(table.workspaceId, table.memberId),
    index("guardrail_member_assignments_guardrail_idx").on(table.guardrailId, table.createdAt),
  ],
);

const sameMemberGuardrailRows: Same<Rows<typeof guardrailMemberAssignments>, Rows<typeof people.guardrailMemberAssignments>> = true;
void sameMemberGuardrailRows;
/** SCIM bearer tokens (hashes only; see schema-people.ts). */
export const scimTokens = pgTable("scim_tokens", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  hash: text("hash").notNull().unique(),
  createdAt: text("created_at").notNull(),
  lastUsedAt: text("last_used_at"),
  revokedAt: text("revoked_at"),
});

/** Groups the identity provider pushed. */
export const scimGroups = pgTable(
  "scim_groups",
  {
    id: text("id").primaryKey(),
    displayName: text("display_name").notNull(),
    externalId: text("external_id"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("scim_groups_display_name_idx").on(table.displayName), index("scim_groups_created_idx").on(table.createdAt)],
);

/** Members of SCIM groups. */
export const scimGroupMembers = pgTable(
  "scim_group_members",
  {
    groupId: text("group_id")
      .notNull()
      .references(() => scimGroups.id, { onDelete: "cascade" }),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    createdAt: text("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.groupId, table.memberId] }), index("scim_group_members_member_idx").on(table.memberId)],
);

/** SCIM group to workspace role mappings. */
export const scimGroupMappings = pgTable(
  "scim_group_mappings",
  {
    id: text("id").primaryKey(),
    scimGroupId: text("scim_group_id")
      .notNull()
      .references(() => scimGroups.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    role: text("role").$type<WorkspaceRole>().notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("scim_group_mappings_pair_idx").on(table.scimGroupId, table.workspaceId), index("scim_group_mappings_workspace_idx").on(table.workspaceId)],
);

const sameScimRows: [
  Same<Rows<typeof scimTokens>, Rows<typeof people.scimTokens>>,
  Same<Rows<typeof scimGroups>, Rows<typeof people.scimGroups>>,
  Same<Rows<typeof scimGroupMembers>, Rows<typeof people.scimGroupMembers>>,
  Same<Rows<typeof scimGroupMappings>, Rows<typeof people.scimGroupMappings>>,
] = [true, true, true, true];
void sameScimRows;
/** OAuth authorization codes (hashes only; see schema-people.ts). */
export const oauthCodes = pgTable(
  "oauth_codes",
  {
    hash: text("hash").primaryKey(),
    memberId: text("member_id").references(() => members.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    callbackUrl: text("callback_url").notNull(),
    codeChallenge: text("code_challenge"),
    codeChallengeMethod: text("code_challenge_method").$type<CodeChallengeMethod>(),
    keyLabel: text("key_label"),
    limit: doublePrecision("limit"),
    usageLimitType: text("usage_limit_type").$type<"daily" | "weekly" | "monthly">(),
    keyExpiresAt: text("key_expires_at"),
    appName: text("app_name").notNull(),
    appId: bigint("app_id", { mode: "number" }).notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
    issuedKeyHash: text("issued_key_hash"),
  },
  (table) => [index("oauth_codes_expires_idx").on(table.expiresAt)],
);

const sameOAuthRows: Same<Rows<typeof oauthCodes>, Rows<typeof people.oauthCodes>> = true;
void sameOAuthRows;
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
