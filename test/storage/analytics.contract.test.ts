/** AnalyticsStore on both backends: the same activity rows, query rows (every bucket size) and sums. */
import { describe, expect, test } from "bun:test";
import { AnalyticsStore } from "../../src/db/analytics.ts";
import { DIMENSIONS, GRANULARITIES, METRICS } from "../../src/db/analytics-catalog.ts";
import { GenerationStore } from "../../src/db/generations.ts";
import { DIALECTS, databases } from "./backends.ts";
import { generation, quiet } from "./rows.ts";

const metric = (name: string) => METRICS.find((item) => item.name === name)!;
const dimension = (name: string) => DIMENSIONS.find((item) => item.name === name)!;

/** Wednesday 19 March 2025: its week began on Monday the 17th. */
const BUCKETS = {
  minute: "2025-03-19T10:15:00Z",
  hour: "2025-03-19T10:00:00Z",
  day: "2025-03-19T00:00:00Z",
  week: "2025-03-17T00:00:00Z",
  month: "2025-03-01T00:00:00Z",
};

describe.each(DIALECTS)("AnalyticsStore on %s", (dialect) => {
  const open = databases(dialect);

  test("activity, queries with filters and every bucket size, workspace sums; another workspace never counts", async () => {
    const { backend } = await open();
    const store = new GenerationStore(backend, quiet, { journalFile: null });
    store.record(generation("a", { createdAt: "2025-03-19T10:15:30.000Z", totalCost: 1, status: 200 }));
    store.record(generation("b", { createdAt: "2025-03-19T10:15:45.000Z", totalCost: 2, status: 502, model: "acme/reader" }));
    store.record(generation("c", { createdAt: "2025-03-18T09:00:00.000Z", totalCost: 4, streamed: false }));
    store.record(generation("x", { workspaceId: "ws-2", createdAt: "2025-03-19T10:15:00.000Z", totalCost: 100 }));
    await store.close();
    const analytics = new AnalyticsStore(backend);

    const activity = await analytics.activity("ws-1", { since: "2025-03-18T00:00:00.000Z", until: "2025-03-20T00:00:00.000Z", groupByWorkspace: false });
    expect(activity.map((row) => [row.date, row.model, row.requests, row.usage])).toEqual([
      ["2025-03-18", "acme/writer", 1, 4],
      ["2025-03-19", "acme/reader", 1, 2],
      ["2025-03-19", "acme/writer", 1, 1],
    ]);

    const base = { dimensions: [], filters: [], start: "2025-03-01T00:00:00.000Z", end: "2025-04-01T00:00:00.000Z", limit: 10 };
    for (const granularity of GRANULARITIES) {
      const { rows } = await analytics.query("ws-1", {
        ...base,
        metrics: [metric("request_count")],
        granularity,
        filters: [{ dimension: dimension("status"), operator: "in", value: [200, 502], includeUnset: false }, { dimension: dimension("streamed"), operator: "eq", value: true, includeUnset: false }],
        orderBy: { field: "time_bucket", direction: "asc" },
      });
      expect(rows).toEqual([{ time_bucket: BUCKETS[granularity], request_count: 2 }]);
    }
    const { rows, truncated } = await analytics.query("ws-1", {
      ...base,
      metrics: [metric("total_cost"), metric("error_rate"), metric("throughput")],
      dimensions: [dimension("model")],
      granularity: undefined,
      orderBy: { field: "total_cost", direction: "desc" },
      limit: 1,
    });
    expect(rows).toEqual([{ model: "acme/writer", total_cost: 5, error_rate: 0, throughput: (68 * 1000) / 240 }]);
    expect(truncated).toBe(true);

    expect(await analytics.workspaceSpend("ws-1")).toBe(7);
    expect(await analytics.workspaceSpend("ws-3")).toBe(0);
  });
});
