import { type Column, and, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import type { Backend, Tables } from "./backend.ts";

/**
 * An analytics range read in parts: the whole UTC days inside it from the daily rollups
 * (`generation_rollups`), the partial days at either end from the records. Each part yields the same
 * columns (the group's values, then additive sums); the caller groups the union and computes its
 * metrics from the sums (`PART_SUMS`), which gives what the same aggregate over the records gives.
 */

type Generations = Tables["generations"];
type Rollups = Tables["generationRollups"];

/** A grouping column of the parts: how the records and the rollups spell it. */
export interface PartColumn {
  name: string;
  raw(table: Generations): SQL | Column;
  rollup(table: Rollups): SQL | Column;
}

/** The parts' sums, each from a record and from a rollup row. */
const SUMS: Array<{ name: string; raw(g: Generations): SQL | Column; rollup(r: Rollups): SQL | Column }> = [
  { name: "requests", raw: () => sql`1`, rollup: (r) => r.requests },
  { name: "errors", raw: (g) => sql`case when ${g.status} >= 400 then 1 else 0 end`, rollup: (r) => sql`case when ${r.status} >= 400 then ${r.requests} else 0 end` },
  { name: "total_cost", raw: (g) => g.totalCost, rollup: (r) => r.totalCost },
  { name: "byok_cost", raw: (g) => sql`case when ${g.isByok} then ${g.totalCost} else 0 end`, rollup: (r) => r.byokCost },
  { name: "tokens_prompt", raw: (g) => g.tokensPrompt, rollup: (r) => r.tokensPrompt },
  { name: "tokens_completion", raw: (g) => g.tokensCompletion, rollup: (r) => r.tokensCompletion },
  { name: "tokens_reasoning", raw: (g) => g.tokensReasoning, rollup: (r) => r.tokensReasoning },
  { name: "tokens_cached", raw: (g) => g.tokensCached, rollup: (r) => r.tokensCached },
  { name: "latency_sum", raw: (g) => g.latencyMs, rollup: (r) => r.latencySum },
  { name: "latency_count", raw: (g) => sql`case when ${g.latencyMs} is null then 0 else 1 end`, rollup: (r) => r.latencyCount },
  { name: "generation_time_sum", raw: (g) => g.generationTimeMs, rollup: (r) => r.generationTimeSum },
  { name: "generation_time_count", raw: (g) => sql`case when ${g.generationTimeMs} is null then 0 else 1 end`, rollup: (r) => r.generationTimeCount },
  { name: "completion_time_sum", raw: (g) => sql`case when ${g.tokensCompletion} is not null then ${g.generationTimeMs} end`, rollup: (r) => r.completionTimeSum },
];

/** A sum column of the parts, for the metric expressions over them. */
export const part = (name: string): SQL => sql`${sql.identifier(name)}`;

const DAY_MS = 24 * 3600 * 1000;

/** The whole UTC days of [start, end): the first one's start and the end of the last, or none. */
export function wholeDays(start: string, end: string): { from: string; to: string } | undefined {
  const first = Math.ceil(Date.parse(start) / DAY_MS) * DAY_MS;
  const last = Math.floor(Date.parse(end) / DAY_MS) * DAY_MS;
  return first < last ? { from: new Date(first).toISOString(), to: new Date(last).toISOString() } : undefined;
}

/** What the parts are cut to: the workspace, the range (ISO 8601, end exclusive), groups and filters. */
export interface PartsSpec {
  workspaceId: string;
  start: string;
  end: string;
  /** The whole days read from the rollups; none: the records only. */
  days: { from: string; to: string } | undefined;
  columns: PartColumn[];
  rawFilters: Array<SQL | undefined>;
  rollupFilters: Array<SQL | undefined>;
}

/** The union of the parts as a FROM source named `parts`. */
export function partsSource(backend: Backend, spec: PartsSpec): SQL {
  const { generations: g, generationRollups: r } = backend.tables;
  const aliased = (pick: (column: PartColumn | (typeof SUMS)[number]) => SQL | Column) =>
    Object.fromEntries([...spec.columns, ...SUMS].map((column) => [column.name, sql`${pick(column)}`.as(column.name)]));
  const rawFields = aliased((column) => column.raw(g));
  const raw = (from: string, to: string) =>
    backend.db
      .select(rawFields)
      .from(g)
      .where(and(eq(g.workspaceId, spec.workspaceId), gte(g.createdAt, from), lt(g.createdAt, to), ...spec.rawFilters))
      .getSQL();
  const { days } = spec;
  if (!days) return sql`(${raw(spec.start, spec.end)}) as parts`;
  const members: SQL[] = [
    backend.db
      .select(aliased((column) => column.rollup(r)))
      .from(r)
      .where(and(eq(r.workspaceId, spec.workspaceId), gte(r.day, days.from.slice(0, 10)), lt(r.day, days.to.slice(0, 10)), ...spec.rollupFilters))
      .getSQL(),
  ];
  if (spec.start < days.from) members.unshift(raw(spec.start, days.from));
  if (days.to < spec.end) members.push(raw(days.to, spec.end));
  return sql`(${sql.join(members, sql` union all `)}) as parts`;
}
