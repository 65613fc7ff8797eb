import type { BuiltinFilter, CustomFilter } from "../core/content-filters.ts";
import { bigint, boolean, doublePrecision, index, integer, pgTable, primaryKey, uniqueIndex } from "drizzle-orm/pg-core";
import type { FilterRules } from "../core/broadcast.ts";
import type * as groups from "./schema-groups.ts";
import { apiKeys, workspaces } from "./schema-pg.ts";
import { bytea, jsonb, text } from "./schema-pg-types.ts";

/*
 * The operation groups' tables in PostgreSQL's types (see schema-groups.ts), each checked to have the
 * SQLite table's row type exactly.
 */

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Rows<T extends { $inferSelect: unknown }> = T["$inferSelect"];

/** Guardrails and their assignments to keys (see schema.ts). */
export const guardrails = pgTable("guardrails", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  description: text("description"),
  limitUsd: doublePrecision("limit_usd"),
  resetInterval: text("reset_interval").$type<"daily" | "weekly" | "monthly">(),
  includeByokInBudgets: boolean("include_byok_in_budgets").notNull().default(false),
  allowedModels: jsonb("allowed_models").$type<string[] | null>(),
  ignoredModels: jsonb("ignored_models").$type<string[] | null>(),
  allowedProviders: jsonb("allowed_providers").$type<string[] | null>(),
  ignoredProviders: jsonb("ignored_providers").$type<string[] | null>(),
  dataPolicy: jsonb("data_policy").$type<Record<string, boolean | null>>().notNull(),
  contentFilterBuiltins: jsonb("content_filter_builtins").$type<BuiltinFilter[] | null>(),
  contentFilters: jsonb("content_filters").$type<CustomFilter[] | null>(),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at"),
}, (table) => [index("guardrails_workspace_idx").on(table.workspaceId, table.createdAt)]);
export const guardrailKeyAssignments = pgTable("guardrail_key_assignments", {
  id: text("id").primaryKey(),
  guardrailId: text("guardrail_id").notNull().references(() => guardrails.id, { onDelete: "cascade" }),
  keyHash: text("key_hash").notNull().unique().references(() => apiKeys.hash, { onDelete: "cascade" }),
  workspaceId: text("workspace_id").notNull(),
  assignedBy: text("assigned_by"),
  createdAt: text("created_at").notNull(),
}, (table) => [index("guardrail_key_assignments_guardrail_idx").on(table.guardrailId, table.createdAt)]);
/** Rows typed exactly as the SQLite tables' (exported only so that it is used). */
export const sameGuardrailRows: [Same<Rows<typeof guardrails>, Rows<typeof groups.guardrails>>, Same<Rows<typeof guardrailKeyAssignments>, Rows<typeof groups.guardrailKeyAssignments>>] = [true, true];


