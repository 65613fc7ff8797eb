import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, callApi, listening } from "./helpers/gateway.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/** The reference's `Key` shape, field for field, through @openrouter/sdk and on the wire. */
const KEY_FIELDS = [
  "hash", "name", "label", "disabled", "limit", "limit_remaining", "limit_reset", "include_byok_in_limit",
  "usage", "usage_daily", "usage_weekly", "usage_monthly",
  "byok_usage", "byok_usage_daily", "byok_usage_weekly", "byok_usage_monthly",
  "created_at", "updated_at", "expires_at", "creator_user_id", "workspace_id",
];

let upstream: Upstream;
let gateway: Awaited<ReturnType<typeof listening>>;
const client = (apiKey: string) => new OpenRouter({ apiKey, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });

beforeAll(async () => {
  upstream = startOpenAiUpstream();
  gateway = await listening({
    configText: `providers:
  up: { type: openai-compatible, base_url: ${upstream.url}/v1 }
models:
  - id: acme/priced
    endpoints: [{ provider: up, model: m, pricing: { prompt: 1000, completion: 1000 } }]
`,
  });
});
afterAll(async () => {
  await gateway.stop();
  await upstream.stop();
});

describe("the Key shape", () => {
  test("every reference field; usage windows and limit_remaining follow spend; GET /key reports rate_limit -1", async () => {
    const sdk = client(ADMIN_KEY);
    const expiresAt = new Date(Date.now() + 86_400_000);
    const created = await sdk.apiKeys.create({ requestBody: { name: "shaped", limit: 5, limitReset: "weekly", expiresAt } });
    const key = created.key;
    const chat = await fetch(`${gateway.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "acme/priced", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(chat.status).toBe(200);
    const cost = (await chat.json()).usage.cost as number;
    expect(cost).toBeGreaterThan(0);

    const raw = (await (await callApi(gateway.url, "GET", `/keys/${created.data.hash}`)).json()).data;
    for (const field of KEY_FIELDS) expect(raw).toHaveProperty(field);
    expect(raw.usage).toBeCloseTo(cost, 9);
    expect(raw.usage_daily).toBeCloseTo(cost, 9);
    expect(raw.usage_weekly).toBeCloseTo(cost, 9);
    expect(raw.usage_monthly).toBeCloseTo(cost, 9);
    expect(raw.limit_remaining).toBeCloseTo(5 - cost, 9);
    expect(raw.byok_usage).toBe(0);
    expect(raw.expires_at).toBe(expiresAt.toISOString());

    const viaSdk = (await sdk.apiKeys.get({ hash: created.data.hash })).data;
    expect(viaSdk.limitRemaining).toBeCloseTo(5 - cost, 9);
    expect(viaSdk.usageWeekly).toBeCloseTo(cost, 9);

    const me = await client(key).apiKeys.getCurrentKeyMetadata();
    expect(me.data).toMatchObject({ isFreeTier: false, isManagementKey: false, isProvisioningKey: false, limit: 5, limitReset: "weekly" });
    expect(me.data.rateLimit.requests).toBe(-1);
    expect(me.data.usageDaily).toBeCloseTo(cost, 9);
    expect(me.data.byokUsageMonthly).toBe(0);
  });

  test("expires_at in another time zone than UTC is refused, naming the field", async () => {
    const response = await callApi(gateway.url, "POST", "/keys", { name: "tz", expires_at: "2099-01-01T00:00:00+02:00" });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toBe("body.expires_at: must be in UTC (end in Z or +00:00)");
    const utc = await callApi(gateway.url, "POST", "/keys", { name: "tz", expires_at: "2099-01-01T00:00:00+00:00" });
    expect(utc.status).toBe(201);
    expect((await utc.json()).data.expires_at).toBe("2099-01-01T00:00:00.000Z");
  });
});
