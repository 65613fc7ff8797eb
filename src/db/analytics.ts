import { type Column, and, asc, desc, eq, gt, gte, inArray, isNull, lt, lte, ne, notInArray, or, type SQL, sql } from "drizzle-orm";
import type { Backend } from "./backend.ts";
import type { GenerationRow } from "./schema.ts";
import { bucketStart, type DimensionDefinition, type Granularity, type MetricDefinition, type Operator } from "./analytics-catalog.ts";
import { type PartColumn, part, partsSource, type RollupLevel, type RollupUse } from "./analytics-parts.ts";

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
  /** Cost of the generations served with a BYOK credential (part of `usage`). */
  byokUsage: number;
}

/**
 * Reports over the generation log (`generations`), always within one workspace. Reads committed
 * records only: callers flush the generation store first when the latest records must count.
 */
export class AnalyticsStore {
  constructor(private readonly backend: Backend) {}

  /** Daily totals per model and endpoint, oldest day first (whole days from the daily rollups). */
  async activity(workspaceId: string, filter: ActivityFilter): Promise<ActivityRow[]> {
    const { generations: g, generationRollups: r, apiKeys } = this.backend.tables;
    const keyFilters = (keyHash: Column) => [
      filter.keyHash === undefined ? undefined : eq(keyHash, filter.keyHash),
      filter.userId === undefined
        ? undefined
        : inArray(keyHash, this.backend.db.select({ hash: apiKeys.hash }).from(apiKeys).where(and(eq(apiKeys.workspaceId, workspaceId), eq(apiKeys.creatorUserId, filter.userId)))),
    ];
    const columns: PartColumn[] = [
      { name: "date", raw: (table) => sql`substr(${table.createdAt}, 1, 10)`, rollup: (table) => table.day },
      { name: "model", raw: (table) => table.model, rollup: (table) => table.model },
      { name: "provider_slug", raw: (table) => table.providerSlug, rollup: (table) => table.providerSlug },
      { name: "provider_name", raw: (table) => table.providerName, rollup: (table) => table.providerName },
      { name: "upstream_model", raw: (table) => table.upstreamModel, rollup: (table) => table.upstreamModel },
    ];
    const source = partsSource(this.backend, {
      workspaceId,
      start: filter.since,
      end: filter.until,
      // The hourly rows sum every key: a key or user filter reads the daily rows and the records only.
      rollups: { level: "day", hourly: filter.keyHash === undefined && filter.userId === undefined },
      columns,
      rawFilters: keyFilters(g.keyHash),
      rollupFilters: keyFilters(r.keyHash),
    });
    const [date, model, providerSlug, providerName, upstreamModel] = columns.map((column) => part(column.name)) as [SQL, SQL, SQL, SQL, SQL];
    const total = (name: string) => sql<number>`coalesce(sum(${part(name)}), 0)`;
    const rows = await this.backend.db
      .select({
        date: sql<string>`${date}`,
        model: sql<string>`${model}`,
        providerSlug: sql<string | null>`${providerSlug}`,
        providerName: sql<string | null>`${providerName}`,
        upstreamModel: sql<string | null>`${upstreamModel}`,
        requests: total("requests"),
        promptTokens: total("tokens_prompt"),
        completionTokens: total("tokens_completion"),
        reasoningTokens: total("tokens_reasoning"),
        usage: total("total_cost"),
        byokUsage: total("byok_cost"),
      })
      .from(source)
      .groupBy(date, model, providerSlug, providerName, upstreamModel)
      .orderBy(asc(date), asc(model), asc(providerSlug), asc(upstreamModel));
    return rows.map((row) => ({
      ...row,
      workspaceId,
      requests: Number(row.requests),
      promptTokens: Number(row.promptTokens),
      completionTokens: Number(row.completionTokens),
      reasoningTokens: Number(row.reasoningTokens),
      usage: Number(row.usage),
      byokUsage: Number(row.byokUsage),
    }));
  }

  /**
   * Runs an analytics query: one row per time bucket and dimension values, each with the requested
   * metrics. `truncated` when more rows matched than the limit.
   */
  async query(workspaceId: string, query: AnalyticsQuery): Promise<{ rows: Array<Record<string, unknown>>; truncated: boolean }> {
    const rollups = rollupUse(query);
    const rows = rollups ? await this.#fromParts(workspaceId, query, rollups) : await this.#fromRecords(workspaceId, query);
    const truncated = rows.length > query.limit;
    const numeric = new Set(query.metrics.map((metric) => metric.name));
    const shaped = rows.slice(0, query.limit).map((row) =>
      Object.fromEntries(Object.entries(row).map(([name, value]) => [name, numeric.has(name) && value !== null ? Number(value) : value])),
    );
    return { rows: shaped, truncated };
  }

