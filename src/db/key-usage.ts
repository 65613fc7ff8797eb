import { and, eq, gt, gte, inArray, isNull, lt, type SQL, sql } from "drizzle-orm";
import type { LedgerOwner } from "../core/ledgers.ts";
import type { Backend } from "./backend.ts";
import { idsIn } from "./generation-rollup.ts";
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

// Spend and request counts are read from the rollups, not the records: a few rows per day and model,
// however many requests a day brings. A record and its rollups are committed in one transaction
// (generation-writer.ts), so a record is in the sums exactly when it is committed. The records the store
// still holds in memory (`pending`) may commit at any moment, so the same statement (one snapshot of the
// database) also tells which of them are committed: the caller counts the others from memory, and every
// record is counted once whatever commits while the statement runs.

/** The rows of sums, each named by its group, and the ids of the pending records they already hold. */
interface Committed {
  rows: Array<Record<string, unknown>>;
  committed: Set<string>;
}

type Sums = Record<string, SQL<number>>;

/** One SELECT of the statement: the rows of a table `where` picks, summed per `group` (without one, a single row). */
interface Part {
  from: "rollups" | "records";
  where: SQL | undefined;
  group?: SQL<string | null>;
  sums: Sums;
}

/** A statement's rows as drizzle gives them, and a UNION ALL of more SELECTs of the same columns. */
interface Unionable extends PromiseLike<Array<Record<string, unknown>>> {
  unionAll(other: unknown): Unionable;
}

/**
 * The sums of each part (their rows in one list, each named by its group) and which of `pending` are
 * committed, in one statement: one snapshot of the database.
 */
async function committedSums(backend: Backend, parts: Part[], pending: GenerationRow[]): Promise<Committed> {
  const { generations: g, generationRollups: r } = backend.tables;
  const selects = parts.map((part): Unionable => {
    const selection: Record<string, SQL<unknown>> = { probe: sql<number>`0`, name: part.group ?? sql<string | null>`null`, ...part.sums };
    const selected = backend.db.select(selection).from(part.from === "rollups" ? r : g).where(part.where);
    return (part.group ? selected.groupBy(part.group) : selected) as unknown as Unionable;
  });
  if (pending.length > 0) {
    const probe: Record<string, SQL<unknown>> = { probe: sql<number>`1`, name: sql<string | null>`${g.id}` };
    for (const name of Object.keys(parts[0]!.sums)) probe[name] = sql<number>`0`;
    const listed = idsIn(backend.dialect, g.id, JSON.stringify(pending.map((row) => row.id)));
    selects.push(backend.db.select(probe).from(g).where(listed) as unknown as Unionable);
  }
  const statement = selects.slice(1).reduce((union, next) => union.unionAll(next), selects[0]!);
  const committed = new Set<string>();
  const rows: Array<Record<string, unknown>> = [];
  for (const row of await statement) {
    if (Number(row.probe) === 1) committed.add(String(row.name));
    else rows.push(row);
  }
  return { rows, committed };
}

/**
 * Adds what the keys' committed records cost to `result` (one entry per key hash), for each period
 * and in total; returns the ids of the `pending` records already counted (see committedSums).
 */
export async function addCommittedUsage(backend: Backend, result: Map<string, KeyUsage>, periods: UsagePeriods, pending: GenerationRow[]): Promise<Set<string>> {
  const r = backend.tables.generationRollups;
  // A rollup's `day` is its records' `created_at` cut after the date, and a period starts at a midnight:
  // `day >= D` holds exactly for the records on or after D.
  const since = (start: string, value: SQL) => sql<number>`coalesce(sum(case when ${r.day} >= ${start.slice(0, 10)} then ${value} end), 0)`;
  const cost = sql`${r.totalCost}`;
  const byok = sql`${r.byokCost}`;
  const { rows, committed } = await committedSums(
    backend,
    [
      {
        from: "rollups",
        // Only daily rows name a key (an hourly one sums every key).
        where: inArray(r.keyHash, [...result.keys()]),
        group: sql<string | null>`${r.keyHash}`,
        sums: {
          total: sql<number>`coalesce(sum(${cost}), 0)`,
          daily: since(periods.day, cost),
          weekly: since(periods.week, cost),
          monthly: since(periods.month, cost),
          byokTotal: sql<number>`coalesce(sum(${byok}), 0)`,
          byokDaily: since(periods.day, byok),
          byokWeekly: since(periods.week, byok),
          byokMonthly: since(periods.month, byok),
        },
      },
    ],
    pending,
  );
  for (const row of rows) {
    const usage = typeof row.name === "string" ? result.get(row.name) : undefined;
    if (usage) for (const field of Object.keys(NO_USAGE) as Array<keyof KeyUsage>) usage[field] += Number(row[field] ?? 0);
  }
  return committed;
}

/**
 * What an owner's committed records cost on or after `day` (YYYY-MM-DD, a UTC midnight), and which of
 * `pending` are already counted (see committedSums).
 */
export async function committedSpendSince(backend: Backend, owner: LedgerOwner, day: string, pending: GenerationRow[]): Promise<{ spent: number; committed: Set<string> }> {
  const r = backend.tables.generationRollups;
  const cost = owner.includeByok ? sql`${r.totalCost}` : sql`${r.totalCost} - ${r.byokCost}`;
  const { rows, committed } = await committedSums(
    backend,
    [
      {
        from: "rollups",
        // A workspace's daily rows only: its hourly rows sum the same records again.
        where: and("keyHash" in owner ? eq(r.keyHash, owner.keyHash) : and(eq(r.workspaceId, owner.workspaceId), isNull(r.hour)), gte(r.day, day)),
        sums: { spent: sql<number>`coalesce(sum(${cost}), 0)` },
      },
    ],
    pending,
  );
  return { spent: rows.reduce((total, row) => total + Number(row.spent), 0), committed };
}

/**
 * A workspace's committed successful requests per model since a moment, and which of `pending` are
 * already counted: the hours after the moment's hour from the hourly rollups, the rest of its hour
 * from the records (an index range of at most an hour).
 */
export async function committedRequestsByModel(backend: Backend, workspaceId: string, since: string, pending: GenerationRow[]): Promise<{ counts: Map<string, number>; committed: Set<string> }> {
  const { generations: g, generationRollups: r } = backend.tables;
  // A rollup's `hour` is its records' `created_at` cut after the hour (YYYY-MM-DDTHH).
  const hour = since.slice(0, 13);
  const nextHour = new Date(Date.parse(`${hour}:00:00.000Z`) + 3_600_000).toISOString();
  const { rows, committed } = await committedSums(
    backend,
    [
      {
        from: "rollups",
        where: and(eq(r.workspaceId, workspaceId), gt(r.hour, hour), lt(r.status, 400)),
        group: sql<string | null>`${r.model}`,
        sums: { requests: sql<number>`coalesce(sum(${r.requests}), 0)` },
      },
      {
        from: "records",
        where: and(eq(g.workspaceId, workspaceId), gte(g.createdAt, since), lt(g.createdAt, nextHour), lt(g.status, 400)),
        group: sql<string | null>`${g.model}`,
        sums: { requests: sql<number>`count(*)` },
      },
    ],
    pending,
  );
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(String(row.name), (counts.get(String(row.name)) ?? 0) + Number(row.requests));
  return { counts, committed };
}
