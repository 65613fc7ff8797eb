import { getTableColumns, sql } from "drizzle-orm";
import type { Conn, Tables } from "./backend.ts";
import type { GenerationRow } from "./schema.ts";
import type { GenerationRollupRow } from "./schema-groups.ts";

/** Rollup rows per statement: ~20 parameters each, well under either dialect's limit. */
const PER_STATEMENT = 1000;

/** Where a sum column's value comes from in a record (null counts as nothing). */
const SUMS = {
  tokensPrompt: (row: GenerationRow) => row.tokensPrompt,
  tokensCompletion: (row: GenerationRow) => row.tokensCompletion,
  tokensReasoning: (row: GenerationRow) => row.tokensReasoning,
  tokensCached: (row: GenerationRow) => row.tokensCached,
  latencySum: (row: GenerationRow) => row.latencyMs,
  latencyCount: (row: GenerationRow) => (row.latencyMs === null ? null : 1),
  generationTimeSum: (row: GenerationRow) => row.generationTimeMs,
  generationTimeCount: (row: GenerationRow) => (row.generationTimeMs === null ? null : 1),
  completionTimeSum: (row: GenerationRow) => (row.tokensCompletion === null ? null : row.generationTimeMs),
  byokCost: (row: GenerationRow) => (row.isByok ? row.totalCost : null),
} satisfies Partial<Record<keyof GenerationRollupRow, (row: GenerationRow) => number | null>>;

/**
 * The rollup group of a record: its values as a compact JSON array (the backfill migrations build the
 * same text in SQL). Two spellings of one group would only cost a row: every read sums the rows.
 */
export function rollupId(row: Pick<GenerationRollupRow, "workspaceId" | "day" | "model" | "providerSlug" | "providerName" | "upstreamModel" | "keyHash" | "style" | "status">): string {
  return JSON.stringify([row.workspaceId, row.day, row.model, row.providerSlug, row.providerName, row.upstreamModel, row.keyHash, row.style, row.status]);
}

/** The daily sums of some records, one row per group, ordered by id. */
export function rollupRows(records: GenerationRow[]): GenerationRollupRow[] {
  const groups = new Map<string, GenerationRollupRow>();
  for (const record of records) {
    const key = {
      workspaceId: record.workspaceId,
      day: record.createdAt.slice(0, 10),
      model: record.model,
      providerSlug: record.providerSlug,
      providerName: record.providerName,
      upstreamModel: record.upstreamModel,
      keyHash: record.keyHash,
      style: record.style,
      status: record.status,
    };
    const id = rollupId(key);
    let group = groups.get(id);
    if (!group) {
      group = { id, ...key, requests: 0, totalCost: 0, tokensPrompt: 0, tokensCompletion: 0, tokensReasoning: 0, tokensCached: 0, latencySum: 0, latencyCount: 0, generationTimeSum: 0, generationTimeCount: 0, completionTimeSum: 0, byokCost: 0 };
      groups.set(id, group);
    }
    group.requests += 1;
    group.totalCost += record.totalCost;
    for (const [field, value] of Object.entries(SUMS) as Array<[keyof typeof SUMS, (row: GenerationRow) => number | null]>) group[field] += value(record) ?? 0;
  }
  return [...groups.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Adds the sums of records just inserted to their rollup rows (an upsert), on `db`: call it in the
 * transaction that inserted them. Rows are written in id order, so two replicas adding to the same
 * rows lock them in the same order.
 */
export async function addToRollups(db: Conn, tables: Tables, records: GenerationRow[]): Promise<void> {
  if (records.length === 0) return;
  const { generationRollups: r } = tables;
  const added = Object.fromEntries(
    Object.entries(getTableColumns(r))
      .filter(([field]) => field === "requests" || field === "totalCost" || field in SUMS)
      .map(([field, column]) => [field, sql`${column} + excluded.${sql.identifier(column.name)}`]),
  );
  const rows = rollupRows(records);
  for (let start = 0; start < rows.length; start += PER_STATEMENT) {
    await db.insert(r).values(rows.slice(start, start + PER_STATEMENT)).onConflictDoUpdate({ target: r.id, set: added });
  }
}
