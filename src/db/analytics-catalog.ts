import { type Column, type SQL, sql } from "drizzle-orm";
import type { Dialect, Tables } from "./backend.ts";
import { part } from "./analytics-parts.ts";

/**
 * What `/analytics/query` can measure and split by over the generation log: each metric is an
 * aggregate, each dimension a column of `generations`. `/analytics/meta` serves the same catalogue.
 */

type Generations = Tables["generations"];
type Rollups = Tables["generationRollups"];

/** How a client shows a metric's value. */
export type DisplayFormat = "number" | "currency" | "percent" | "latency" | "throughput";

/** A metric: its aggregate over the matching records. */
export interface MetricDefinition {
  name: string;
  label: string;
  format: DisplayFormat;
  /** An average or ratio (summing it over groups means nothing). */
  rate: boolean;
  expression(table: Generations): SQL;
  /** The same aggregate over the sums of analytics-parts.ts (the rollups and partial hours). */
  fromParts(dialect: Dialect): SQL;
}

/** A dimension: a column the rows are grouped (and filtered) by. */
export interface DimensionDefinition {
  name: string;
  label: string;
  /** The stored type: a filter's values are coerced to it. */
  type: "text" | "integer" | "boolean";
  column(table: Generations): Column;
  /** The column of the rollups (daily and hourly), when they keep this dimension. */
  rollup?: (table: Rollups) => Column;
  /** Kept by the daily rollups only: the hourly ones sum over it. */
  dailyOnly?: true;
}

const sumOf = (column: SQL | Column) => sql<number>`coalesce(sum(${column}), 0)`;
const failed = (table: Generations) => sql`case when ${table.status} >= 400 then 1 else 0 end`;

/** A division as each dialect's avg() computes it (SQLite: double; PostgreSQL: numeric), null over nothing. */
function ratio(dialect: Dialect, numerator: SQL, denominator: SQL): SQL<number> {
  return dialect === "postgres" ? sql<number>`${numerator}::numeric / nullif(${denominator}, 0)` : sql<number>`${numerator} * 1.0 / nullif(${denominator}, 0)`;
}
const total = (name: string) => sql<number>`coalesce(sum(${part(name)}), 0)`;
const summed = (name: string) => sql`sum(${part(name)})`;

/** Every metric, by name. */
export const METRICS: MetricDefinition[] = [
  { name: "request_count", label: "Request Count", format: "number", rate: false, expression: () => sql<number>`count(*)`, fromParts: () => total("requests") },
  { name: "total_cost", label: "Spend (USD)", format: "currency", rate: false, expression: (g) => sumOf(g.totalCost), fromParts: () => total("total_cost") },
  { name: "prompt_tokens", label: "Prompt Tokens", format: "number", rate: false, expression: (g) => sumOf(g.tokensPrompt), fromParts: () => total("tokens_prompt") },
  { name: "completion_tokens", label: "Completion Tokens", format: "number", rate: false, expression: (g) => sumOf(g.tokensCompletion), fromParts: () => total("tokens_completion") },
  { name: "reasoning_tokens", label: "Reasoning Tokens", format: "number", rate: false, expression: (g) => sumOf(g.tokensReasoning), fromParts: () => total("tokens_reasoning") },
  { name: "cached_tokens", label: "Cached Tokens", format: "number", rate: false, expression: (g) => sumOf(g.tokensCached), fromParts: () => total("tokens_cached") },
  { name: "error_count", label: "Errors", format: "number", rate: false, expression: (g) => sumOf(failed(g)), fromParts: () => total("errors") },
  {
    name: "error_rate",
    label: "Error Rate",
    format: "percent",
    rate: true,
    expression: (g) => sql<number>`avg(${failed(g)})`,
    fromParts: (dialect) => ratio(dialect, summed("errors"), summed("requests")),
  },
  {
    name: "avg_latency_ms",
    label: "Average Latency",
    format: "latency",
    rate: true,
    expression: (g) => sql<number>`avg(${g.latencyMs})`,
    fromParts: (dialect) => ratio(dialect, summed("latency_sum"), summed("latency_count")),
  },
  {
    name: "avg_generation_time_ms",
    label: "Average Generation Time",
    format: "latency",
    rate: true,
    expression: (g) => sql<number>`avg(${g.generationTimeMs})`,
    fromParts: (dialect) => ratio(dialect, summed("generation_time_sum"), summed("generation_time_count")),
  },
  {
    name: "throughput",
    label: "Throughput (tokens/s)",
    format: "throughput",
    rate: true,
    expression: (g) => sql<number>`sum(${g.tokensCompletion}) * 1000.0 / nullif(sum(case when ${g.tokensCompletion} is not null then ${g.generationTimeMs} end), 0)`,
    fromParts: () => sql<number>`${summed("tokens_completion")} * 1000.0 / nullif(${summed("completion_time_sum")}, 0)`,
  },
];

