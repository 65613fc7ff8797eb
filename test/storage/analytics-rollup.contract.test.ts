/**
 * The daily and hourly rollups on both backends: analytics answers read from them (whole days and
 * hours) equal the answers read from the records alone; a record written twice counts once; the
 * backfill migrations build the rows (and ids) the writer builds.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { asc } from "drizzle-orm";
import { type AnalyticsFilter, type AnalyticsQuery, AnalyticsStore } from "../../src/db/analytics.ts";
import { DIMENSIONS, type Granularity, METRICS } from "../../src/db/analytics-catalog.ts";
import type { Backend } from "../../src/db/backend.ts";
import { batchWriter } from "../../src/db/generation-writer.ts";
import type { GenerationRow } from "../../src/db/schema.ts";
import { DIALECTS, databases } from "./backends.ts";
import { generation } from "./rows.ts";

const dimension = (name: string) => DIMENSIONS.find((item) => item.name === name)!;
const HOUR = 3600 * 1000;
const START = Date.parse("2025-03-10T00:00:00.000Z");

/** Ten days of varied records (two workspaces); costs are multiples of 1/64, so sums are exact in any order. */
function records(): GenerationRow[] {
  let state = 7;
  const next = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]!;
  return Array.from({ length: 600 }, (_, index) => {
    const model = pick(["acme/writer", "acme/reader", "globex/chat"]);
    const failed = next() < 0.2;
    return generation(`r${index}`, {
      workspaceId: next() < 0.85 ? "ws-1" : "ws-2",
      keyHash: pick(["key-1", "key-2", "key-3"]),
      style: pick(["chat", "messages"]),
      model,
      providerSlug: next() < 0.1 ? null : model.split("/")[0]!,
      providerName: next() < 0.1 ? null : pick(["Acme", "Globex"]),
      upstreamModel: next() < 0.1 ? null : model.split("/")[1]!,
      status: failed ? pick([429, 502]) : 200,
      streamed: next() < 0.5,
      tokensPrompt: next() < 0.1 ? null : Math.floor(next() * 1000),
      tokensCompletion: failed || next() < 0.1 ? null : Math.floor(next() * 500),
      tokensReasoning: next() < 0.5 ? null : Math.floor(next() * 50),
      tokensCached: Math.floor(next() * 20),
      totalCost: Math.floor(next() * 256) / 64,
      latencyMs: next() < 0.1 ? null : Math.floor(next() * 3000),
      generationTimeMs: next() < 0.1 ? null : Math.floor(next() * 9000),
      createdAt: new Date(START + Math.floor(next() * 240 * HOUR) + Math.floor(next() * 1000)).toISOString(),
    });
  });
}

/** A filter that keeps every record but names a field the rollups do not keep: the answer comes from the records. */
const fromRecordsOnly: AnalyticsFilter = { dimension: dimension("streamed"), operator: "in", value: [true, false], includeUnset: false };

async function seed(backend: Backend): Promise<GenerationRow[]> {
  const rows = records();
  const writer = batchWriter(backend);
  await writer.write(rows.slice(0, 400));
  // A replayed batch (the journal after a crash): stored ids are skipped and must not count twice.
  await writer.write(rows.slice(300));
  writer.close();
  return rows;
}

async function rollupRows(backend: Backend) {
  const { generationRollups: r } = backend.tables;
  return backend.db.select().from(r).orderBy(asc(r.id));
}

