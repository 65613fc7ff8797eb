import type { AttemptSummary, GenerationRow } from "../core/generation.ts";
import type { GuardrailFlag } from "../core/content-filters.ts";
import type { Usage } from "../core/usage.ts";
import { sql } from "drizzle-orm";
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { VideoRequest, VideoStatus } from "../core/operations.ts";
import type { BudgetInterval } from "../core/ledgers.ts";

/**
 * The whole persistent state. Timestamps are ISO 8601 strings in UTC; booleans are integers;
 * `*_enc` columns hold AES-256-GCM ciphertext (see src/core/secret-box.ts), never plaintext.
 */

export const workspaces = sqliteTable("workspaces", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  slug: text("slug").notNull().unique(),
  description: text("description"),
  /** Access to the Intern API programme: gates every /interns and /vault route. */
  internApiAccess: integer("intern_api_access", { mode: "boolean" }).notNull().default(false),
  /** Workspace-wide provider allow and deny lists, merged with a request's `only` and `ignore`. */
  allowedProviders: text("allowed_providers", { mode: "json" }).$type<string[] | null>(),
  ignoredProviders: text("ignored_providers", { mode: "json" }).$type<string[] | null>(),
  /** Keep requests in one region: only endpoints whose region starts with this ("eu", "us") serve them. */
  dataRegion: text("data_region"),
  defaultTextModel: text("default_text_model"),
  defaultImageModel: text("default_image_model"),
  defaultProviderSort: text("default_provider_sort"),
  disabledServerTools: text("disabled_server_tools", { mode: "json" }).$type<string[] | null>(),
  ioLoggingApiKeyIds: text("io_logging_api_key_ids", { mode: "json" }).$type<number[] | null>(),
  ioLoggingSamplingRate: real("io_logging_sampling_rate").notNull().default(1),
  isDataDiscountLoggingEnabled: integer("is_data_discount_logging_enabled", { mode: "boolean" }).notNull().default(false),
  isObservabilityBroadcastEnabled: integer("is_observability_broadcast_enabled", { mode: "boolean" }).notNull().default(false),
  isObservabilityIoLoggingEnabled: integer("is_observability_io_logging_enabled", { mode: "boolean" }).notNull().default(false),
  includeByokInBudgets: integer("include_byok_in_budgets", { mode: "boolean" }).notNull().default(false),
  createdBy: text("created_by"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at"),
});

export const interns = sqliteTable(
  "interns",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    instructions: text("instructions"),
    model: text("model"),
    status: text("status").notNull(),
    hostname: text("hostname"),
    lastFailureMessage: text("last_failure_message"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [index("interns_workspace_idx").on(table.workspaceId, table.createdAt)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    /** SHA-256 of the plaintext key, hex. The plaintext is never stored. */
    hash: text("hash").primaryKey(),
    kind: text("kind", { enum: ["management", "inference", "intern"] }).notNull(),
    /** A management key that administers the whole deployment: every workspace, not only its own. */
    deploymentAdmin: integer("deployment_admin", { mode: "boolean" }).notNull().default(false),
    name: text("name").notNull(),
    label: text("label").notNull(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "restrict" }),
    internId: text("intern_id").references(() => interns.id, { onDelete: "cascade" }),
    disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
    limit: real("limit"),
    limitReset: text("limit_reset", { enum: ["daily", "weekly", "monthly"] }),
    includeByokInLimit: integer("include_byok_in_limit", { mode: "boolean" }).notNull().default(false),
    /** The key's own rate limits over a sliding minute; null takes the configured default. */
    requestsPerMinute: integer("requests_per_minute"),
    tokensPerMinute: integer("tokens_per_minute"),
    expiresAt: text("expires_at"),
    creatorUserId: text("creator_user_id"),
    externalUser: text("external_user"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at"),
  },
  (table) => [index("api_keys_workspace_idx").on(table.workspaceId, table.createdAt)],
);

export const connections = sqliteTable(
  "connections",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    credentialsEnc: blob("credentials_enc", { mode: "buffer" }),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    lastTestOk: integer("last_test_ok", { mode: "boolean" }),
    lastTestAt: text("last_test_at"),
    lastTestMessage: text("last_test_message"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("connections_workspace_key_idx").on(table.workspaceId, table.key)],
);

/** Per-intern settings of a connection: turned off or hidden for that intern. */
export const internConnectionSettings = sqliteTable(
  "intern_connection_settings",
  {
    internId: text("intern_id")
      .notNull()
      .references(() => interns.id, { onDelete: "cascade" }),
    connectionId: text("connection_id")
      .notNull()
      .references(() => connections.id, { onDelete: "cascade" }),
    turnedOff: integer("turned_off", { mode: "boolean" }).notNull().default(false),
    hidden: integer("hidden", { mode: "boolean" }).notNull().default(false),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.internId, table.connectionId] })],
);

