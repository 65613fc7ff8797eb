import { and, gte, inArray, lt, notInArray, type SQL, sql } from "drizzle-orm";
import type { Backend } from "./backend.ts";
import type { GenerationRow } from "./schema.ts";

/** What a key spent (USD): in total, today, this week and this month (UTC), and the BYOK part of each. */
export interface KeyUsage {
  total: number;
  daily: number;
  weekly: number;
  monthly: number;
  byokTotal: number;
  byokDaily: number;
  byokWeekly: number;
  byokMonthly: number;
}

export const NO_USAGE: Readonly<KeyUsage> = { total: 0, daily: 0, weekly: 0, monthly: 0, byokTotal: 0, byokDaily: 0, byokWeekly: 0, byokMonthly: 0 };

/** Where each period starts (ISO timestamps, each a UTC midnight). */
export interface UsagePeriods {
  day: string;
  week: string;
  month: string;
}

function add(into: KeyUsage, sums: Record<string, unknown>): void {
  for (const name of Object.keys(NO_USAGE) as Array<keyof KeyUsage>) into[name] += Number(sums[name] ?? 0);
}

/**
 * Adds what the keys' committed records cost to `result`, leaving out those `pending` (counted by the
 * caller from memory). The whole days before the first day a pending record or today falls on come from
 * the daily rollups (kept in the transaction that commits the records, so they never hold a pending
 * one); the records from that day on are read from the log itself, by key and time (an index range).
 * The log's size no longer matters: a key's year of traffic is a few hundred rollup rows per model.
 */
export async function addCommittedUsage(backend: Backend, result: Map<string, KeyUsage>, periods: UsagePeriods, pending: GenerationRow[]): Promise<void> {
  const keyHashes = [...result.keys()];
  const { generations: g, generationRollups: r } = backend.tables;
  // A rollup's `day` is its records' `created_at` cut after the date: `day < D` holds exactly when
  // `created_at < D`, and a period's start (a midnight) compares the same way cut to its date.
  let split = periods.day.slice(0, 10);
  for (const row of pending) if (row.createdAt < split) split = row.createdAt.slice(0, 10);
  const sums = (at: SQL, cost: SQL, byok: SQL, cut: (start: string) => string) => {
    const since = (start: string, value: SQL) => sql<number>`coalesce(sum(case when ${at} >= ${cut(start)} then ${value} end), 0)`;
    return {
      total: sql<number>`coalesce(sum(${cost}), 0)`,
      daily: since(periods.day, cost),
      weekly: since(periods.week, cost),
      monthly: since(periods.month, cost),
      byokTotal: sql<number>`coalesce(sum(${byok}), 0)`,
      byokDaily: since(periods.day, byok),
      byokWeekly: since(periods.week, byok),
      byokMonthly: since(periods.month, byok),
    };
  };
  const date = (start: string) => start.slice(0, 10);
  const instant = (start: string) => start;
  const byokOfRecord = sql`case when ${g.isByok} then ${g.totalCost} end`;
  const [days, recent] = await Promise.all([
    backend.db
      .select({ keyHash: r.keyHash, ...sums(sql`${r.day}`, sql`${r.totalCost}`, sql`${r.byokCost}`, date) })
      .from(r)
      // Only daily rows name a key (an hourly one sums every key).
      .where(and(inArray(r.keyHash, keyHashes), lt(r.day, split)))
      .groupBy(r.keyHash),
    backend.db
      .select({ keyHash: g.keyHash, ...sums(sql`${g.createdAt}`, sql`${g.totalCost}`, byokOfRecord, instant) })
      .from(g)
      .where(and(inArray(g.keyHash, keyHashes), gte(g.createdAt, split), pending.length === 0 ? undefined : notInArray(g.id, pending.map((row) => row.id))))
      .groupBy(g.keyHash),
  ]);
  for (const { keyHash, ...row } of [...days, ...recent]) if (keyHash !== null) add(result.get(keyHash)!, row);
}
