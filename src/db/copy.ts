import { asc, getTableColumns, type Column } from "drizzle-orm";
import type { Backend, Tables } from "./backend.ts";

/**
 * Copies a deployment from one backend to another (`roundhouse migrate --to postgres://…`): every
 * table in foreign-key order, page by page in primary-key order, each page inserted with ON CONFLICT
 * DO NOTHING. Running it again copies only what is missing, so it is idempotent and resumable; rows
 * that exist in the target are never overwritten.
 */

/** Tables in an order where every row's foreign keys point at rows already copied. */
export const COPY_ORDER: Array<keyof Tables> = [
  "workspaces",
  "interns",
  "apiKeys",
  "connections",
  "internConnectionSettings",
  "internFeatures",
  "vaultSecrets",
  "presets",
  "presetVersions",
  "generations",
  "videoJobs",
  "guardrails",
  "guardrailKeyAssignments",
  "observabilityDestinations",
  "byokKeys",
  "files",
  "fileChunks",
  "generationContents",
  "generationFeedback",
  "generationRollups",
  "members",
  "workspaceMembers",
  "memberSessions",
  "workspaceBudgets",
  "guardrailMemberAssignments",
  "scimTokens",
  "scimGroups",
  "scimGroupMembers",
  "scimGroupMappings",
  "oauthCodes",
  "auditLog",
];

export interface CopiedTable {
  table: string;
  /** Rows read from the source. */
  read: number;
  /** Rows the target did not have. */
  inserted: number;
}

/** Rows per page: generations have ~40 columns, and PostgreSQL takes at most 65,535 parameters a statement. */
const PAGE = 500;

/** The table's primary-key columns, for a stable page order. */
function keyColumns(table: Tables[keyof Tables]): Column[] {
  const columns = Object.values(getTableColumns(table)) as Column[];
  const primary = columns.filter((column) => column.primary);
  if (primary.length > 0) return primary;
  // Composite keys are declared on the table, not the columns: order by every column.
  return columns;
}

export async function copyDeployment(
  source: Backend,
  target: Backend,
  onTable?: (copied: CopiedTable) => void,
): Promise<CopiedTable[]> {
  const results: CopiedTable[] = [];
  for (const name of COPY_ORDER) {
    const from = source.tables[name];
    const to = target.tables[name];
    const order = keyColumns(from).map((column) => asc(column));
    const copied: CopiedTable = { table: name, read: 0, inserted: 0 };
    for (let offset = 0; ; offset += PAGE) {
      const rows = (await source.db
        .select()
        .from(from as never)
        .orderBy(...order)
        .limit(PAGE)
        .offset(offset)) as Record<string, unknown>[];
      if (rows.length === 0) break;
      copied.read += rows.length;
      const inserted = (await target.db
        .insert(to as never)
        .values(rows as never)
        .onConflictDoNothing()
        .returning()) as unknown[];
      copied.inserted += inserted.length;
      if (rows.length < PAGE) break;
    }
    results.push(copied);
    onTable?.(copied);
  }
  return results;
}