/** Features given to an intern (declared in the config; recorded here by id). */
export const internFeatures = sqliteTable(
  "intern_features",
  {
    internId: text("intern_id")
      .notNull()
      .references(() => interns.id, { onDelete: "cascade" }),
    featureId: text("feature_id").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.internId, table.featureId] })],
);

export const vaultSecrets = sqliteTable(
  "vault_secrets",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** Null for a workspace secret; the owning intern for an intern secret. */
    internId: text("intern_id").references(() => interns.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    hosts: text("hosts", { mode: "json" }).$type<string[] | null>(),
    valueEnc: blob("value_enc", { mode: "buffer" }).notNull(),
    fingerprint: text("fingerprint"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [
    uniqueIndex("vault_secrets_workspace_name_idx")
      .on(table.workspaceId, table.name)
      .where(sql`${table.internId} is null`),
    uniqueIndex("vault_secrets_intern_name_idx")
      .on(table.internId, table.name)
      .where(sql`${table.internId} is not null`),
  ],
);

export const presets = sqliteTable(
  "presets",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    status: text("status").notNull().default("active"),
    statusUpdatedAt: text("status_updated_at"),
    creatorUserId: text("creator_user_id").notNull(),
    designatedVersionId: text("designated_version_id"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [
    uniqueIndex("presets_workspace_slug_idx").on(table.workspaceId, table.slug),
    index("presets_workspace_updated_idx").on(table.workspaceId, table.updatedAt),
  ],
);

export const presetVersions = sqliteTable(
  "preset_versions",
  {
    id: text("id").primaryKey(),
    presetId: text("preset_id")
      .notNull()
      .references(() => presets.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    config: text("config", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    systemPrompt: text("system_prompt"),
    creatorId: text("creator_id").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("preset_versions_preset_version_idx").on(table.presetId, table.version)],
);

export type WorkspaceRow = typeof workspaces.$inferSelect;
export type InternRow = typeof interns.$inferSelect;
export type InternFeatureRow = typeof internFeatures.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type ConnectionRow = typeof connections.$inferSelect;
export type VaultSecretRow = typeof vaultSecrets.$inferSelect;
export type PresetRow = typeof presets.$inferSelect;
export type PresetVersionRow = typeof presetVersions.$inferSelect;

/** One row per inference request, written behind the response in batches. */
export const generations = sqliteTable(
  "generations",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    keyHash: text("key_hash").notNull(),
    requestId: text("request_id"),
    style: text("style").notNull(),
    model: text("model").notNull(),
    providerSlug: text("provider_slug"),
    providerName: text("provider_name"),
    upstreamModel: text("upstream_model"),
    upstreamId: text("upstream_id"),
    presetId: text("preset_id"),
    streamed: integer("streamed", { mode: "boolean" }).notNull(),
    cancelled: integer("cancelled", { mode: "boolean" }).notNull().default(false),
    status: integer("status").notNull(),
    errorCode: text("error_code"),
    finishReason: text("finish_reason"),
    nativeFinishReason: text("native_finish_reason"),
    tokensPrompt: integer("tokens_prompt"),
    tokensCompletion: integer("tokens_completion"),
    tokensCached: integer("tokens_cached"),
    tokensCacheWrite: integer("tokens_cache_write"),
    tokensReasoning: integer("tokens_reasoning"),
    mediaPrompt: integer("media_prompt"),
    totalCost: real("total_cost").notNull().default(0),
    latencyMs: integer("latency_ms"),
    generationTimeMs: integer("generation_time_ms"),
    sessionId: text("session_id"),
    externalUser: text("external_user"),
    userAgent: text("user_agent"),
    httpReferer: text("http_referer"),
    serviceTier: text("service_tier"),
    attempts: text("attempts", { mode: "json" }).$type<Array<{ provider: string; endpoint: string; status: number; code?: string; latency_ms: number; warnings?: string[] }>>(),
    /** What the gateway left out of the request and why (unsupported parameters it dropped). */
    warnings: text("warnings", { mode: "json" }).$type<string[]>(),
    /** What the generation consumed by meter (tokens, images, audio seconds, characters, ...), zero meters left out. */
    meters: text("meters", { mode: "json" }).$type<Partial<Usage>>(),
    /** USD cost per meter (`prompt`, `completion`, `audio_second`, ...); they sum to total_cost. */
    costs: text("costs", { mode: "json" }).$type<Record<string, number>>(),
    /** The task the auto-router's classifier assigned, or null. */
    task: text("task"),
    createdAt: text("created_at").notNull(),
    /** The attempt that answered sent a BYOK credential of the workspace. */
    isByok: integer("is_byok", { mode: "boolean" }).notNull().default(false),
    /** The guardrails' flagging content filters that matched (guardrail and filter, never the matched text), or null. */
    guardrailFlags: text("guardrail_flags", { mode: "json" }).$type<GuardrailFlag[]>(),
  },
  (table) => [
    // A workspace's records in time order, with the status: the analytics queries the daily rollups
    // cannot answer (buckets under a day) read request and error counts from this index alone.
    index("generations_workspace_created_status_idx").on(table.workspaceId, table.createdAt, table.status),
    // A key's records in time order with what they cost: what a key spent since a moment is read from
    // the index alone (key-usage.ts, spend limits).
    index("generations_key_created_cost_idx").on(table.keyHash, table.createdAt, table.totalCost, table.isByok),
    // The generations list filtered by model, or by provider, newest first (analytics.ts `recent`): a
    // rarely used (or unknown) model or provider is found without walking the workspace's records, and
    // a status filter beside it is checked on the index, without reading the records it leaves out.
    index("generations_workspace_model_created_idx").on(table.workspaceId, table.model, table.createdAt, table.status),
    index("generations_workspace_provider_created_idx").on(table.workspaceId, table.providerSlug, table.createdAt, table.status),
  ],
);

export type { GenerationRow } from "../core/generation.ts";

/** The table and the domain type agree, both ways (a column added to one only fails to compile). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const generationRowMatchesTable: Same<typeof generations.$inferSelect, GenerationRow> = true;
void generationRowMatchesTable;

/** Video generation jobs (POST /videos): polled upstream until they settle, kept until they expire. */
export const videoJobs = sqliteTable(
  "video_jobs",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    keyHash: text("key_hash").notNull(),
    generationId: text("generation_id").notNull(),
    model: text("model").notNull(),
    providerSlug: text("provider_slug").notNull(),
    endpointKey: text("endpoint_key").notNull(),
    upstreamId: text("upstream_id").notNull(),
    status: text("status").$type<VideoStatus>().notNull(),
    outputs: integer("outputs"),
    error: text("error"),
    request: text("request", { mode: "json" }).$type<VideoRequest>().notNull(),
    attempts: text("attempts", { mode: "json" }).$type<AttemptSummary[]>().notNull(),
    usage: text("usage", { mode: "json" }).$type<Usage>(),
    cost: real("cost").notNull().default(0),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    completedAt: text("completed_at"),
    expiresAt: text("expires_at").notNull(),
    /** The guardrails' flagging content filters the prompt matched, recorded with the job's generation. */
    guardrailFlags: text("guardrail_flags", { mode: "json" }).$type<GuardrailFlag[]>(),
  },
  (table) => [index("video_jobs_status_created_idx").on(table.status, table.createdAt), index("video_jobs_expires_idx").on(table.expiresAt)],
);

export type VideoJobRow = typeof videoJobs.$inferSelect;

/**
 * A workspace's spend budgets, one per interval (`daily`, `weekly`, `monthly`, `lifetime`): each is one
 * ledger pooled over all of the workspace's keys. Whether they count BYOK spend is the workspace's
 * `include_byok_in_budgets`.
 */
export const workspaceBudgets = sqliteTable(
  "workspace_budgets",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    resetInterval: text("reset_interval").$type<BudgetInterval>().notNull(),
    limitUsd: real("limit_usd").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("workspace_budgets_workspace_interval_idx").on(table.workspaceId, table.resetInterval)],
);

export type WorkspaceBudgetRow = typeof workspaceBudgets.$inferSelect;
