import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, callApi, listening, newInferenceKey } from "./helpers/gateway.ts";
import { generation } from "./storage/rows.ts";

/** The public datasets over this workspace's own generation log, through the reference SDK. */
let gateway: Awaited<ReturnType<typeof listening>>;
let workspaceId: string;
const sdk = (key = ADMIN_KEY) => new OpenRouter({ apiKey: key, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });
const DAY_MS = 86_400_000;
const day = (back: number) => new Date(Date.now() - back * DAY_MS).toISOString().slice(0, 10);

beforeAll(async () => {
  gateway = await listening({
    configText: `deployment: { name: Acme Platform }
providers:
  local: { type: simulated, simulation: { ttft_ms: 1, tokens_per_second: 10000 } }
models:
  - id: acme/coder
    endpoints: [{ provider: local, pricing: { prompt: 1, completion: 1 } }]
  - id: acme/seer
    input_modalities: [text, image]
    endpoints: [{ provider: local, pricing: { prompt: 1, completion: 1 } }]
`,
  });
  workspaceId = (await sdk().apiKeys.getCurrentKeyMetadata()).data.workspaceId!;
  const at = (date: string) => `${date}T12:00:00.000Z`;
  const rows = [
    generation("g-1", { workspaceId, model: "acme/coder", tokensPrompt: 100, tokensCompletion: 50, task: "code:debugging", userAgent: "claude-cli/1.0.1", sessionId: "s-1", totalCost: 0.3, createdAt: at("2025-03-18") }),
    generation("g-2", { workspaceId, model: "acme/seer", tokensPrompt: 20, tokensCompletion: 10, task: "writing:translation", httpReferer: "https://www.example.org/", createdAt: at("2025-03-18") }),
    generation("g-3", { workspaceId, model: "acme/coder", tokensPrompt: 20_000, tokensCompletion: 1, finishReason: "tool_calls", createdAt: at("2025-03-19") }),
    // Sessions in the last 7 completed days: claude-cli (two versions, one app) with two one-turn sessions and one of three turns.
    generation("g-4", { workspaceId, model: "acme/coder", userAgent: "claude-cli/1.0.1", sessionId: "a", totalCost: 1, createdAt: at(day(2)) }),
    generation("g-5", { workspaceId, model: "acme/coder", userAgent: "claude-cli/1.0.2", sessionId: "b", totalCost: 3, createdAt: at(day(2)) }),
    ...[1, 2, 3].map((n) => generation(`g-c${n}`, { workspaceId, model: "acme/coder", userAgent: "claude-cli/1.0.2", sessionId: "c", totalCost: 0.5, createdAt: at(day(3)) })),
    generation("g-6", { workspaceId, model: "acme/seer", httpReferer: "https://www.example.org/", sessionId: "d", totalCost: 0.2, createdAt: at(day(1)) }),
    // Before the window of the app ranking's trending comparison.
    generation("g-7", { workspaceId, model: "acme/seer", httpReferer: "https://www.example.org/", tokensPrompt: 10_000, createdAt: at(day(20)) }),
  ];
  for (const row of rows) gateway.services.generations.record(row);
});
afterAll(() => gateway.stop());

const window = { startDate: "2025-03-01", endDate: "2025-03-31" };

