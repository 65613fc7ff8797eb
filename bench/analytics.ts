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
import { batchWriter } from "../src/db/generation-writer.ts";
import type { GenerationRow } from "../src/db/schema.ts";

const RECORDS = Number(process.argv[2] ?? 1_000_000);
const DAY = 24 * 3600 * 1000;
const BUSY = "ws-busy";
const MODELS = ["acme/writer", "acme/reader", "globex/coder", "globex/chat", "initech/mini", "initech/max", "umbrella/vision", "hooli/embed"];
const KEYS = Array.from({ length: 50 }, (_, index) => `key-${index}`);

/** A small deterministic generator, so two runs seed the same log. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function record(index: number, next: () => number, at: number): GenerationRow {
  const model = MODELS[Math.floor(next() * MODELS.length)]!;
  const provider = model.split("/")[0]!;
  const failed = next() < 0.03;
  return {
    id: `gen-${index}`,
    workspaceId: next() < 0.9 ? BUSY : `ws-${Math.floor(next() * 9)}`,
    keyHash: KEYS[Math.floor(next() * KEYS.length)]!,
    requestId: null,
    style: "chat",
    model,
    providerSlug: provider,
    providerName: provider,
    upstreamModel: model.split("/")[1]!,
    upstreamId: null,
    presetId: null,
    streamed: next() < 0.5,
    cancelled: false,
    status: failed ? 502 : 200,
    errorCode: failed ? "upstream_error" : null,
    finishReason: failed ? null : "stop",
    nativeFinishReason: null,
    tokensPrompt: Math.floor(next() * 4000),
    tokensCompletion: failed ? null : Math.floor(next() * 1000),
    tokensCached: 0,
    tokensCacheWrite: 0,
    tokensReasoning: 0,
    mediaPrompt: 0,
    totalCost: next() / 100,
    latencyMs: Math.floor(next() * 2000),
    generationTimeMs: Math.floor(next() * 8000),
    sessionId: null,
    externalUser: null,
    userAgent: null,
    httpReferer: null,
    serviceTier: null,
    attempts: null,
    warnings: null,
    meters: null,
    costs: null,
    task: null,
    createdAt: new Date(at).toISOString(),
    isByok: false,
    guardrailFlags: null,
  };
}

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
  const next = random(42);
  // Bulk load: no fsync per batch, records in time order (as the gateway writes them).
  backend.sqlite!.exec("PRAGMA synchronous = OFF");
  const step = (30 * DAY) / RECORDS;
  const writer = batchWriter(backend);
  await time(`seed ${RECORDS.toLocaleString("en")} records`, async () => {
    for (let start = 0; start < RECORDS; start += 10_000) {
      const batch = Array.from({ length: Math.min(10_000, RECORDS - start) }, (_, offset) => record(start + offset, next, now - 30 * DAY + (start + offset) * step));
      await writer.write(batch);
    }
  });
  writer.close();
  backend.sqlite!.exec("PRAGMA synchronous = NORMAL");
  await time("ANALYZE", async () => backend.sqlite!.exec("ANALYZE"));
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
  console.log(`(${activity.length} activity rows)`);
} finally {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
}