  /** A query over the records alone (finer buckets than an hour, dimensions the rollups do not keep). */
  async #fromRecords(workspaceId: string, query: AnalyticsQuery): Promise<Array<Record<string, unknown>>> {
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
    const where = and(eq(g.workspaceId, workspaceId), gte(g.createdAt, query.start), lt(g.createdAt, query.end), ...query.filters.map((filter) => condition(filter.dimension.column(g), filter)));
    return this.backend.db
      .select(fields as Record<string, SQL>)
      .from(g)
      .where(where)
      .groupBy(...(groups as SQL[]))
      .orderBy(...ordering(fields, groups, query))
      .limit(query.limit + 1);
  }

  /** A query over the rollups of its whole days or hours and the records of the rest. */
  async #fromParts(workspaceId: string, query: AnalyticsQuery, rollups: RollupUse): Promise<Array<Record<string, unknown>>> {
    const { generations: g, generationRollups: r } = this.backend.tables;
    const { dialect } = this.backend;
    const granularity = query.granularity;
    const columns: PartColumn[] = [
      // An hourly bucket of an hourly row is its hour; a coarser bucket holds both kinds' day.
      ...(granularity ? [{ name: TIME_BUCKET, raw: (table: typeof g) => bucketStart(dialect, granularity, table.createdAt), rollup: (table: typeof r) => bucketStart(dialect, granularity, granularity === "hour" ? table.hour : table.day) }] : []),
      ...query.dimensions.map((dimension) => ({ name: dimension.name, raw: dimension.column, rollup: dimension.rollup! })),
    ];
    const groups = columns.map((column) => part(column.name));
    const fields: Record<string, SQL> = Object.fromEntries(groups.map((group, index) => [columns[index]!.name, sql`${group}`]));
    for (const metric of query.metrics) fields[metric.name] = metric.fromParts(dialect);
    const source = partsSource(this.backend, {
      workspaceId,
      start: query.start,
      end: query.end,
      rollups,
      columns,
      rawFilters: query.filters.map((filter) => condition(filter.dimension.column(g), filter)),
      rollupFilters: query.filters.map((filter) => condition(filter.dimension.rollup!(r), filter)),
    });
    return this.backend.db
      .select(fields)
      .from(source)
      .groupBy(...groups)
      .orderBy(...ordering(fields, groups, query))
      .limit(query.limit + 1);
  }

  /**
   * A workspace's generation records, newest first, one page after the cursor. Served by an index
   * that starts with the workspace: (workspace, model, time) with a model filter, (workspace, provider,
   * time) with a provider filter, (workspace, time, status) otherwise; the cursor's `created_at <=` is a
   * range on the index's time column, so a later page starts where the previous one ended.
   */
  async recent(workspaceId: string, filter: RecentFilter): Promise<GenerationRow[]> {
    return this.#recentQuery(workspaceId, filter);
  }

  /** The statement `recent` runs and its parameters (to read its query plan). */
  recentStatement(workspaceId: string, filter: RecentFilter): { sql: string; params: unknown[] } {
    return this.#recentQuery(workspaceId, filter).toSQL();
  }

  #recentQuery(workspaceId: string, filter: RecentFilter) {
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
          before === undefined ? undefined : lte(g.createdAt, before.createdAt),
          before === undefined ? undefined : or(lt(g.createdAt, before.createdAt), lt(g.id, before.id)),
        ),
      )
      .orderBy(desc(g.createdAt), desc(g.id))
      .limit(filter.limit);
  }

  /** USD the workspace's records cost in total (the local price table's figures), from the daily rollups. */
  async workspaceSpend(workspaceId: string): Promise<number> {
    const { generationRollups: r } = this.backend.tables;
    const [row] = await this.backend.db
      .select({ total: sql<number>`coalesce(sum(${r.totalCost}), 0)` })
      .from(r)
      .where(and(eq(r.workspaceId, workspaceId), isNull(r.hour)));
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

/** The coarsest rollups that answer each bucket size (minutes: none). */
const ROLLUP_LEVELS: Partial<Record<Granularity, RollupLevel>> = { hour: "hour", day: "day", week: "day", month: "day" };

/**
 * The rollups a query can be read from: they must keep its bucket size, every dimension and filter
 * field; the hourly rows only when it names no field they sum over (the key).
 */
function rollupUse(query: AnalyticsQuery): RollupUse | undefined {
  const fields = [...query.dimensions, ...query.filters.map((filter) => filter.dimension)];
  const level = query.granularity === undefined ? "day" : ROLLUP_LEVELS[query.granularity];
  if (!level || !fields.every((field) => field.rollup)) return undefined;
  const hourly = fields.every((field) => !field.dailyOnly);
  return level === "hour" && !hourly ? undefined : { level, hourly };
}

/** The requested order, then every group ascending (so a page is stable). */
function ordering(fields: Record<string, SQL | Column>, groups: Array<SQL | Column>, query: AnalyticsQuery): SQL[] {
  const order = fields[query.orderBy.field]!;
  return [query.orderBy.direction === "asc" ? asc(order) : desc(order), ...groups.map((group) => asc(group))];
}

/** One filter on a column as a condition; `include_unset` lets records without the field through. */
function condition(column: Column, filter: AnalyticsFilter): SQL | undefined {
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