describe.each(DIALECTS)("daily and hourly rollups on %s", (dialect) => {
  const open = databases(dialect);

  test("queries read from the rollups answer what the records answer: every metric, kept dimension, filter and bucket size", async () => {
    const { backend } = await open();
    await seed(backend);
    const analytics = new AnalyticsStore(backend);
    const ranges = [
      { start: "2025-03-10T00:00:00.000Z", end: "2025-03-20T00:00:00.000Z" },
      { start: "2025-03-11T07:31:12.345Z", end: "2025-03-18T13:05:00.000Z" },
      { start: "2025-03-01T00:00:00.000Z", end: "2025-03-15T23:59:59.999Z" },
      // Whole hours inside one day, and partial hours at both ends of less than a day.
      { start: "2025-03-12T05:00:00.000Z", end: "2025-03-12T17:00:00.000Z" },
      { start: "2025-03-13T22:15:00.000Z", end: "2025-03-14T03:45:30.000Z" },
    ];
    const shapes: Array<Partial<AnalyticsQuery>> = [
      {},
      { dimensions: [dimension("model")], granularity: "day" as Granularity },
      { dimensions: [dimension("provider"), dimension("api_key_hash")] },
      { dimensions: [dimension("provider_name"), dimension("status")], granularity: "week" as Granularity },
      { dimensions: [dimension("api_type")], granularity: "month" as Granularity },
      { granularity: "hour" as Granularity },
      { dimensions: [dimension("model"), dimension("status")], granularity: "hour" as Granularity },
      { dimensions: [dimension("provider")], granularity: "hour" as Granularity, filters: [{ dimension: dimension("api_key_hash"), operator: "in", value: ["key-1", "key-2"], includeUnset: false }] },
      {
        dimensions: [dimension("model")],
        filters: [
          { dimension: dimension("status"), operator: "lt", value: 400, includeUnset: false },
          { dimension: dimension("provider"), operator: "eq", value: "acme", includeUnset: true },
          { dimension: dimension("api_key_hash"), operator: "not_in", value: ["key-3"], includeUnset: false },
        ],
      },
    ];
    for (const range of ranges) {
      for (const shape of shapes) {
        const query: AnalyticsQuery = {
          metrics: METRICS,
          dimensions: [],
          filters: [],
          granularity: undefined,
          ...range,
          orderBy: { field: "request_count", direction: "desc" },
          limit: 1000,
          ...shape,
        };
        const rolled = await analytics.query("ws-1", query);
        const raw = await analytics.query("ws-1", { ...query, filters: [...query.filters, fromRecordsOnly] });
        expect(rolled.rows.length).toBeGreaterThan(0);
        expect(rolled).toEqual(raw);
      }
    }
    // /activity and /credits: whole days from the rollups, the same as the records give.
    const activity = await analytics.activity("ws-1", { since: "2025-03-10T00:00:00.000Z", until: "2025-03-20T00:00:00.000Z", keyHash: "key-2", groupByWorkspace: false });
    const { rows } = await analytics.query("ws-1", {
      metrics: [METRICS[0]!, METRICS[1]!],
      dimensions: [dimension("model"), dimension("provider")],
      filters: [{ dimension: dimension("api_key_hash"), operator: "eq", value: "key-2", includeUnset: false }, fromRecordsOnly],
      granularity: undefined,
      start: "2025-03-10T00:00:00.000Z",
      end: "2025-03-20T00:00:00.000Z",
      orderBy: { field: "request_count", direction: "desc" },
      limit: 1000,
    });
    const requests = (list: Array<{ requests: number }>) => list.reduce((sum, row) => sum + row.requests, 0);
    expect(requests(activity)).toBe(rows.reduce((sum, row) => sum + (row.request_count as number), 0));
    const spend = rows.reduce((sum, row) => sum + (row.total_cost as number), 0);
    expect(activity.reduce((sum, row) => sum + row.usage, 0)).toBe(spend);
    const all = records().filter((row) => row.workspaceId === "ws-1");
    expect(await analytics.workspaceSpend("ws-1")).toBe(all.reduce((sum, row) => sum + row.totalCost, 0));
    const stored = await rollupRows(backend);
    expect([requests(stored.filter((row) => row.hour === null)), requests(stored.filter((row) => row.hour !== null))]).toEqual([600, 600]);
  });

  test("the backfill migrations build the rows the writer builds, ids included", async () => {
    const { backend } = await open();
    await seed(backend);
    const written = await rollupRows(backend);
    await backend.write((db) => db.delete(backend.tables.generationRollups));
    // Whole days are read from the rollups alone: without them, nothing is counted.
    const analytics = new AnalyticsStore(backend);
    const whole = { start: "2025-03-10T00:00:00.000Z", end: "2025-03-20T00:00:00.000Z", limit: 10, orderBy: { field: "request_count", direction: "desc" as const } };
    const empty = await analytics.query("ws-1", { metrics: [METRICS[0]!], dimensions: [], filters: [], granularity: undefined, ...whole });
    expect(empty.rows).toEqual([{ request_count: 0 }]);
    const hours = await analytics.query("ws-1", { metrics: [METRICS[0]!], dimensions: [], filters: [], granularity: "hour", ...whole, start: "2025-03-12T05:00:00.000Z", end: "2025-03-12T17:00:00.000Z" });
    expect(hours.rows).toEqual([]);
    const files =
      dialect === "sqlite"
        ? ["src/db/migrations/0016_generation_rollups_backfill.sql", "src/db/migrations/0027_generation_hourly_rollups_backfill.sql"]
        : ["src/db/migrations-pg/0012_generation_rollups_backfill.sql", "src/db/migrations-pg/0027_generation_hourly_rollups_backfill.sql"];
    for (const file of files) {
      const backfill = readFileSync(file, "utf8");
      if (backend.sqlite) backend.sqlite.exec(backfill);
      else await backend.pg!.unsafe(backfill);
    }
    expect(await rollupRows(backend)).toEqual(written);
  });
});
