import { getTableColumns, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Conn, Dialect, Tables } from "./backend.ts";

/**
 * The rollups of the generation log: daily rows (no `hour`) and hourly rows of the same groups but for
 * the key (every key together: far fewer rows), summed by the database from the records a batch
 * inserted. A group's `id` is its values as a compact JSON array, an hourly row's key null and its hour
 * last; the backfill migrations build the same rows with the same SQL.
 */

/** The sum columns of a rollup row, each an aggregate over the records of its group. */
const SUMS = {
  requests: sql`count(*)`,
  total_cost: sql`coalesce(sum(total_cost), 0)`,
  tokens_prompt: sql`coalesce(sum(tokens_prompt), 0)`,
  tokens_completion: sql`coalesce(sum(tokens_completion), 0)`,
  tokens_reasoning: sql`coalesce(sum(tokens_reasoning), 0)`,
  tokens_cached: sql`coalesce(sum(tokens_cached), 0)`,
  latency_sum: sql`coalesce(sum(latency_ms), 0)`,
  latency_count: sql`count(latency_ms)`,
  generation_time_sum: sql`coalesce(sum(generation_time_ms), 0)`,
  generation_time_count: sql`count(generation_time_ms)`,
  completion_time_sum: sql`coalesce(sum(CASE WHEN tokens_completion IS NOT NULL THEN generation_time_ms END), 0)`,
  byok_cost: sql`coalesce(sum(CASE WHEN is_byok THEN total_cost END), 0)`,
};

/** The values of a daily group, in the id's and the table's order; an hourly group's key is null. */
const DAILY = ["workspace_id", "substr(created_at, 1, 10)", "model", "provider_slug", "provider_name", "upstream_model", "key_hash", "style", "status"];
const HOURLY = DAILY.map((value) => (value === "key_hash" ? "NULL" : value));
const HOUR = "substr(created_at, 1, 13)";

/** The id of a group as each dialect spells a compact JSON array of its values (PostgreSQL has no json_array). */
function groupId(dialect: Dialect, values: string[]): string {
  if (dialect === "sqlite") return `json_array(${values.join(", ")})`;
  const json = (value: string) => (value === "NULL" ? "'null'" : value === "status" ? "status::text" : `coalesce(to_json(${value})::text, 'null')`);
  return `'[' || concat_ws(',', ${values.map(json).join(", ")}) || ']'`;
}

/** One rollup row per group of the records `where` picks, in the table's column order. */
function grouped(dialect: Dialect, where: SQL, hourly: boolean): SQL {
  const values = hourly ? HOURLY : DAILY;
  const id = hourly ? [...HOURLY, HOUR] : DAILY;
  const groups = [...values, ...(hourly ? [HOUR] : [])].filter((value) => value !== "NULL");
  return sql`SELECT ${sql.raw(groupId(dialect, id))}, ${sql.raw(values.join(", "))}, ${sql.join(Object.values(SUMS), sql`, `)}, ${sql.raw(hourly ? HOUR : "NULL")}
    FROM generations WHERE ${where} GROUP BY ${sql.raw(groups.join(", "))}`;
}

/**
 * Adds the records just inserted (by id) to their daily and hourly rollup rows: one upsert statement
 * whatever the batch's size, the sums computed by the database, on `db`: call it in the transaction
 * that inserted them. Rows are written in id order, so two replicas adding to the same rows lock them
 * in the same order.
 */
export async function addToRollups(db: Conn, tables: Tables, dialect: Dialect, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await rollupUpsert(db, tables, dialect, JSON.stringify(ids));
}

/**
 * The SQLite upsert of addToRollups as SQL text whose every parameter (one per SELECT of the union) is
 * the ids as a JSON array, and how many there are (the generation writer's thread prepares it on its
 * own connection).
 */
export function sqliteRollupSql(db: Conn, tables: Tables): { sql: string; parameters: number } {
  const { sql: text, params } = rollupUpsert(db, tables, "sqlite", "[]").toSQL();
  if (params.length === 0 || params.some((param) => param !== "[]")) throw new Error("every parameter of the rollup statement must be the ids");
  return { sql: text, parameters: params.length };
}

/**
 * `column IN (the ids of a JSON array)`: the ids travel as one parameter, however many there are (no
 * limit on parameters per statement applies).
 */
export function idsIn(dialect: Dialect, column: SQL | SQLWrapper, list: string): SQL {
  return dialect === "sqlite" ? sql`${column} IN (SELECT value FROM json_each(${list}))` : sql`${column} IN (SELECT jsonb_array_elements_text(${list}::text::jsonb))`;
}

function rollupUpsert(db: Conn, tables: Tables, dialect: Dialect, list: string) {
  const { generationRollups: r } = tables;
  const picked = idsIn(dialect, sql.raw("id"), list);
  const added = Object.fromEntries(
    Object.entries(getTableColumns(r))
      .filter(([, column]) => column.name in SUMS)
      .map(([field, column]) => [field, sql`${column} + excluded.${sql.identifier(column.name)}`]),
  );
  // `WHERE true`: SQLite would otherwise read the ON of ON CONFLICT as a join's.
  const rows = sql`SELECT * FROM (${grouped(dialect, picked, false)} UNION ALL ${grouped(dialect, picked, true)}) AS grouped WHERE true ORDER BY 1`;
  return db.insert(r).select(rows).onConflictDoUpdate({ target: r.id, set: added });
}
