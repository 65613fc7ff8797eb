/**
 * Analytics over a large generation log: seeds 1,000,000 records (30 days, one busy workspace holding
 * 90% of them, the rest spread over nine others) into a SQLite file, then times the typical queries of
 * `/activity`, `/analytics/query` and `/credits` against it. `npm run bench:analytics [records]`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteBackend } from "../src/db/backend.ts";
import { AnalyticsStore, type AnalyticsQuery } from "../src/db/analytics.ts";
import { DIMENSIONS, METRICS } from "../src/db/analytics-catalog.ts";
import { GenerationStore } from "../src/db/generations.ts";
import { createLogger } from "../src/core/log.ts";
import { DAY_MS as DAY, seedGenerations } from "./lib/generation-seed.ts";

const RECORDS = Number(process.argv[2] ?? 1_000_000);
const BUSY = "ws-busy";

async function time<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  console.log(`${label.padEnd(64)} ${(performance.now() - started).toFixed(0).padStart(6)} ms`);
  return result;
}

const metric = (name: string) => METRICS.find((item) => item.name === name)!;
const dimension = (name: string) => DIMENSIONS.find((item) => item.name === name)!;

const dir = mkdtempSync(join(tmpdir(), "roundhouse-bench-analytics-"));
const backend = openSqliteBackend({ dataDir: dir });
try {
  const now = Date.now();
  await time(`seed ${RECORDS.toLocaleString("en")} records (and ANALYZE)`, () =>
    seedGenerations(backend, { records: RECORDS, busy: BUSY, others: Array.from({ length: 9 }, (_, index) => `ws-${index}`), end: now, days: 30, analyze: true }),
  );
  const store = new AnalyticsStore(backend);
  const end = new Date(now).toISOString();
  const start = new Date(now - 30 * DAY).toISOString();
  const today = Date.parse(`${end.slice(0, 10)}T00:00:00.000Z`);
  const query = (fields: Partial<AnalyticsQuery>): AnalyticsQuery => ({
    metrics: [metric("request_count"), metric("total_cost")],
    dimensions: [],
    filters: [],
    granularity: undefined,
    start,
    end,
    orderBy: { field: "request_count", direction: "desc" },
    limit: 1000,
    ...fields,
  });
  const activity = await time("GET /activity (30 days, busy workspace)", () =>
    store.activity(BUSY, { since: new Date(today - 30 * DAY).toISOString(), until: new Date(today).toISOString(), groupByWorkspace: false }),
  );
  await time("GET /activity (one key)", () =>
    store.activity(BUSY, { since: new Date(today - 30 * DAY).toISOString(), until: new Date(today).toISOString(), keyHash: "key-7", groupByWorkspace: false }),
  );
  await time("query: totals over 30 days", () => store.query(BUSY, query({})));
  await time("query: cost and tokens by day and model", () =>
    store.query(BUSY, query({ metrics: [metric("total_cost"), metric("prompt_tokens"), metric("completion_tokens")], dimensions: [dimension("model")], granularity: "day", orderBy: { field: "time_bucket", direction: "asc" } })),
  );
  await time("query: requests and error rate by hour", () =>
    store.query(BUSY, query({ metrics: [metric("request_count"), metric("error_rate")], granularity: "hour", orderBy: { field: "time_bucket", direction: "asc" } })),
  );
  await time("query: latency and throughput by provider and key", () =>
    store.query(BUSY, query({ metrics: [metric("avg_latency_ms"), metric("throughput")], dimensions: [dimension("provider"), dimension("api_key_hash")], orderBy: { field: "avg_latency_ms", direction: "desc" } })),
  );
  await time("query: one model, errors only, by week", () =>
    store.query(BUSY, query({ filters: [{ dimension: dimension("model"), operator: "eq", value: "acme/writer", includeUnset: false }, { dimension: dimension("status"), operator: "gte", value: 400, includeUnset: false }], granularity: "week", orderBy: { field: "time_bucket", direction: "asc" } })),
  );
  await time("query: last day by minute", () =>
    store.query(BUSY, query({ start: new Date(now - DAY).toISOString(), granularity: "minute", orderBy: { field: "time_bucket", direction: "asc" }, limit: 10_000 })),
  );
  await time("GET /credits (workspace spend)", () => store.workspaceSpend(BUSY));
  // What keys spent: `GET /key`, the keys list, and the first read of a spend limit or a workspace budget.
  const generations = new GenerationStore(backend, createLogger("error"), { journalFile: null });
  await time("GET /key (one key's usage: total, day, week, month)", () => generations.usageByKey(["key-7"], new Date(now)));
  await time("GET /keys (the usage of the busy workspace's 50 keys)", () => generations.usageByKey(Array.from({ length: 50 }, (_, index) => `key-${index}`), new Date(now)));
  const month = new Date(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1));
  await time("spend limit, first read (one key since the month's start)", () => generations.spentSince({ keyHash: "key-7", includeByok: true }, month));
  await time("workspace budget, first read (busy workspace, month)", () => generations.spentSince({ workspaceId: BUSY, includeByok: false }, month));
  await time("GET /models?order=most-popular (30 days, busy workspace)", () => generations.popularity(BUSY, new Date(now - 30 * DAY)));
  await generations.close();
  console.log(`(${activity.length} activity rows)`);
} finally {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
}
