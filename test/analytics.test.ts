import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, callApi, listening } from "./helpers/gateway.ts";
import { generation } from "./storage/rows.ts";

/** Activity, analytics and credits through the real @openrouter/sdk, over records seeded in the log. */
let gateway: Awaited<ReturnType<typeof listening>>;
let sdk: OpenRouter;
let workspaceId: string;
let keyHash: string;
let inferenceKey: string;

const DAY = 24 * 3600 * 1000;
const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
const at = (daysAgo: number, hour = 10) => new Date(today - daysAgo * DAY + hour * 3600 * 1000).toISOString();
const dayOf = (daysAgo: number) => new Date(today - daysAgo * DAY).toISOString().slice(0, 10);

/**
 * The SDK's row schema is an empty object (its rows are free-form and it strips every field), so a
 * query's rows are read over plain HTTP; the SDK checks the envelope.
 */
async function rows(body: Record<string, unknown>): Promise<{ data: Array<Record<string, unknown>>; metadata: Record<string, unknown> }> {
  const response = await callApi(gateway.url, "POST", "/analytics/query", body);
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { data: Array<Record<string, unknown>>; metadata: Record<string, unknown> } }).data;
}

function client(apiKey: string): OpenRouter {
  return new OpenRouter({ apiKey, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });
}

beforeAll(async () => {
  gateway = await listening();
  sdk = client(ADMIN_KEY);
  workspaceId = (await sdk.apiKeys.getCurrentKeyMetadata()).data.workspaceId!;
  const created = await sdk.apiKeys.create({ requestBody: { name: "spender", limit: 40 } });
  keyHash = created.data.hash;
  inferenceKey = created.key;
  const own = { workspaceId, keyHash };
  const record = gateway.services.generations;
  record.record(generation("g1", { ...own, createdAt: at(1), totalCost: 1, tokensPrompt: 10, tokensCompletion: 20, tokensReasoning: 2 }));
  record.record(generation("g2", { ...own, createdAt: at(1, 11), totalCost: 2, tokensPrompt: 1, tokensCompletion: 2, tokensReasoning: 0 }));
  record.record(generation("g3", { ...own, createdAt: at(2), model: "acme/reader", upstreamModel: "reader-1", totalCost: 0.5, status: 502, tokensCompletion: null }));
  record.record(generation("g4", { ...own, createdAt: at(40), totalCost: 100 }));
  record.record(generation("g5", { ...own, createdAt: at(0, 0), totalCost: 3 }));
  record.record(generation("f1", { workspaceId: "another-workspace", keyHash: "another-key", createdAt: at(1), totalCost: 1000 }));
  await record.flush();
});

afterAll(async () => {
  await gateway.stop();
});

describe("GET /activity", () => {
  test("daily rows of the last 30 completed UTC days, per model and endpoint, own workspace only", async () => {
    const activity = await sdk.analytics.getUserActivity();
    expect(activity.data).toEqual([
      {
        date: dayOf(2), model: "acme/reader", modelPermaslug: "acme/reader", endpointId: "acme/reader-1", providerName: "Acme",
        requests: 1, promptTokens: 12, completionTokens: 0, reasoningTokens: 5, usage: 0.5, byokUsageInference: 0,
      },
      {
        date: dayOf(1), model: "acme/writer", modelPermaslug: "acme/writer", endpointId: "acme/writer-1", providerName: "Acme",
        requests: 2, promptTokens: 11, completionTokens: 22, reasoningTokens: 2, usage: 3, byokUsageInference: 0,
      },
    ]);
  });

  test("filters: one day, a key, a workspace, grouped by workspace", async () => {
    expect((await sdk.analytics.getUserActivity({ date: dayOf(1) })).data.map((row) => row.date)).toEqual([dayOf(1)]);
    expect((await sdk.analytics.getUserActivity({ apiKeyHash: "nobody" })).data).toEqual([]);
    expect((await sdk.analytics.getUserActivity({ apiKeyHash: keyHash })).data).toHaveLength(2);
    const grouped = await sdk.analytics.getUserActivity({ groupBy: "workspace", workspaceId });
    expect(grouped.data.map((row) => row.workspaceId)).toEqual([workspaceId, workspaceId]);
    await expect(sdk.analytics.getUserActivity({ workspaceId: "another-workspace" })).rejects.toMatchObject({ statusCode: 404 });
  });

  test("a day outside the window or malformed is a 400 naming date", async () => {
    for (const date of [dayOf(0), dayOf(31), "2025-02-30", "yesterday"]) {
      const response = await callApi(gateway.url, "GET", `/activity?date=${date}`);
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toContain("date");
    }
  });

  test("an inference key is refused with 403", async () => {
    await expect(client(inferenceKey).analytics.getUserActivity()).rejects.toMatchObject({ statusCode: 403 });
  });
});