describe("GET /datasets/rankings-daily", () => {
  test("tokens per day and model with one `other` row per day, the window echoed, CC BY 4.0 attributed to the operator", async () => {
    const result = await sdk().datasets.getRankingsDaily(window);
    expect(result.data).toEqual([
      { date: "2025-03-18", modelPermaslug: "acme/coder", totalTokens: "150" },
      { date: "2025-03-18", modelPermaslug: "acme/seer", totalTokens: "30" },
      { date: "2025-03-18", modelPermaslug: "other", totalTokens: "0" },
      { date: "2025-03-19", modelPermaslug: "acme/coder", totalTokens: "20001" },
      { date: "2025-03-19", modelPermaslug: "other", totalTokens: "0" },
    ]);
    expect(result.meta).toMatchObject({ startDate: "2025-03-01", endDate: "2025-03-31", version: "v1" });
    const raw = await (await callApi(gateway.url, "GET", "/datasets/rankings-daily?start_date=2025-03-01&end_date=2025-03-31")).json();
    expect(raw.meta).toMatchObject({ license: "CC BY 4.0", license_url: "https://creativecommons.org/licenses/by/4.0/" });
    expect(raw.meta.attribution).toBe(`Source: Acme Platform (/datasets/rankings-daily), as of ${raw.meta.as_of}.`);
  });

  test("period, modality, context_bucket, category and language_type narrow it", async () => {
    const rows = async (request: Parameters<ReturnType<typeof sdk>["datasets"]["getRankingsDaily"]>[0]) =>
      (await sdk().datasets.getRankingsDaily({ ...window, ...request })).data.map((row) => `${row.date} ${row.modelPermaslug} ${row.totalTokens}`);
    expect(await rows({ period: "week" })).toEqual(["2025-03-17 acme/coder 20151", "2025-03-17 acme/seer 30", "2025-03-17 other 0"]);
    expect(await rows({ period: "month" })).toEqual(["2025-03-01 acme/coder 20151", "2025-03-01 acme/seer 30", "2025-03-01 other 0"]);
    expect(await rows({ modality: "image" })).toEqual(["2025-03-18 acme/seer 30", "2025-03-18 other 0"]);
    expect(await rows({ modality: "tool_calling" })).toEqual(["2025-03-19 acme/coder 20001", "2025-03-19 other 0"]);
    expect(await rows({ contextBucket: "100K" })).toEqual(["2025-03-19 acme/coder 20001", "2025-03-19 other 0"]);
    expect(await rows({ category: "translation" })).toEqual(["2025-03-17 acme/seer 30", "2025-03-17 other 0"]);
    expect(await rows({ languageType: "programming", period: "month" })).toEqual(["2025-03-01 acme/coder 150", "2025-03-01 other 0"]);
  });

  test("live traffic counts; another workspace's key sees only its own (none)", async () => {
    const today = day(0);
    const caller = await newInferenceKey(gateway.url, "caller");
    const response = await callApi(gateway.url, "POST", "/chat/completions", { model: "acme/coder", messages: [{ role: "user", content: "hi" }], max_tokens: 4 }, caller);
    expect(response.status).toBe(200);
    const mine = await sdk(caller).datasets.getRankingsDaily({ startDate: today, endDate: today });
    expect(mine.data.map((row) => row.modelPermaslug)).toEqual(["acme/coder", "other"]);
    const other = await sdk().workspaces.create({ createWorkspaceRequest: { name: "Other", slug: "datasets-other" } });
    const { key } = await sdk().apiKeys.create({ requestBody: { name: "reader", workspaceId: other.data.id } });
    expect((await sdk(key).datasets.getRankingsDaily({ startDate: today, endDate: today })).data).toEqual([]);
  });

  test("bad values and refused combinations are 400s naming the parameter", async () => {
    const cases: Array<[string, string]> = [
      ["period=hour", "period"],
      ["modality=video", "modality"],
      ["context_bucket=2K", "context_bucket"],
      ["category=cooking", "category"],
      ["language_type=klingon", "language_type"],
      ["end_date=2024-12-31", "end_date"],
      ["end_date=2025-02-30", "end_date"],
      ["start_date=2025-03-10&end_date=2025-03-01", "start_date"],
      ["category=legal&language_type=natural", "language_type"],
      ["category=legal&modality=text", "modality"],
      ["language_type=natural&context_bucket=1K", "context_bucket"],
      ["category=legal&period=day", "period"],
    ];
    for (const [query, field] of cases) {
      const response = await callApi(gateway.url, "GET", `/datasets/rankings-daily?${query}`);
      expect([query, response.status]).toEqual([query, 400]);
      expect((await response.json()).error.message).toContain(field);
    }
    const clamped = await sdk().datasets.getRankingsDaily({ startDate: "2024-06-01", endDate: "2025-01-05" });
    expect(clamped.meta.startDate).toBe("2025-01-01");
  });
});

