import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "./schema.ts";

/*
 * People: the organization's members, their workspace memberships and their signed-in sessions (and,
 * appended below by each part, SCIM groups, OAuth codes and the audit log). Kept apart from the core
 * schema (schema.ts) so each file stays readable; drizzle-kit reads every schema file.
 */

/** The organization roles: an owner or admin administers every workspace; a member only what a workspace grants. */
export const ORGANIZATION_ROLES = ["owner", "admin", "member"] as const;
export type OrganizationRole = (typeof ORGANIZATION_ROLES)[number];

/** The workspace roles: an admin manages the workspace (keys, guardrails, members); a member uses it. */
export const WORKSPACE_ROLES = ["admin", "member"] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];

/** How a membership came to be: granted through the API, by a SCIM group mapping, or by an SSO group claim. */
export const MEMBERSHIP_SOURCES = ["manual", "scim", "sso"] as const;
export type MembershipSource = (typeof MEMBERSHIP_SOURCES)[number];

/** A person of the organization: a local account, or one provisioned by SCIM or first seen at SSO sign-in. */
export const members = sqliteTable(
  "members",
  {
    /** `user_` followed by a UUID. */
    id: text("id").primaryKey(),
    /** Lower-cased; unique across the organization. */
    email: text("email").notNull(),
    firstName: text("first_name"),
    lastName: text("last_name"),
    role: text("role", { enum: ORGANIZATION_ROLES }).notNull().default("member"),
    /** False once deprovisioned: no sign-in, no session, and every key the member created disabled. */
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    /** The identity provider's subject (`<issuer> <sub>`), set at the first OIDC sign-in. */
    oidcSubject: text("oidc_subject"),
    /** SCIM's `externalId`; a member created or claimed by SCIM is managed there (the API cannot remove it). */
    externalId: text("external_id"),
    scimManaged: integer("scim_managed", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("members_email_idx").on(table.email), uniqueIndex("members_oidc_subject_idx").on(table.oidcSubject), index("members_created_idx").on(table.createdAt)],
);

export type MemberRow = typeof members.$inferSelect;

/** A member's role in one workspace. */
export const workspaceMembers = sqliteTable(
  "workspace_members",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    role: text("role", { enum: WORKSPACE_ROLES }).notNull(),
    source: text("source", { enum: MEMBERSHIP_SOURCES }).notNull().default("manual"),
    createdAt: text("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.workspaceId, table.memberId] }), index("workspace_members_member_idx").on(table.memberId)],
);

export type WorkspaceMemberRow = typeof workspaceMembers.$inferSelect;

/** How a session was opened: OIDC sign-in (a member) or a management key typed into the sign-in page. */
export const SESSION_KINDS = ["oidc", "management-key"] as const;
export type SessionKind = (typeof SESSION_KINDS)[number];

/**
 * A signed-in browser or CLI session. Only the SHA-256 of the session token is stored; the token lives
 * in an HttpOnly cookie. A member's session ends at expiry, sign-out, or the member's deprovisioning.
 */
export const memberSessions = sqliteTable(
  "member_sessions",
  {
    hash: text("hash").primaryKey(),
    kind: text("kind", { enum: SESSION_KINDS }).notNull(),
    /** The signed-in member (OIDC sessions). */
    memberId: text("member_id").references(() => members.id, { onDelete: "cascade" }),
    /** The management key a `management-key` session acts as (its hash). */
    keyHash: text("key_hash"),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    revokedAt: text("revoked_at"),
  },
  (table) => [index("member_sessions_member_idx").on(table.memberId), index("member_sessions_expires_idx").on(table.expiresAt)],
);

export type MemberSessionRow = typeof memberSessions.$inferSelect;

/** Who performed an audited action: a key, a signed-in member, a SCIM token, or nobody known. */
export const AUDIT_ACTOR_KINDS = ["key", "member", "scim-token", "anonymous"] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

/**
 * The audit log: one entry per management action, append-only and chained (each entry's hash covers
 * its fields and the previous entry's hash; see src/core/audit-chain.ts). `seq` counts from 1 without
 * gaps. No foreign keys: entries outlive the workspaces, keys and members they name.
 */
export const auditLog = sqliteTable(
  "audit_log",
  {
    seq: integer("seq").primaryKey(),
    /** A UUID (v7). */
    id: text("id").notNull(),
    at: text("at").notNull(),
    actorKind: text("actor_kind", { enum: AUDIT_ACTOR_KINDS }).notNull(),
    /** The key's hash, the member's id or the SCIM token's id; never a secret. */
    actorId: text("actor_id"),
    workspaceId: text("workspace_id"),
    /** The method and route template, e.g. `DELETE /keys/:hash`. */
    action: text("action").notNull(),
    /** The route parameters' values (the ids acted on), joined by `/`. */
    target: text("target"),
    /** The HTTP status answered. */
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

export type AuditLogRow = typeof auditLog.$inferSelect;
