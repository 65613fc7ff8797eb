import { type Column, and, asc, desc, eq, gt, gte, inArray, isNull, lt, lte, ne, notInArray, or, type SQL, sql } from "drizzle-orm";
import type { Backend } from "./backend.ts";
import type { GenerationRow } from "./schema.ts";
import { bucketStart, type DimensionDefinition, type Granularity, type MetricDefinition, type Operator } from "./analytics-catalog.ts";

/** A filter value, coerced to its field's stored type. */
export type FilterScalar = string | number | boolean;

/** One filter of an analytics query, its field already resolved. */
export interface AnalyticsFilter {
  dimension: DimensionDefinition;
  operator: Operator;
  value: FilterScalar | FilterScalar[];
  /** Records without a value for the field match too. */
  includeUnset: boolean;
}

/** An analytics query whose names were checked against the catalogue. */
export interface AnalyticsQuery {
  metrics: MetricDefinition[];
  dimensions: DimensionDefinition[];
  filters: AnalyticsFilter[];
  granularity: Granularity | undefined;
  /** ISO 8601, inclusive. */
  start: string;
  /** ISO 8601, exclusive. */
  end: string;
  /** A metric or dimension name, or `time_bucket`. */
  orderBy: { field: string; direction: "asc" | "desc" };
  limit: number;
}

/** The column of a query row holding the start of its time bucket. */
export const TIME_BUCKET = "time_bucket";

/** Filters of `GET /activity`. */
export interface ActivityFilter {
  /** ISO 8601, inclusive (the start of the first day). */
  since: string;
  /** ISO 8601, exclusive (the start of the day after the last). */
  until: string;
  keyHash?: string;
  /** Only keys created for this user (`creator_user_id`). */
  userId?: string;
  groupByWorkspace: boolean;
}

/** Filters of the recent generations list; `before` is the cursor (the last row of the previous page). */
export interface RecentFilter {
  keyHash?: string;
  model?: string;
  provider?: string;
  status?: number;
  since?: string;
  until?: string;
  before?: { createdAt: string; id: string };
  limit: number;
}

/** A row of `GET /activity`: one day, model and endpoint. */
export interface ActivityRow {
  date: string;
  model: string;
  providerSlug: string | null;
  providerName: string | null;
  upstreamModel: string | null;
  workspaceId: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  usage: number;
}

/**
 * Reports over the generation log (`generations`), always within one workspace. Reads committed
 * records only: callers flush the generation store first when the latest records must count.
 */
export class AnalyticsStore {
  constructor(private readonly backend: Backend) {}

  /** Daily totals per model and endpoint, oldest day first. */
  async activity(workspaceId: string, filter: ActivityFilter): Promise<ActivityRow[]> {
    const { generations: g, apiKeys } = this.backend.tables;
    const day = sql<string>`substr(${g.createdAt}, 1, 10)`;
    const conditions: Array<SQL | undefined> = [
      eq(g.workspaceId, workspaceId),
      gte(g.createdAt, filter.since),
      lt(g.createdAt, filter.until),
      filter.keyHash === undefined ? undefined : eq(g.keyHash, filter.keyHash),
      filter.userId === undefined
        ? undefined
        : inArray(g.keyHash, this.backend.db.select({ hash: apiKeys.hash }).from(apiKeys).where(and(eq(apiKeys.workspaceId, workspaceId), eq(apiKeys.creatorUserId, filter.userId)))),
    ];
    const rows = await this.backend.db
      .select({
        date: day,
        model: g.model,
        providerSlug: g.providerSlug,
        providerName: g.providerName,
        upstreamModel: g.upstreamModel,
        requests: sql<number>`count(*)`,
        promptTokens: sql<number>`coalesce(sum(${g.tokensPrompt}), 0)`,
        completionTokens: sql<number>`coalesce(sum(${g.tokensCompletion}), 0)`,
        reasoningTokens: sql<number>`coalesce(sum(${g.tokensReasoning}), 0)`,
        usage: sql<number>`coalesce(sum(${g.totalCost}), 0)`,
      })
      .from(g)
      .where(and(...conditions))
      .groupBy(day, g.model, g.providerSlug, g.providerName, g.upstreamModel)
      .orderBy(asc(day), asc(g.model), asc(g.providerSlug), asc(g.upstreamModel));
    return rows.map((row) => ({
      ...row,
      workspaceId,
      requests: Number(row.requests),
      promptTokens: Number(row.promptTokens),
      completionTokens: Number(row.completionTokens),
      reasoningTokens: Number(row.reasoningTokens),
      usage: Number(row.usage),
    }));
  }