describe("GET /datasets/app-rankings", () => {
  test("apps by referer host or user agent (versions merged), ranked by tokens, filtered by category, paged with absolute ranks", async () => {
    const page = await sdk().datasets.getAppRankings(window);
    const data = page.result.data;
    expect(data.map((row) => [row.rank, row.appName, row.totalTokens, row.totalRequests])).toEqual([[1, "Claude Code", "150", 1], [2, "example.org", "30", 1]]);
    expect(data[0]!.appId).toBeGreaterThan(0);
    expect((await sdk().datasets.getAppRankings({ ...window, category: "coding" })).result.data.map((row) => row.appName)).toEqual(["Claude Code"]);
    expect((await sdk().datasets.getAppRankings({ ...window, subcategory: "roleplay" })).result.data).toEqual([]);
    expect((await sdk().datasets.getAppRankings({ ...window, offset: 1 })).result.data.map((row) => [row.rank, row.appName])).toEqual([[2, "example.org"]]);
    const recent = { startDate: day(7), endDate: day(1) };
    expect((await sdk().datasets.getAppRankings({ ...recent, sort: "trending" })).result.data.map((row) => row.appName)).toEqual(["Claude Code"]);
  });

  test("a subcategory outside its category, and bad limits, are 400s naming the parameter", async () => {
    for (const [query, field] of [["category=coding&subcategory=roleplay", "subcategory"], ["limit=0", "limit"], ["offset=101", "offset"], ["sort=newest", "sort"]]) {
      const response = await callApi(gateway.url, "GET", `/datasets/app-rankings?${query}`);
      expect(response.status).toBe(400);
      expect((await response.json()).error.message).toContain(field!);
    }
  });
});

describe("GET /datasets/session-cost", () => {
  test("median spend per session by app, model and turn range over the last 7 completed days", async () => {
    const page = await sdk().datasets.getSessionCost();
    expect(page.result.data).toEqual([
      { appSlug: "claude-cli", appName: "Claude Code", modelPermaslug: "acme/coder", turnRange: "1-turn", medianSessionCostUsd: 2 },
      { appSlug: "claude-cli", appName: "Claude Code", modelPermaslug: "acme/coder", turnRange: "2-9-turns", medianSessionCostUsd: 1.5 },
      { appSlug: "example.org", appName: "example.org", modelPermaslug: "acme/seer", turnRange: "1-turn", medianSessionCostUsd: 0.2 },
    ]);
    expect(page.result.meta).toMatchObject({ version: "v1", windowDays: 7, windowEndDate: day(1) });
    expect((await sdk().datasets.getSessionCost({ appSlug: "example.org" })).result.data.map((row) => row.modelPermaslug)).toEqual(["acme/seer"]);
    expect((await sdk().datasets.getSessionCost({ model: "acme/coder", turnRange: "2-9-turns" })).result.data.map((row) => row.medianSessionCostUsd)).toEqual([1.5]);
    expect((await sdk().datasets.getSessionCost({ limit: 1, offset: 2 })).result.data.map((row) => row.appSlug)).toEqual(["example.org"]);
    const raw = await (await callApi(gateway.url, "GET", "/datasets/session-cost")).json();
    expect(raw.meta.attribution).toBe(`Source: Acme Platform (/datasets/session-cost), as of ${raw.meta.as_of}.`);
  });

  test("bad values are 400s naming the parameter", async () => {
    for (const [query, field] of [["turn_range=3-turns", "turn_range"], ["limit=501", "limit"], ["offset=5001", "offset"]]) {
      const response = await callApi(gateway.url, "GET", `/datasets/session-cost?${query}`);
      expect(response.status).toBe(400);
      expect((await response.json()).error.message).toContain(field!);
    }
  });
});