/** Broadcast destinations of a workspace (see schema.ts). */
export const observabilityDestinations = pgTable(
  "observability_destinations",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    name: text("name").notNull(),
    enabled: boolean("enabled").notNull(),
    privacyMode: boolean("privacy_mode").notNull(),
    samplingRate: doublePrecision("sampling_rate").notNull(),
    apiKeyHashes: jsonb("api_key_hashes").$type<string[] | null>(),
    filterRules: jsonb("filter_rules").$type<FilterRules | null>(),
    broadcastGenerationCost: boolean("broadcast_generation_cost").notNull(),
    broadcastGenerationIdentity: boolean("broadcast_generation_identity").notNull(),
    broadcastGenerationRequestContext: boolean("broadcast_generation_request_context").notNull(),
    config: jsonb("config").$type<Record<string, string>>().notNull(),
    secretsEnc: bytea("secrets_enc").notNull(),
    deletedAt: text("deleted_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [index("observability_destinations_workspace_idx").on(table.workspaceId, table.createdAt)],
);
const sameDestinationRows: Same<Rows<typeof observabilityDestinations>, Rows<typeof groups.observabilityDestinations>> = true;
void sameDestinationRows;

/** BYOK credentials, uploaded files and their bytes (see schema-groups.ts). */
export const byokKeys = pgTable(
  "byok_keys",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(), name: text("name"), label: text("label").notNull(), keyEnc: bytea("key_enc"),
    disabled: boolean("disabled").notNull().default(false), isFallback: boolean("is_fallback").notNull().default(false),
    sortOrder: integer("sort_order").notNull(),
    allowedApiKeyHashes: jsonb("allowed_api_key_hashes").$type<string[] | null>(),
    allowedModels: jsonb("allowed_models").$type<string[] | null>(), allowedUserIds: jsonb("allowed_user_ids").$type<string[] | null>(),
    createdAt: text("created_at").notNull(), updatedAt: text("updated_at").notNull(), deletedAt: text("deleted_at"),
  },
  (table) => [index("byok_keys_workspace_provider_idx").on(table.workspaceId, table.provider, table.sortOrder)],
);
export const files = pgTable("files", {
  id: text("id").primaryKey(), workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  filename: text("filename").notNull(), mimeType: text("mime_type").notNull(), sizeBytes: integer("size_bytes").notNull(),
  sha256: text("sha256").notNull(), createdAt: text("created_at").notNull(), pending: boolean("pending").notNull().default(false),
}, (table) => [index("files_workspace_id_idx").on(table.workspaceId, table.id)]);
export const fileChunks = pgTable("file_chunks", {
  fileId: text("file_id").notNull().references(() => files.id, { onDelete: "cascade" }), seq: integer("seq").notNull(), data: bytea("data").notNull(),
}, (table) => [primaryKey({ columns: [table.fileId, table.seq] })]);
const sameByokAndFileRows: [Same<Rows<typeof byokKeys>, Rows<typeof groups.byokKeys>>, Same<Rows<typeof files>, Rows<typeof groups.files>>, Same<Rows<typeof fileChunks>, Rows<typeof groups.fileChunks>>] = [true, true, true];
void sameByokAndFileRows;

/** Generation content (sealed) and feedback (see schema-groups.ts). */
export const generationContents = pgTable("generation_contents", {
  generationId: text("generation_id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  contentEnc: bytea("content_enc").notNull(),
  createdAt: text("created_at").notNull(),
}, (table) => [index("generation_contents_workspace_idx").on(table.workspaceId, table.createdAt)]);
export const generationFeedback = pgTable("generation_feedback", {
  generationId: text("generation_id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  category: text("category").$type<groups.GenerationFeedbackRow["category"]>().notNull(),
  comment: text("comment"),
  keyHash: text("key_hash").notNull(),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
}, (table) => [index("generation_feedback_workspace_idx").on(table.workspaceId, table.updatedAt)]);
const sameContentRows: [Same<Rows<typeof generationContents>, Rows<typeof groups.generationContents>>, Same<Rows<typeof generationFeedback>, Rows<typeof groups.generationFeedback>>] = [true, true];
void sameContentRows;
/** Daily and hourly sums of the generation log (see schema-groups.ts); sums are bigint here. */
const total = (name: string) => bigint(name, { mode: "number" }).notNull();
export const generationRollups = pgTable("generation_rollups", {
  id: text("id").primaryKey(), workspaceId: text("workspace_id").notNull(), day: text("day").notNull(), model: text("model").notNull(),
  providerSlug: text("provider_slug"), providerName: text("provider_name"), upstreamModel: text("upstream_model"),
  keyHash: text("key_hash"), style: text("style").notNull(), status: integer("status").notNull(),
  requests: total("requests"), totalCost: doublePrecision("total_cost").notNull(),
  tokensPrompt: total("tokens_prompt"), tokensCompletion: total("tokens_completion"), tokensReasoning: total("tokens_reasoning"), tokensCached: total("tokens_cached"),
  latencySum: total("latency_sum"), latencyCount: total("latency_count"), generationTimeSum: total("generation_time_sum"),
  generationTimeCount: total("generation_time_count"), completionTimeSum: total("completion_time_sum"),
  byokCost: doublePrecision("byok_cost").notNull().default(0), hour: text("hour"),
}, (table) => [
  index("generation_rollups_workspace_hour_day_idx").on(table.workspaceId, table.hour, table.day),
  index("generation_rollups_key_day_cost_idx").on(table.keyHash, table.day, table.totalCost, table.byokCost),
]);
const sameRollupRows: Same<Rows<typeof generationRollups>, Rows<typeof groups.generationRollups>> = true;
void sameRollupRows;