  /**
   * Runs an analytics query: one row per time bucket and dimension values, each with the requested
   * metrics. `truncated` when more rows matched than the limit.
   */
  async query(workspaceId: string, query: AnalyticsQuery): Promise<{ rows: Array<Record<string, unknown>>; truncated: boolean }> {
    const { generations: g } = this.backend.tables;
    const fields: Record<string, SQL | Column> = {};
    const groups: Array<SQL | Column> = [];
    if (query.granularity) {
      const bucket = bucketStart(this.backend.dialect, query.granularity, g.createdAt);
      fields[TIME_BUCKET] = bucket;
      groups.push(bucket);
    }
    for (const dimension of query.dimensions) {
      fields[dimension.name] = dimension.column(g);
      groups.push(dimension.column(g));
    }
    for (const metric of query.metrics) fields[metric.name] = metric.expression(g);
    const order = fields[query.orderBy.field]!;
    const where = and(eq(g.workspaceId, workspaceId), gte(g.createdAt, query.start), lt(g.createdAt, query.end), ...query.filters.map((filter) => condition(g, filter)));
    const rows = await this.backend.db
      .select(fields as Record<string, SQL>)
      .from(g)
      .where(where)
      .groupBy(...(groups as SQL[]))
      .orderBy(query.orderBy.direction === "asc" ? asc(order) : desc(order), ...groups.map((group) => asc(group)))
      .limit(query.limit + 1);
    const truncated = rows.length > query.limit;
    const numeric = new Set(query.metrics.map((metric) => metric.name));
    const shaped = rows.slice(0, query.limit).map((row) =>
      Object.fromEntries(Object.entries(row).map(([name, value]) => [name, numeric.has(name) && value !== null ? Number(value) : value])),
    );
    return { rows: shaped, truncated };
  }

  /** A workspace's generation records, newest first, one page after the cursor. */
  async recent(workspaceId: string, filter: RecentFilter): Promise<GenerationRow[]> {
    const { generations: g } = this.backend.tables;
    const { before } = filter;
    return this.backend.db
      .select()
      .from(g)
      .where(
        and(
          eq(g.workspaceId, workspaceId),
          filter.keyHash === undefined ? undefined : eq(g.keyHash, filter.keyHash),
          filter.model === undefined ? undefined : eq(g.model, filter.model),
          filter.provider === undefined ? undefined : eq(g.providerSlug, filter.provider),
          filter.status === undefined ? undefined : eq(g.status, filter.status),
          filter.since === undefined ? undefined : gte(g.createdAt, filter.since),
          filter.until === undefined ? undefined : lt(g.createdAt, filter.until),
          before === undefined ? undefined : or(lt(g.createdAt, before.createdAt), and(eq(g.createdAt, before.createdAt), lt(g.id, before.id))),
        ),
      )
      .orderBy(desc(g.createdAt), desc(g.id))
      .limit(filter.limit);
  }

  /** USD the workspace's records cost in total (the local price table's figures). */
  async workspaceSpend(workspaceId: string): Promise<number> {
    const { generations: g } = this.backend.tables;
    const [row] = await this.backend.db
      .select({ total: sql<number>`coalesce(sum(${g.totalCost}), 0)` })
      .from(g)
      .where(eq(g.workspaceId, workspaceId));
    return Number(row?.total ?? 0);
  }

  /**
   * The budget the workspace's spend is held to: the sum of the limits its enabled spending keys
   * carry (a key without a limit adds nothing). Management keys cannot spend.
   */
  async workspaceBudget(workspaceId: string): Promise<number> {
    const { apiKeys: k } = this.backend.tables;
    const [row] = await this.backend.db
      .select({ total: sql<number>`coalesce(sum(${k.limit}), 0)` })
      .from(k)
      .where(and(eq(k.workspaceId, workspaceId), eq(k.disabled, false), ne(k.kind, "management")));
    return Number(row?.total ?? 0);
  }
}

/** One filter as a condition; `include_unset` lets records without the field through. */
function condition(g: Backend["tables"]["generations"], filter: AnalyticsFilter): SQL | undefined {
  const column = filter.dimension.column(g);
  const { value } = filter;
  const list = Array.isArray(value) ? value : [value];
  const scalar = Array.isArray(value) ? value[0]! : value;
  const test = (() => {
    switch (filter.operator) {
      case "eq":
        return eq(column, scalar);
      case "neq":
        return ne(column, scalar);
      case "in":
        return list.length === 0 ? sql`1 = 0` : inArray(column, list);
      case "not_in":
        return list.length === 0 ? undefined : notInArray(column, list);
      case "gt":
        return gt(column, scalar);
      case "gte":
        return gte(column, scalar);
      case "lt":
        return lt(column, scalar);
      case "lte":
        return lte(column, scalar);
    }
  })();
  return filter.includeUnset && test ? or(test, isNull(column)) : test;
}