describe("analytics", () => {
  test("meta lists metrics, dimensions, granularities and operators", async () => {
    const meta = await sdk.analytics.getAnalyticsMeta();
    expect(meta.data.metrics.map((metric) => metric.name)).toContain("request_count");
    expect(meta.data.dimensions.map((dimension) => dimension.name)).toContain("model");
    expect(meta.data.granularities.map((granularity) => granularity.name)).toEqual(["minute", "hour", "day", "week", "month"]);
    expect(meta.data.operators).toContainEqual({ name: "not_in", valueType: "array" });
  });

  test("query: metrics by day and model over a time range, ordered, limited, truncated", async () => {
    const timeRange = { start: at(3), end: new Date(today + DAY).toISOString() };
    const typed = await sdk.analytics.queryAnalytics({
      requestBody: { metrics: ["request_count"], dimensions: ["model"], granularity: "day", timeRange: { start: new Date(timeRange.start), end: new Date(timeRange.end) } },
    });
    expect(typed.data.metadata).toMatchObject({ rowCount: 3, truncated: false });
    const result = await rows({ metrics: ["request_count", "total_cost", "error_rate"], dimensions: ["model"], granularity: "day", time_range: timeRange });
    expect(result.data).toEqual([
      { time_bucket: `${dayOf(2)}T00:00:00Z`, model: "acme/reader", request_count: 1, total_cost: 0.5, error_rate: 1 },
      { time_bucket: `${dayOf(1)}T00:00:00Z`, model: "acme/writer", request_count: 2, total_cost: 3, error_rate: 0 },
      { time_bucket: `${dayOf(0)}T00:00:00Z`, model: "acme/writer", request_count: 1, total_cost: 3, error_rate: 0 },
    ]);
    const limited = await rows({ metrics: ["total_cost"], dimensions: ["model"], time_range: timeRange, order_by: { field: "total_cost", direction: "desc" }, limit: 1 });
    expect(limited.data).toEqual([{ model: "acme/writer", total_cost: 6 }]);
    expect(limited.metadata).toMatchObject({ row_count: 1, truncated: true });
  });

  test("query: filters with every operator kind, include_unset, and the default 30-day range", async () => {
    const query = async (filters: unknown[]) => (await rows({ metrics: ["request_count"], filters })).data;
    expect(await query([])).toEqual([{ request_count: 4 }]);
    expect(await query([{ field: "status", operator: "gte", value: 500 }])).toEqual([{ request_count: 1 }]);
    expect(await query([{ field: "model", operator: "in", value: ["acme/reader", "x"] }])).toEqual([{ request_count: 1 }]);
    expect(await query([{ field: "model", operator: "not_in", value: ["acme/reader"] }])).toEqual([{ request_count: 3 }]);
    expect(await query([{ field: "preset_id", operator: "eq", value: "p" }])).toEqual([{ request_count: 0 }]);
    expect(await query([{ field: "preset_id", operator: "eq", value: "p", include_unset: true }])).toEqual([{ request_count: 4 }]);
    expect(await query([{ field: "api_key_hash", operator: "neq", value: keyHash }])).toEqual([{ request_count: 0 }]);
  });

  test("week and month buckets start on Monday and the first of the month", async () => {
    const weeks = (await rows({ metrics: ["request_count"], granularity: "week" })).data;
    expect(weeks.length).toBeGreaterThan(0);
    for (const row of weeks) expect(new Date(row.time_bucket as string).getUTCDay()).toBe(1);
    const months = (await rows({ metrics: ["request_count"], granularity: "month" })).data;
    for (const row of months) expect(row.time_bucket).toMatch(/^\d{4}-\d{2}-01T00:00:00Z$/);
    const hours = (await rows({ metrics: ["request_count"], granularity: "hour", filters: [{ field: "model", operator: "eq", value: "acme/writer" }] })).data;
    expect(hours).toContainEqual({ time_bucket: `${dayOf(1)}T11:00:00Z`, request_count: 1 });
  });

  test("anything unknown is a 400 naming the field", async () => {
    const cases: Array<[unknown, string]> = [
      [{ metrics: ["nope"] }, "body.metrics[0]"],
      [{ metrics: [] }, "metrics"],
      [{ metrics: ["request_count"], dimensions: ["a", "b", "c"] }, "dimensions"],
      [{ metrics: ["request_count"], dimensions: ["colour"] }, "body.dimensions[0]"],
      [{ metrics: ["request_count"], granularity: "fortnight" }, "body.granularity"],
      [{ metrics: ["request_count"], filters: [{ field: "model", operator: "like", value: "a" }] }, "body.filters[0].operator"],
      [{ metrics: ["request_count"], filters: [{ field: "model", operator: "in", value: "a" }] }, "body.filters[0].value"],
      [{ metrics: ["request_count"], filters: [{ field: "status", operator: "eq", value: "ok" }] }, "body.filters[0].value"],
      [{ metrics: ["request_count"], filters: [{ field: "colour", operator: "eq", value: "a" }] }, "body.filters[0].field"],
      [{ metrics: ["request_count"], order_by: { field: "model", direction: "asc" } }, "body.order_by.field"],
      [{ metrics: ["request_count"], time_range: { start: "2025-02-01T00:00:00Z", end: "2025-01-01T00:00:00Z" } }, "time_range"],
      [{ metrics: ["request_count"], classifier_dimensions: { classifier_id: "x" } }, "classifier_dimensions"],
      [{ metrics: ["request_count"], colour: "red" }, "colour"],
      [{ metrics: ["request_count"], filters: Array.from({ length: 21 }, () => ({ field: "model", operator: "eq", value: "a" })) }, "filters"],
    ];
    for (const [body, field] of cases) {
      const response = await callApi(gateway.url, "POST", "/analytics/query", body);
      const text = await response.text();
      expect({ status: response.status, names: text.includes(field), text }).toMatchObject({ status: 400, names: true });
    }
  });
});

