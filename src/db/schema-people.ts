import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "./schema.ts";
import { guardrails } from "./schema-groups.ts";

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

/**
 * A guardrail assigned to a member: it applies to every key the member created in the guardrail's
 * workspace, and its budget is one ledger per member (the member's keys' spend together). A member
 * holds at most one guardrail per workspace (assigning another replaces it).
 */
export const guardrailMemberAssignments = sqliteTable(
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

export type GuardrailMemberAssignmentRow = typeof guardrailMemberAssignments.$inferSelect;
/*
 * SCIM 2.0 provisioning: the identity provider's bearer tokens, the groups it pushes with their members,
 * and the mappings that turn group membership into workspace memberships (source `scim`).
 */

/** A bearer token the identity provider calls `/scim/v2` with; only its SHA-256 is stored. */
export const scimTokens = sqliteTable("scim_tokens", {
  /** `scimtok_` followed by a UUID. */
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** SHA-256 of the token, hex. */
  hash: text("hash").notNull().unique(),
  createdAt: text("created_at").notNull(),
  lastUsedAt: text("last_used_at"),
  revokedAt: text("revoked_at"),
});

export type ScimTokenRow = typeof scimTokens.$inferSelect;

/** A group the identity provider pushed (`/scim/v2/Groups`). */
export const scimGroups = sqliteTable(
  "scim_groups",
  {
    /** A UUID. */
    id: text("id").primaryKey(),
    displayName: text("display_name").notNull(),
    externalId: text("external_id"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("scim_groups_display_name_idx").on(table.displayName), index("scim_groups_created_idx").on(table.createdAt)],
);

export type ScimGroupRow = typeof scimGroups.$inferSelect;

/** A member of a SCIM group. */
export const scimGroupMembers = sqliteTable(
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

export type ScimGroupMemberRow = typeof scimGroupMembers.$inferSelect;

/** Grants a SCIM group's members a role in a workspace; one mapping per group and workspace. */
export const scimGroupMappings = sqliteTable(
  "scim_group_mappings",
  {
    /** A UUID. */
    id: text("id").primaryKey(),
    scimGroupId: text("scim_group_id")
      .notNull()
      .references(() => scimGroups.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    role: text("role", { enum: WORKSPACE_ROLES }).notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("scim_group_mappings_pair_idx").on(table.scimGroupId, table.workspaceId), index("scim_group_mappings_workspace_idx").on(table.workspaceId)],
);

export type ScimGroupMappingRow = typeof scimGroupMappings.$inferSelect;
/** How a PKCE code challenge was derived from its verifier (RFC 7636). */
export const CODE_CHALLENGE_METHODS = ["S256", "plain"] as const;
export type CodeChallengeMethod = (typeof CODE_CHALLENGE_METHODS)[number];

/**
 * An OAuth authorization code (PKCE key issuance): issued at consent (or by a management key), exchanged
 * once for an inference key in its workspace. Only the SHA-256 of the code is stored. The exchange
 * marks it used; a second exchange disables the key the first one issued.
 */
export const oauthCodes = sqliteTable(
  "oauth_codes",
  {
    hash: text("hash").primaryKey(),
    /** The member who consented; null for a code a management key created. */
    memberId: text("member_id").references(() => members.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    callbackUrl: text("callback_url").notNull(),
    codeChallenge: text("code_challenge"),
    codeChallengeMethod: text("code_challenge_method", { enum: CODE_CHALLENGE_METHODS }),
    /** The issued key's name (default: the app's name). */
    keyLabel: text("key_label"),
    /** The issued key's credit limit and its reset period. */
    limit: real("limit"),
    usageLimitType: text("usage_limit_type", { enum: ["daily", "weekly", "monthly"] }),
    /** The issued key's expiry. */
    keyExpiresAt: text("key_expires_at"),
    /** The app: the callback's host (`localhost:<port>` for a loopback callback) and a number derived from it. */
    appName: text("app_name").notNull(),
    appId: integer("app_id").notNull(),
    createdAt: text("created_at").notNull(),
    /** The code's own expiry (10 minutes after creation). */
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
    /** The hash of the key the exchange issued. */
    issuedKeyHash: text("issued_key_hash"),
  },
  (table) => [index("oauth_codes_expires_idx").on(table.expiresAt)],
);

export type OAuthCodeRow = typeof oauthCodes.$inferSelect;
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
