import type { BuiltinFilter, CustomFilter } from "../core/content-filters.ts";
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { FilterRules } from "../core/broadcast.ts";
import { apiKeys, workspaces } from "./schema.ts";

/*
 * The operation groups' tables (guardrails, observability destinations, BYOK credentials, files), kept
 * apart from the core schema (schema.ts) so each file stays readable. drizzle-kit reads both files.
 */

/** Guardrails: a workspace's policy objects (budget, model and provider lists, data policy). */
export const guardrails = sqliteTable(
  "guardrails",
  {
    /** A UUID, or for a workspace's default guardrail an id derived from the workspace's. */
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    limitUsd: real("limit_usd"),
    resetInterval: text("reset_interval", { enum: ["daily", "weekly", "monthly"] }),
    includeByokInBudgets: integer("include_byok_in_budgets", { mode: "boolean" }).notNull().default(false),
    allowedModels: text("allowed_models", { mode: "json" }).$type<string[] | null>(),
    ignoredModels: text("ignored_models", { mode: "json" }).$type<string[] | null>(),
    allowedProviders: text("allowed_providers", { mode: "json" }).$type<string[] | null>(),
    ignoredProviders: text("ignored_providers", { mode: "json" }).$type<string[] | null>(),
    /** The ZDR and training switches by name (`enforce_zdr_openai`, `enable_paid_model_training`, ...); null = not set. */
    dataPolicy: text("data_policy", { mode: "json" }).$type<Record<string, boolean | null>>().notNull(),
    /** Builtin content filters (`[{slug, action}]`) and the guardrail's own patterns (`[{pattern, action, label}]`); null = none. */
    contentFilterBuiltins: text("content_filter_builtins", { mode: "json" }).$type<BuiltinFilter[] | null>(),
    contentFilters: text("content_filters", { mode: "json" }).$type<CustomFilter[] | null>(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at"),
  },
  (table) => [index("guardrails_workspace_idx").on(table.workspaceId, table.createdAt)],
);

export type GuardrailRow = typeof guardrails.$inferSelect;

/** Which key holds which guardrail: a key holds at most one (assigning another replaces it). */
export const guardrailKeyAssignments = sqliteTable(
  "guardrail_key_assignments",
  {
    id: text("id").primaryKey(),
    guardrailId: text("guardrail_id")
      .notNull()
      .references(() => guardrails.id, { onDelete: "cascade" }),
    keyHash: text("key_hash")
      .notNull()
      .unique()
      .references(() => apiKeys.hash, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    assignedBy: text("assigned_by"),
    createdAt: text("created_at").notNull(),
  },
  (table) => [index("guardrail_key_assignments_guardrail_idx").on(table.guardrailId, table.createdAt)],
);

export type GuardrailKeyAssignmentRow = typeof guardrailKeyAssignments.$inferSelect;

/**
 * Broadcast destinations of a workspace (`/observability/destinations`): where its generation records
 * are exported as traces. `config` holds the non-secret settings; `secrets_enc` the sealed headers and
 * keys. A deleted destination is kept with `deleted_at` set (a soft delete) and never exported to.
 */
export const observabilityDestinations = sqliteTable(
  "observability_destinations",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    name: text("name").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    privacyMode: integer("privacy_mode", { mode: "boolean" }).notNull(),
    samplingRate: real("sampling_rate").notNull(),
    apiKeyHashes: text("api_key_hashes", { mode: "json" }).$type<string[] | null>(),
    filterRules: text("filter_rules", { mode: "json" }).$type<FilterRules | null>(),
    broadcastGenerationCost: integer("broadcast_generation_cost", { mode: "boolean" }).notNull(),
    broadcastGenerationIdentity: integer("broadcast_generation_identity", { mode: "boolean" }).notNull(),
    broadcastGenerationRequestContext: integer("broadcast_generation_request_context", { mode: "boolean" }).notNull(),
    config: text("config", { mode: "json" }).$type<Record<string, string>>().notNull(),
    secretsEnc: blob("secrets_enc", { mode: "buffer" }).notNull(),
    deletedAt: text("deleted_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [index("observability_destinations_workspace_idx").on(table.workspaceId, table.createdAt)],
);

export type ObservabilityDestinationRow = typeof observabilityDestinations.$inferSelect;

/**
 * BYOK provider credentials (`/byok`): a workspace's own upstream keys per provider slug, sealed
 * (`key_enc`, wiped on delete) and tried in `sort_order`, fallback ones last. Null allow-lists allow all.
 */
export const byokKeys = sqliteTable(
  "byok_keys",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(),
    name: text("name"),
    label: text("label").notNull(),
    keyEnc: blob("key_enc", { mode: "buffer" }),
    disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
    isFallback: integer("is_fallback", { mode: "boolean" }).notNull().default(false),
    sortOrder: integer("sort_order").notNull(),
    allowedApiKeyHashes: text("allowed_api_key_hashes", { mode: "json" }).$type<string[] | null>(),
    allowedModels: text("allowed_models", { mode: "json" }).$type<string[] | null>(),
    allowedUserIds: text("allowed_user_ids", { mode: "json" }).$type<string[] | null>(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    deletedAt: text("deleted_at"),
  },
  (table) => [index("byok_keys_workspace_provider_idx").on(table.workspaceId, table.provider, table.sortOrder)],
);

export type ByokKeyRow = typeof byokKeys.$inferSelect;

/** Uploaded files (`/files`) of a workspace: metadata here, the bytes in `file_chunks`. */
export const files = sqliteTable(
  "files",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    filename: text("filename").notNull(),
    mimeType: text("mime_type").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    sha256: text("sha256").notNull(),
    createdAt: text("created_at").notNull(),
    /** An upload still arriving (its chunks written as they come): invisible until complete, removed if it fails. */
    pending: integer("pending", { mode: "boolean" }).notNull().default(false),
  },
  (table) => [index("files_workspace_id_idx").on(table.workspaceId, table.id)],
);

export type FileRow = typeof files.$inferSelect;

/** A file's bytes in order, at most FILE_CHUNK_BYTES a row (src/db/files.ts). */
export const fileChunks = sqliteTable(
  "file_chunks",
  {
    fileId: text("file_id")
      .notNull()
      .references(() => files.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    data: blob("data", { mode: "buffer" }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.fileId, table.seq] })],
);

/**
 * A generation's content (`/generation/content`), kept only when its workspace logs I/O: the client's
 * input, the answer and the failure as one JSON document sealed with the SecretBox (bound to workspace
 * and generation). No foreign key to `generations`: records are written behind, in batches.
 */
export const generationContents = sqliteTable(
  "generation_contents",
  {
    generationId: text("generation_id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    contentEnc: blob("content_enc", { mode: "buffer" }).notNull(),
    createdAt: text("created_at").notNull(),
  },
  (table) => [index("generation_contents_workspace_idx").on(table.workspaceId, table.createdAt)],
);

export type GenerationContentRow = typeof generationContents.$inferSelect;

/** Feedback on a generation (`POST /generation/feedback`): one per generation, a later one replaces it. */
export const generationFeedback = sqliteTable(
  "generation_feedback",
  {
    generationId: text("generation_id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    category: text("category", { enum: ["latency", "incoherence", "incorrect_response", "formatting", "billing", "api_error", "other"] }).notNull(),
    comment: text("comment"),
    /** The management key that gave it. */
    keyHash: text("key_hash").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [index("generation_feedback_workspace_idx").on(table.workspaceId, table.updatedAt)],
);

export type GenerationFeedbackRow = typeof generationFeedback.$inferSelect;

/**
 * Daily sums of the generation log per workspace, model, endpoint, key, API style and status, and
 * hourly sums of the same groups but for the key, kept in the transaction that writes each batch of
 * records (generation-writer.ts). A daily row has no `hour`; an hourly row names its hour (and its
 * day) and has no key. `/activity`, `/credits` and the
 * analytics queries of an hour or coarser read these instead of the records. `id` is the group's
 * values as a JSON array (see generation-rollup.ts).
 */
export const generationRollups = sqliteTable(
  "generation_rollups",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    /** The UTC day, YYYY-MM-DD. */
    day: text("day").notNull(),
    model: text("model").notNull(),
    providerSlug: text("provider_slug"),
    providerName: text("provider_name"),
    upstreamModel: text("upstream_model"),
    /** Null on an hourly row: it sums every key (queries by key read the daily rows and the records). */
    keyHash: text("key_hash"),
    style: text("style").notNull(),
    status: integer("status").notNull(),
    requests: integer("requests").notNull(),
    totalCost: real("total_cost").notNull(),
    tokensPrompt: integer("tokens_prompt").notNull(),
    tokensCompletion: integer("tokens_completion").notNull(),
    tokensReasoning: integer("tokens_reasoning").notNull(),
    tokensCached: integer("tokens_cached").notNull(),
    /** Sum and count of the records' latencies (those that have one), for the average. */
    latencySum: integer("latency_sum").notNull(),
    latencyCount: integer("latency_count").notNull(),
    generationTimeSum: integer("generation_time_sum").notNull(),
    generationTimeCount: integer("generation_time_count").notNull(),
    /** Generation time of the records with completion tokens (throughput's denominator). */
    completionTimeSum: integer("completion_time_sum").notNull(),
    /** Cost of the records served with a BYOK credential (part of total_cost). */
    byokCost: real("byok_cost").notNull().default(0),
    /** The UTC hour of an hourly row, YYYY-MM-DDTHH (a record's `created_at` cut there); null on a daily row. */
    hour: text("hour"),
  },
  (table) => [
    index("generation_rollups_workspace_hour_day_idx").on(table.workspaceId, table.hour, table.day),
    // A key's daily rows in day order with their costs: what keys spent (key-usage.ts) is read from the index alone.
    index("generation_rollups_key_day_cost_idx").on(table.keyHash, table.day, table.totalCost, table.byokCost),
  ],
);

export type GenerationRollupRow = typeof generationRollups.$inferSelect;
