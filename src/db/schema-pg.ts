import type { AttemptSummary } from "../core/generation.ts";
import type { GuardrailFlag } from "../core/content-filters.ts";
import type { Usage } from "../core/usage.ts";
import { sql } from "drizzle-orm";
import { boolean, doublePrecision, index, integer, pgTable, primaryKey, uniqueIndex } from "drizzle-orm/pg-core";
import type * as lite from "./schema.ts";
import type { VideoRequest, VideoStatus } from "../core/operations.ts";
import type { BudgetInterval } from "../core/ledgers.ts";

/**
 * The same state as schema.ts, in PostgreSQL's types, for team mode. Column names and the TypeScript
 * types of every row are identical (checked at the end of this file), so one repository code path
 * serves both dialects: timestamps stay ISO 8601 text, JSON is jsonb, ciphertext is bytea.
 */

import { bytea, jsonb, text } from "./schema-pg-types.ts";

export const workspaces = pgTable("workspaces", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  slug: text("slug").notNull().unique(),
  description: text("description"),
  /** Access to the Intern API programme: gates every /interns and /vault route. */
  internApiAccess: boolean("intern_api_access").notNull().default(false),
  /** Workspace-wide provider allow and deny lists, merged with a request's `only` and `ignore`. */
  allowedProviders: jsonb("allowed_providers").$type<string[] | null>(),
  ignoredProviders: jsonb("ignored_providers").$type<string[] | null>(),
  /** Keep requests in one region: only endpoints whose region starts with this ("eu", "us") serve them. */
  dataRegion: text("data_region"),
  defaultTextModel: text("default_text_model"),
  defaultImageModel: text("default_image_model"),
  defaultProviderSort: text("default_provider_sort"),
  disabledServerTools: jsonb("disabled_server_tools").$type<string[] | null>(),
  ioLoggingApiKeyIds: jsonb("io_logging_api_key_ids").$type<number[] | null>(),
  ioLoggingSamplingRate: doublePrecision("io_logging_sampling_rate").notNull().default(1),
  isDataDiscountLoggingEnabled: boolean("is_data_discount_logging_enabled").notNull().default(false),
  isObservabilityBroadcastEnabled: boolean("is_observability_broadcast_enabled").notNull().default(false),
  isObservabilityIoLoggingEnabled: boolean("is_observability_io_logging_enabled").notNull().default(false),
  includeByokInBudgets: boolean("include_byok_in_budgets").notNull().default(false),
  createdBy: text("created_by"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at"),
});

export const interns = pgTable(
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

export const apiKeys = pgTable(
  "api_keys",
  {
    /** SHA-256 of the plaintext key, hex. The plaintext is never stored. */
    hash: text("hash").primaryKey(),
    kind: text("kind").$type<"management" | "inference" | "intern">().notNull(),
    /** A management key that administers the whole deployment: every workspace, not only its own. */
    deploymentAdmin: boolean("deployment_admin").notNull().default(false),
    name: text("name").notNull(),
    label: text("label").notNull(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "restrict" }),
    internId: text("intern_id").references(() => interns.id, { onDelete: "cascade" }),
    disabled: boolean("disabled").notNull().default(false),
    limit: doublePrecision("limit"),
    limitReset: text("limit_reset").$type<"daily" | "weekly" | "monthly">(),
    includeByokInLimit: boolean("include_byok_in_limit").notNull().default(false),
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

export const connections = pgTable(
  "connections",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    credentialsEnc: bytea("credentials_enc"),
    enabled: boolean("enabled").notNull().default(true),
    lastTestOk: boolean("last_test_ok"),
    lastTestAt: text("last_test_at"),
    lastTestMessage: text("last_test_message"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("connections_workspace_key_idx").on(table.workspaceId, table.key)],
);

/** Per-intern settings of a connection: turned off or hidden for that intern. */
export const internConnectionSettings = pgTable(
  "intern_connection_settings",
  {
    internId: text("intern_id")
      .notNull()
      .references(() => interns.id, { onDelete: "cascade" }),
    connectionId: text("connection_id")
      .notNull()
      .references(() => connections.id, { onDelete: "cascade" }),
    turnedOff: boolean("turned_off").notNull().default(false),
    hidden: boolean("hidden").notNull().default(false),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.internId, table.connectionId] })],
);

