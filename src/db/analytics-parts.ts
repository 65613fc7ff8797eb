import { type Column, and, eq, gte, isNull, lt, type SQL, sql } from "drizzle-orm";
import type { Backend, Tables } from "./backend.ts";

/**
 * An analytics range read in parts: the whole UTC days inside it from the daily rollups
 * (`generation_rollups` rows without an hour), the whole hours around them from the hourly rollups
 * (unless the query names the key, which they do not keep), the rest from the records. Each part yields the same columns (the group's
 * values, then additive sums); the caller groups the union and computes its metrics from the sums,
 * which gives what the same aggregate over the records gives.
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

const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** A span of ISO 8601 instants, `to` exclusive. */
type Span = { from: string; to: string };

/** The whole units (UTC hours or days) of [start, end): the first one's start and the end of the last, or none. */
function whole(start: string, end: string, unit: number): Span | undefined {
  const first = Math.ceil(Date.parse(start) / unit) * unit;
  const last = Math.floor(Date.parse(end) / unit) * unit;
  return first < last ? { from: new Date(first).toISOString(), to: new Date(last).toISOString() } : undefined;
}

/** The coarsest rollups a range may be read from: daily rows (and hourly ones around them) or hourly rows only. */
export type RollupLevel = "day" | "hour";

/** Which rollups a query may read: the coarsest, and whether the hourly rows (which sum every key) may be read. */
export interface RollupUse {
  level: RollupLevel;
  hourly: boolean;
}

/** What the parts are cut to: the workspace, the range (ISO 8601, end exclusive), groups and filters. */
export interface PartsSpec {
  workspaceId: string;
  start: string;
  end: string;
  /** The rollups to read; none: the records only. */
  rollups: RollupUse | undefined;
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
  const rollupFields = aliased((column) => column.rollup(r));
  const raw = ({ from, to }: Span) =>
    backend.db
      .select(rawFields)
      .from(g)
      .where(and(eq(g.workspaceId, spec.workspaceId), gte(g.createdAt, from), lt(g.createdAt, to), ...spec.rawFilters))
      .getSQL();
  const rollups = (range: SQL | undefined) => backend.db.select(rollupFields).from(r).where(and(eq(r.workspaceId, spec.workspaceId), range, ...spec.rollupFilters)).getSQL();
  const daily = ({ from, to }: Span) => rollups(and(isNull(r.hour), gte(r.day, from.slice(0, 10)), lt(r.day, to.slice(0, 10))));
  const hourly = ({ from, to }: Span) => rollups(and(gte(r.hour, from.slice(0, 13)), lt(r.hour, to.slice(0, 13))));
  // A span without a whole day: its whole hours from the hourly rows when they may be read, the rest from the records.
  const shortSpan = (span: Span): SQL[] => {
    const hours = spec.rollups?.hourly ? whole(span.from, span.to, HOUR_MS) : undefined;
    if (!hours) return span.from < span.to ? [raw(span)] : [];
    return [...(span.from < hours.from ? [raw({ from: span.from, to: hours.from })] : []), hourly(hours), ...(hours.to < span.to ? [raw({ from: hours.to, to: span.to })] : [])];
  };
  const days = spec.rollups?.level === "day" ? whole(spec.start, spec.end, DAY_MS) : undefined;
  const parts = days
    ? [...shortSpan({ from: spec.start, to: days.from }), daily(days), ...shortSpan({ from: days.to, to: spec.end })]
    : shortSpan({ from: spec.start, to: spec.end });
  return sql`(${sql.join(parts, sql` union all `)}) as parts`;
}
