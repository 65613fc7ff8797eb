/** The arithmetic of bench:alloc (bench/alloc.ts): cells allocated per request, by type, from two heap counts. */

export interface HeapCount {
  /** Cells in the heap by type (bun:jsc's objectTypeCounts). */
  types: Record<string, number>;
  /** A collection ran since the previous count: the difference misses what it freed. */
  collected: boolean;
}

export interface AllocRow {
  target: string;
  /** What one request was: "JSON request", "stream". */
  unit: string;
  requests: number;
  /** Cells allocated per request, by type, largest first. */
  perRequest: Array<[string, number]>;
  total: number;
}

/** Cells allocated per request between two counts (types that did not grow are left out). */
export function allocPerRequest(target: string, unit: string, before: HeapCount, after: HeapCount, requests: number): AllocRow {
  if (after.collected) throw new Error(`${target}: a collection ran between the two counts; measure fewer requests`);
  if (requests <= 0) throw new Error(`${target}: no requests were measured`);
  const perRequest: Array<[string, number]> = [];
  for (const [type, count] of Object.entries(after.types)) {
    const grown = (count - (before.types[type] ?? 0)) / requests;
    if (grown > 0) perRequest.push([type, grown]);
  }
  perRequest.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return { target, unit, requests, perRequest, total: perRequest.reduce((sum, [, n]) => sum + n, 0) };
}

const round1 = (n: number): string => (Math.round(n * 10) / 10).toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/**
 * The report: per unit, one table of the targets' totals (with the ratio to the first target, the
 * floor) and the types that make up most of them (the `top` largest of the last target, the gateway).
 */
export function allocTable(rows: AllocRow[], top = 12): string {
  const lines: string[] = [];
  for (const unit of [...new Set(rows.map((row) => row.unit))]) {
    const group = rows.filter((row) => row.unit === unit);
    const base = group[0]!;
    const last = group[group.length - 1]!;
    const types = last.perRequest.slice(0, top).map(([type]) => type);
    const of = (row: AllocRow, type: string) => row.perRequest.find(([name]) => name === type)?.[1] ?? 0;
    lines.push(`**Cells allocated per ${unit}**`, "");
    lines.push(`| target | cells | × ${base.target} | ${types.join(" | ")} |`);
    lines.push(`|---|---:|---:|${types.map(() => "---:").join("|")}|`);
    for (const row of group) {
      const ratio = base.total > 0 ? `×${(row.total / base.total).toFixed(2)}` : "—";
      lines.push(`| ${row.target} | ${round1(row.total)} | ${ratio} | ${types.map((type) => round1(of(row, type))).join(" | ")} |`);
    }
    lines.push("");
  }
  return lines.join("\n");
}