/** Every dimension, by name; filters take the same names (and the stored values, never labels). */
export const DIMENSIONS: DimensionDefinition[] = [
  { name: "model", label: "Model", type: "text", column: (g) => g.model, rollup: (r) => r.model },
  { name: "provider", label: "Provider", type: "text", column: (g) => g.providerSlug, rollup: (r) => r.providerSlug },
  { name: "provider_name", label: "Provider Name", type: "text", column: (g) => g.providerName, rollup: (r) => r.providerName },
  { name: "api_key_hash", label: "API Key", type: "text", column: (g) => g.keyHash, rollup: (r) => r.keyHash, dailyOnly: true },
  { name: "api_type", label: "API Type", type: "text", column: (g) => g.style, rollup: (r) => r.style },
  { name: "status", label: "HTTP Status", type: "integer", column: (g) => g.status, rollup: (r) => r.status },
  { name: "finish_reason", label: "Finish Reason", type: "text", column: (g) => g.finishReason },
  { name: "preset_id", label: "Preset", type: "text", column: (g) => g.presetId },
  { name: "external_user", label: "End User", type: "text", column: (g) => g.externalUser },
  { name: "session_id", label: "Session", type: "text", column: (g) => g.sessionId },
  { name: "service_tier", label: "Service Tier", type: "text", column: (g) => g.serviceTier },
  { name: "streamed", label: "Streamed", type: "boolean", column: (g) => g.streamed },
];

/** Time bucket sizes, smallest first. */
export const GRANULARITIES = ["minute", "hour", "day", "week", "month"] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/** Filter operators and whether each takes one value or a list. */
export const OPERATORS = { eq: "scalar", neq: "scalar", in: "array", not_in: "array", gt: "scalar", gte: "scalar", lt: "scalar", lte: "scalar" } as const;
export type Operator = keyof typeof OPERATORS;

/**
 * The UTC start of the bucket holding an ISO 8601 `created_at`, as an ISO 8601 timestamp. Only the
 * week (from Monday) needs date arithmetic, which each dialect spells its own way.
 */
export function bucketStart(dialect: Dialect, granularity: Granularity, createdAt: SQL | Column): SQL<string> {
  switch (granularity) {
    case "minute":
      return sql<string>`substr(${createdAt}, 1, 16) || ':00Z'`;
    case "hour":
      return sql<string>`substr(${createdAt}, 1, 13) || ':00:00Z'`;
    case "day":
      return sql<string>`substr(${createdAt}, 1, 10) || 'T00:00:00Z'`;
    case "month":
      return sql<string>`substr(${createdAt}, 1, 7) || '-01T00:00:00Z'`;
    case "week":
      return dialect === "postgres" ? weekStartPostgres(createdAt) : weekStartSqlite(createdAt);
  }
}

/** SQLite: back to the Monday on or before the day. */
function weekStartSqlite(createdAt: SQL | Column): SQL<string> {
  return sql<string>`date(substr(${createdAt}, 1, 10), '-6 days', 'weekday 1') || 'T00:00:00Z'`;
}

/** PostgreSQL: ISO weeks start on Monday. */
function weekStartPostgres(createdAt: SQL | Column): SQL<string> {
  return sql<string>`to_char(date_trunc('week', substr(${createdAt}, 1, 10)::date), 'YYYY-MM-DD') || 'T00:00:00Z'`;
}
