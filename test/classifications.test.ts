import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, callApi, listening } from "./helpers/gateway.ts";

/** GET /classifications/task: shares of the workspace's traffic per task the auto-router classified. */
let gateway: Awaited<ReturnType<typeof listening>>;
const sdk = (key = ADMIN_KEY) => new OpenRouter({ apiKey: key, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });

beforeAll(async () => {
  gateway = await listening({
    configText: `providers:
  local: { type: simulated, simulation: { ttft_ms: 1, tokens_per_second: 10000 } }
models:
  - id: acme/coder
    coding_index: 60
    intelligence_index: 50
    endpoints: [{ provider: local, pricing: { prompt: 1, completion: 1 } }]
`,
  });
});
afterAll(() => gateway.stop());

const ask = async (key: string, content: string, model = "openrouter/auto") => {
  const response = await callApi(gateway.url, "POST", "/chat/completions", { model, messages: [{ role: "user", content }] }, key);
  expect(response.status).toBe(200);
  return (await response.json()).id as string;
};

describe("GET /classifications/task", () => {
  test("each auto-routed generation records its task; the route gives shares of this workspace's classified traffic only", async () => {
    const { key } = await (await callApi(gateway.url, "POST", "/keys", { name: "caller" })).json();
    const id = await ask(key, "Please debug this stack trace: TypeError at line 3");
    await ask(key, "Fix this bug: the loop doesn't work");
    await ask(key, "Write a poem about trains");
    await ask(key, "unclassified text", "acme/coder");
    expect((await gateway.services.generations.get((await sdk().apiKeys.getCurrentKeyMetadata()).data.workspaceId!, id))?.task).toBe("code:debugging");

    const { data } = await sdk().classifications.getTaskClassifications({ window: "7d" });
    expect(data.windowDays).toBe(7);
    expect(data.asOf).toBe(new Date().toISOString().slice(0, 10));
    expect(data.classifications.map((item) => [item.tag, item.macroCategory, item.usageShare])).toEqual([
      ["code:debugging", "code", 0.666667],
      ["writing:creative", "general", 0.333333],
    ]);
    expect(data.classifications[0]).toMatchObject({ displayName: "Code: debugging", categoryUsageShare: 1, models: [{ id: "acme/coder", tagUsageShare: 1 }] });
    expect(data.macroCategories.map((item) => item.key)).toEqual(["code", "general"]);

    // Another workspace sees none of it.
    const other = await sdk().workspaces.create({ createWorkspaceRequest: { name: "Other", slug: "other-ws" } });
    const { key: otherKey } = await sdk().apiKeys.create({ requestBody: { name: "other", workspaceId: other.data.id } });
    expect((await sdk(otherKey).classifications.getTaskClassifications()).data.classifications).toEqual([]);
  });

  test("a window other than 7d is a 400 naming it", async () => {
    const response = await callApi(gateway.url, "GET", "/classifications/task?window=30d");
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toContain("window");
  });
});
