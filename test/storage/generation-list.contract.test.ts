/**
 * The generations list (AnalyticsStore.recent, GET /generations) on both backends: newest first,
 * paged by a (time, id) cursor through records that share a time, each filter and combination finding
 * exactly its records; and on SQLite, a model or provider filter read through its own index rather
 * than a walk over the workspace's records.
 */
import { describe, expect, test } from "bun:test";
import { AnalyticsStore, type RecentFilter } from "../../src/db/analytics.ts";
import { GenerationStore } from "../../src/db/generations.ts";
import type { GenerationRow } from "../../src/db/schema.ts";
import { DIALECTS, databases } from "./backends.ts";
import { generation, quiet } from "./rows.ts";

const MODELS = [
  { model: "acme/writer", providerSlug: "acme" },
  { model: "acme/writer", providerSlug: "globex" },
  { model: "globex/coder", providerSlug: "globex" },
  { model: "stark/legacy", providerSlug: "stark" },
];

/** 40 records of ws-1 over 10 moments (four share each moment), a few of ws-2 at the same moments. */
function records(): GenerationRow[] {
  const rows: GenerationRow[] = [];
  for (let index = 0; index < 40; index++) {
    const { model, providerSlug } = MODELS[(index * 7) % MODELS.length]!;
    const createdAt = new Date(Date.UTC(2025, 2, 19, 10, Math.floor(index / 4))).toISOString();
    const status = index % 5 === 0 ? 502 : 200;
    rows.push(generation(`g${String(index).padStart(2, "0")}`, { model, providerSlug, createdAt, status }));
  }
  for (let index = 0; index < 6; index++) rows.push(generation(`w${index}`, { workspaceId: "ws-2", model: "stark/legacy", providerSlug: "stark", createdAt: rows[index * 5]!.createdAt }));
  return rows;
}

/** Every page of a filter, following each page's last row as the cursor. */
async function everyPage(store: AnalyticsStore, filter: Omit<RecentFilter, "limit" | "before">, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let before: RecentFilter["before"];
  for (;;) {
    const rows = await store.recent("ws-1", { ...filter, before, limit });
    if (rows.length === 0) return pages;
    pages.push(rows.map((row) => row.id));
    const last = rows.at(-1)!;
    before = { createdAt: last.createdAt, id: last.id };
  }
}

/** The same list computed here: ws-1's matching records, newest first, ties by id descending. */
function expected(rows: GenerationRow[], match: (row: GenerationRow) => boolean, limit: number): string[][] {
  const ids = rows
    .filter((row) => row.workspaceId === "ws-1" && match(row))
    .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
    .map((row) => row.id);
  const pages: string[][] = [];
  for (let start = 0; start < ids.length; start += limit) pages.push(ids.slice(start, start + limit));
  return pages;
}

describe.each(DIALECTS)("the generations list on %s", (dialect) => {
  const open = databases(dialect);

  test("every filter and combination pages newest first through records sharing a time, each record once", async () => {
    const { backend } = await open();
    const rows = records();
    const writer = new GenerationStore(backend, quiet, { journalFile: null });
    for (const row of rows) writer.record(row);
    await writer.close();
    const store = new AnalyticsStore(backend);
    const since = rows[13]!.createdAt;
    const cases: Array<[Omit<RecentFilter, "limit" | "before">, (row: GenerationRow) => boolean]> = [
      [{}, () => true],
      [{ model: "acme/writer" }, (row) => row.model === "acme/writer"],
      [{ model: "stark/legacy" }, (row) => row.model === "stark/legacy"],
      [{ model: "nobody/none" }, () => false],
      [{ provider: "globex" }, (row) => row.providerSlug === "globex"],
      [{ provider: "nobody" }, () => false],
      [{ status: 502 }, (row) => row.status === 502],
      [{ status: 418 }, () => false],
      [{ since }, (row) => row.createdAt >= since],
      [{ model: "acme/writer", provider: "globex" }, (row) => row.model === "acme/writer" && row.providerSlug === "globex"],
      [{ model: "acme/writer", status: 502 }, (row) => row.model === "acme/writer" && row.status === 502],
      [{ provider: "globex", since }, (row) => row.providerSlug === "globex" && row.createdAt >= since],
    ];
    for (const [filter, match] of cases) {
      for (const limit of [3, 50]) expect({ filter, limit, pages: await everyPage(store, filter, limit) }).toEqual({ filter, limit, pages: expected(rows, match, limit) });
    }
    // The cases cover pages that end inside a moment four records share.
    expect(expected(rows, () => true, 3)[0]).toEqual(["g39", "g38", "g37"]);
  });

  if (dialect === "sqlite") {
    test("the list's own statement: a model or provider filter reads its own index, a later page starts at the cursor's time", async () => {
      const { backend } = await open();
      const store = new AnalyticsStore(backend);
      const plan = (filter: Omit<RecentFilter, "limit">) => {
        const { sql, params } = store.recentStatement("ws-1", { ...filter, limit: 51 });
        const rows = backend.sqlite!.query(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as Array<string | number>)) as Array<{ detail: string }>;
        return rows.map((row) => row.detail).join("; ");
      };
      const before = { createdAt: "2025-03-19T10:00:00.000Z", id: "g10" };
      expect(plan({ model: "acme/writer" })).toContain("USING INDEX generations_workspace_model_created_idx (workspace_id=? AND model=?)");
      expect(plan({ provider: "acme", status: 418 })).toContain("USING INDEX generations_workspace_provider_created_idx (workspace_id=? AND provider_slug=?)");
      expect(plan({ model: "acme/writer", before })).toContain("USING INDEX generations_workspace_model_created_idx (workspace_id=? AND model=? AND created_at<?)");
      expect(plan({ before })).toContain("USING INDEX generations_workspace_created_status_idx (workspace_id=? AND created_at<?)");
      expect(plan({ status: 418 })).toContain("USING INDEX generations_workspace_created_status_idx (workspace_id=?)");
    });
  }
});