describe("GET /credits", () => {
  test("without workspace budgets: the limits of its keys and its spend of all time from the price table", async () => {
    const credits = await sdk.credits.getCredits();
    expect(credits.data).toEqual({ totalCredits: 40, totalUsage: 106.5 });
    await expect(client(inferenceKey).credits.getCredits()).rejects.toMatchObject({ statusCode: 403 });
  });

  test("with workspace budgets: the one with the least headroom left, its limit against the spend of its current period", async () => {
    const put = (interval: string, limit: number) => callApi(gateway.url, "PUT", `/workspaces/${workspaceId}/budgets/${interval}`, { limit_usd: limit });
    try {
      expect((await put("lifetime", 200)).status).toBe(200);
      // Lifetime: 106.5 of 200 spent, 93.5 left.
      expect((await sdk.credits.getCredits()).data).toEqual({ totalCredits: 200, totalUsage: 106.5 });
      // Today only g5 (3) counts against a daily budget of 4: 1 left, so the daily budget governs.
      expect((await put("daily", 4)).status).toBe(200);
      expect((await sdk.credits.getCredits()).data).toEqual({ totalCredits: 4, totalUsage: 3 });
    } finally {
      for (const interval of ["daily", "lifetime"]) await callApi(gateway.url, "DELETE", `/workspaces/${workspaceId}/budgets/${interval}`);
    }
    expect((await sdk.credits.getCredits()).data).toEqual({ totalCredits: 40, totalUsage: 106.5 });
  });
});

describe("GET /generations", () => {
  const list = async (query: string) => {
    const response = await callApi(gateway.url, "GET", `/generations${query}`);
    return { status: response.status, body: (await response.json()) as { data: Array<{ id: string }>; next_cursor: string | null } };
  };

  test("the workspace's records newest first, filtered, paged by cursor", async () => {
    const all = await list("");
    expect(all.body.data.map((row) => row.id)).toEqual(["g5", "g2", "g1", "g3", "g4"]);
    expect((await list("?status=502")).body.data.map((row) => row.id)).toEqual(["g3"]);
    expect((await list("?model=acme/reader")).body.data.map((row) => row.id)).toEqual(["g3"]);
    expect((await list(`?api_key_hash=${keyHash}&provider=acme&since=${encodeURIComponent(at(1, 10))}&until=${encodeURIComponent(at(0, 0))}`)).body.data.map((row) => row.id)).toEqual(["g2", "g1"]);
    const first = await list("?limit=2");
    expect(first.body.data.map((row) => row.id)).toEqual(["g5", "g2"]);
    const second = await list(`?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((row) => row.id)).toEqual(["g1", "g3"]);
    const third = await list(`?limit=2&cursor=${second.body.next_cursor}`);
    expect(third.body).toMatchObject({ data: [{ id: "g4" }], next_cursor: null });
    expect((await list("?cursor=nonsense")).status).toBe(400);
    expect((await list("?status=ok")).status).toBe(400);
  });
});
