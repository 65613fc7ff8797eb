import { bigint, boolean, doublePrecision, index, pgTable, primaryKey, uniqueIndex } from "drizzle-orm/pg-core";
import type * as people from "./schema-people.ts";
import type { CodeChallengeMethod, MembershipSource, OrganizationRole, SessionKind, WorkspaceRole } from "./schema-people.ts";
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