/** Features given to an intern (declared in the config; recorded here by id). */
export const internFeatures = pgTable(
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

export const vaultSecrets = pgTable(
  "vault_secrets",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** Null for a workspace secret; the owning intern for an intern secret. */
    internId: text("intern_id").references(() => interns.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    hosts: jsonb("hosts").$type<string[] | null>(),
    valueEnc: bytea("value_enc").notNull(),
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

export const presets = pgTable(
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

export const presetVersions = pgTable(
  "preset_versions",
  {
    id: text("id").primaryKey(),
    presetId: text("preset_id")
      .notNull()
      .references(() => presets.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    config: jsonb("config").$type<Record<string, unknown>>().notNull(),
    systemPrompt: text("system_prompt"),
    creatorId: text("creator_id").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("preset_versions_preset_version_idx").on(table.presetId, table.version)],
);

/** One row per inference request, written behind the response in batches. */
export const generations = pgTable(
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
    streamed: boolean("streamed").notNull(),
    cancelled: boolean("cancelled").notNull().default(false),
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
    totalCost: doublePrecision("total_cost").notNull().default(0),
    latencyMs: integer("latency_ms"),
    generationTimeMs: integer("generation_time_ms"),
    sessionId: text("session_id"),
    externalUser: text("external_user"),
    userAgent: text("user_agent"),
    httpReferer: text("http_referer"),
    serviceTier: text("service_tier"),
    attempts: jsonb("attempts").$type<Array<{ provider: string; endpoint: string; status: number; code?: string; latency_ms: number; warnings?: string[] }>>(),
    /** What the gateway left out of the request and why (unsupported parameters it dropped). */
    warnings: jsonb("warnings").$type<string[]>(),
    /** What the generation consumed by meter (tokens, images, audio seconds, characters, ...), zero meters left out. */
    meters: jsonb("meters").$type<Partial<Usage>>(),
    /** USD cost per meter (`prompt`, `completion`, `audio_second`, ...); they sum to total_cost. */
    costs: jsonb("costs").$type<Record<string, number>>(),
    /** The task the auto-router's classifier assigned, or null. */
    task: text("task"),
    createdAt: text("created_at").notNull(),
    /** The attempt that answered sent a BYOK credential of the workspace. */
    isByok: boolean("is_byok").notNull().default(false),
    /** The guardrails' flagging content filters that matched (guardrail and filter, never the matched text), or null. */
    guardrailFlags: jsonb("guardrail_flags").$type<GuardrailFlag[]>(),
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

/** Video generation jobs (POST /videos): polled upstream until they settle, kept until they expire. */
export const videoJobs = pgTable(
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
    request: jsonb("request").$type<VideoRequest>().notNull(),
    attempts: jsonb("attempts").$type<AttemptSummary[]>().notNull(),
    usage: jsonb("usage").$type<Usage>(),
    cost: doublePrecision("cost").notNull().default(0),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    completedAt: text("completed_at"),
    expiresAt: text("expires_at").notNull(),
    /** The guardrails' flagging content filters the prompt matched, recorded with the job's generation. */
    guardrailFlags: jsonb("guardrail_flags").$type<GuardrailFlag[]>(),
  },
  (table) => [index("video_jobs_status_created_idx").on(table.status, table.createdAt), index("video_jobs_expires_idx").on(table.expiresAt)],
);

/** Every table's rows have exactly the SQLite schema's TypeScript type, both ways. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Rows<T extends { $inferSelect: unknown }> = T["$inferSelect"];
const sameRows: [
  Same<Rows<typeof workspaces>, Rows<typeof lite.workspaces>>,
  Same<Rows<typeof interns>, Rows<typeof lite.interns>>,
  Same<Rows<typeof apiKeys>, Rows<typeof lite.apiKeys>>,
  Same<Rows<typeof connections>, Rows<typeof lite.connections>>,
  Same<Rows<typeof internConnectionSettings>, Rows<typeof lite.internConnectionSettings>>,
  Same<Rows<typeof internFeatures>, Rows<typeof lite.internFeatures>>,
  Same<Rows<typeof vaultSecrets>, Rows<typeof lite.vaultSecrets>>,
  Same<Rows<typeof presets>, Rows<typeof lite.presets>>,
  Same<Rows<typeof presetVersions>, Rows<typeof lite.presetVersions>>,
  Same<Rows<typeof generations>, Rows<typeof lite.generations>>,
  Same<Rows<typeof videoJobs>, Rows<typeof lite.videoJobs>>,
] = [true, true, true, true, true, true, true, true, true, true, true];
void sameRows;

/*
 * Team mode's shared state (PostgreSQL only): what a single process keeps in memory, replicas keep
 * here. The functions that use these tables atomically are in the custom migration `team_functions`.
 */

/** Requests and tokens per key and second, summed over a sliding minute by `roundhouse_admit`. */
export const rateWindows = pgTable(
  "rate_windows",
  {
    keyHash: text("key_hash").notNull(),
    second: integer("second").notNull(),
    requests: integer("requests").notNull().default(0),
    tokens: doublePrecision("tokens").notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.keyHash, table.second] })],
);

/** Spend recorded for a key since the start of its current limit period (kept by a trigger on generations). */
export const spendLedgers = pgTable("spend_ledgers", {
  keyHash: text("key_hash").primaryKey(),
  periodStart: text("period_start").notNull(),
  spent: doublePrecision("spent").notNull().default(0),
});

/** Spend reserved by requests in flight on any replica; a reservation a killed replica left expires. */
export const spendReservations = pgTable(
  "spend_reservations",
  {
    id: text("id").primaryKey(),
    keyHash: text("key_hash").notNull(),
    amount: doublePrecision("amount").notNull(),
    expiresAt: doublePrecision("expires_at").notNull(),
  },
  (table) => [index("spend_reservations_key_idx").on(table.keyHash)],
);

/** A workspace's spend budgets, one per interval (see schema.ts). */
export const workspaceBudgets = pgTable(
  "workspace_budgets",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    resetInterval: text("reset_interval").$type<BudgetInterval>().notNull(),
    limitUsd: doublePrecision("limit_usd").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("workspace_budgets_workspace_interval_idx").on(table.workspaceId, table.resetInterval)],
);
const sameWorkspaceBudgetRows: Same<Rows<typeof workspaceBudgets>, Rows<typeof lite.workspaceBudgets>> = true;
void sameWorkspaceBudgetRows;
