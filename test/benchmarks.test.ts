import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { OpenRouter } from "@openrouter/sdk";
import { loadBenchmarks } from "../src/config/benchmarks.ts";
import { ADMIN_KEY, callApi, listening, tempDir } from "./helpers/gateway.ts";

/** GET /benchmarks: an imported snapshot plus the gateway's own measurements, through @openrouter/sdk. */
const dir = tempDir();
const file = join(dir.path, "benchmarks.json");
const SNAPSHOT = {
  meta: { as_of: "2026-08-01", sources: { "artificial-analysis": { citation: "Artificial Analysis, August 2026", source_url: "https://example.test/aa" } } },
  data: [
    { source: "artificial-analysis", model_permaslug: "acme/fast", display_name: "Fast", intelligence_index: 40, coding_index: 30, agentic_index: null, pricing: null },
    { source: "artificial-analysis", model_permaslug: "acme/smart", display_name: "Smart", intelligence_index: 70, coding_index: 65, agentic_index: 50, pricing: { prompt: "0.000001", completion: "0.000002" } },
    {
      source: "design-arena", model_permaslug: "acme/smart", display_name: "Smart", arena: "models", category: "website", elo: 1200, win_rate: 61.5,
      avg_generation_time_ms: 900, tournament_stats: { first_place: 3, second_place: 2, third_place: 1, fourth_place: 0, total: 6 }, pricing: null,
    },
  ],
};
let gateway: Awaited<ReturnType<typeof listening>>;
const sdk = () => new OpenRouter({ apiKey: ADMIN_KEY, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });

beforeAll(async () => {
  writeFileSync(file, JSON.stringify(SNAPSHOT));
  gateway = await listening({
    configText: `benchmarks_file: ${file}
providers:
  local: { type: simulated, simulation: { ttft_ms: 1, tokens_per_second: 10000 } }
models:
  - id: acme/fast
    endpoints: [{ provider: local, pricing: { prompt: 1, completion: 1 } }]
`,
  });
});
afterAll(async () => {
  await gateway.stop();
  dir.remove();
});

describe("GET /benchmarks", () => {
  test("all sources: the snapshot's items and the gateway's own measurement of an endpoint it has used", async () => {
    const chat = await callApi(gateway.url, "POST", "/chat/completions", { model: "acme/fast", messages: [{ role: "user", content: "hi" }] }, (
      await (await callApi(gateway.url, "POST", "/keys", { name: "caller" })).json()
    ).key);
    expect(chat.status).toBe(200);
    const all = await sdk().benchmarks.getBenchmarks();
    expect(all.meta).toMatchObject({ asOf: "2026-08-01", source: null, citation: null, modelCount: 2, version: "v1" });
    expect(all.data.map((item) => item.source).sort()).toEqual(["artificial-analysis", "artificial-analysis", "design-arena", "openrouter"]);
    const own = await sdk().benchmarks.getBenchmarks({ source: "openrouter" });
    expect(own.data).toHaveLength(1);
    expect(own.data[0]).toMatchObject({ modelPermaslug: "acme/fast", benchmarkType: "gateway_traffic", accuracy: 1, totalTasks: 1 });
    const raw = (await (await callApi(gateway.url, "GET", "/benchmarks?source=openrouter")).json()).data[0];
    expect(raw.latency_ms.p50).toBeGreaterThanOrEqual(0);
    expect(raw.tag).toBe("local");
  });

  test("task_type ranks the imported index; source, arena and max_results filter; meta names the source's citation", async () => {
    const coding = await sdk().benchmarks.getBenchmarks({ source: "artificial-analysis", taskType: "coding", maxResults: 1 });
    expect(coding.data.map((item) => item.modelPermaslug)).toEqual(["acme/smart"]);
    expect(coding.meta).toMatchObject({ source: "artificial-analysis", taskType: "coding", citation: "Artificial Analysis, August 2026", sourceUrl: "https://example.test/aa" });
    const agentic = await sdk().benchmarks.getBenchmarks({ taskType: "agentic" });
    expect(agentic.data.map((item) => item.modelPermaslug)).toEqual(["acme/smart"]);
    expect((await sdk().benchmarks.getBenchmarks({ source: "design-arena", arena: "builders" })).data).toEqual([]);
    expect((await sdk().benchmarks.getBenchmarks({ source: "design-arena", category: "website" })).data).toHaveLength(1);
  });

  test("a value outside an enumeration is a 400 naming the parameter", async () => {
    const response = await callApi(gateway.url, "GET", "/benchmarks?source=somewhere");
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toContain("source");
  });

  test("a snapshot file that is not the shape stops the start, naming the place", () => {
    const bad = join(dir.path, "bad.json");
    writeFileSync(bad, JSON.stringify({ meta: {}, data: [] }));
    expect(() => loadBenchmarks(bad)).toThrow(`benchmarks_file: ${bad}/meta/as_of`);
    expect(() => loadBenchmarks(join(dir.path, "missing.json"))).toThrow("benchmarks_file: cannot read");
  });
});
