import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, callApi, createKey, inProcess, listening } from "./helpers/gateway.ts";
import { freshDatabaseUrl, reservationsSettled } from "./helpers/postgres.ts";
import { startOpenAiUpstream } from "./helpers/upstreams.ts";

/**
 * Workspace budgets over HTTP: one budget per interval, limits strictly decreasing as the interval
 * narrows, and each enforced at once as one ledger pooled over all of the workspace's keys, on SQLite
 * and on PostgreSQL (team mode).
 */
/** A real local upstream answering 3 prompt and 2 completion tokens. */
const upstream = startOpenAiUpstream();
upstream.behave({ text: "ok", usage: { input: 3, output: 2 } });
afterAll(() => upstream.stop());

const CONFIG = `providers:
  up: { type: openai-compatible, base_url: ${upstream.url}/v1, api_key: k }
models:
  - id: acme/priced
    endpoints: [{ provider: up, model: m, pricing: { prompt: 1000, completion: 1000 }, max_output: 20 }]
`;

test("CRUD: one budget per interval, strictly decreasing limits, unknown intervals refused, DELETE always answers deleted", async () => {
  const gateway = await inProcess();
  const key = await createKey(gateway, { name: "reader" });
  const workspaceId = ((await (await gateway.call("GET", `/keys/${key.hash}`)).json()) as { data: { workspace_id: string } }).data.workspace_id;
  const base = `/workspaces/${workspaceId}/budgets`;
  expect(await (await gateway.call("GET", base)).json()).toEqual({ data: [], include_byok_in_budgets: false });

  const lifetime = await gateway.call("PUT", `${base}/lifetime`, { body: { limit_usd: 10 } });
  expect(lifetime.status).toBe(200);
  expect(((await lifetime.json()) as { data: unknown }).data).toMatchObject({ workspace_id: workspaceId, limit_usd: 10, reset_interval: null });
  expect((await gateway.call("PUT", `${base}/monthly`, { body: { limit_usd: 5, include_byok_in_budgets: true } })).status).toBe(200);

  const equal = await gateway.call("PUT", `${base}/weekly`, { body: { limit_usd: 5 } });
  expect(equal.status).toBe(400);
  const message = ((await equal.json()) as { error: { message: string } }).error.message;
  expect(message).toContain("weekly");
  expect(message).toContain("monthly");
  expect((await gateway.call("PUT", `${base}/lifetime`, { body: { limit_usd: 4 } })).status).toBe(400);
  expect((await gateway.call("PUT", `${base}/daily`, { body: { limit_usd: 0 } })).status).toBe(400);
  const unknown = await gateway.call("PUT", `${base}/yearly`, { body: { limit_usd: 1 } });
  expect(unknown.status).toBe(400);
  expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain("interval");
  expect((await gateway.call("GET", `${base}/hourly`)).status).toBe(400);

  expect((await gateway.call("PUT", `${base}/daily`, { body: { limit_usd: 1 } })).status).toBe(200);
  const listed = (await (await gateway.call("GET", base)).json()) as { data: Array<{ reset_interval: string | null; limit_usd: number }>; include_byok_in_budgets: boolean };
  expect(listed.include_byok_in_budgets).toBe(true);
  expect(listed.data.map((row) => [row.reset_interval, row.limit_usd])).toEqual([[null, 10], ["monthly", 5], ["daily", 1]]);
  expect(((await (await gateway.call("GET", `${base}/monthly`)).json()) as { data: { limit_usd: number } }).data.limit_usd).toBe(5);
  expect((await gateway.call("GET", `${base}/weekly`)).status).toBe(404);

  expect(await (await gateway.call("DELETE", `${base}/weekly`)).json()).toEqual({ deleted: true });
  expect(await (await gateway.call("DELETE", `${base}/monthly`)).json()).toEqual({ deleted: true });
  expect((await gateway.call("GET", `${base}/monthly`)).status).toBe(404);
  expect((await gateway.call("GET", `/workspaces/not-a-workspace/budgets`)).status).toBe(404);
});

describe.each(["sqlite", "postgres"] as const)("enforcement on %s", (dialect) => {
  let gateway: Awaited<ReturnType<typeof listening>>;
  const api = (method: string, path: string, body?: unknown, key = ADMIN_KEY) => callApi(gateway.url, method, path, body, key);
  const chat = (key: string) => api("POST", "/chat/completions", { model: "acme/priced", messages: [{ role: "user", content: "hi" }] }, key);
  /** Team mode deletes a settled reservation behind: each request must see the spend of the ones before. */
  const settled = () => (dialect === "postgres" ? reservationsSettled(gateway.services.backend.pg!) : Promise.resolve());

  beforeAll(async () => {
    gateway = await listening({ configText: CONFIG, ...(dialect === "postgres" ? { databaseUrl: await freshDatabaseUrl() } : {}) });
  });
  afterAll(() => gateway.stop());

  test("a budget is one ledger for every key of the workspace, enforced from the next request on", async () => {
    const keyOn = (name: string) => createKey({ call: (method, path, options) => api(method, path, options?.body) }, { name });
    const [first, second] = [await keyOn("first"), await keyOn("second")];
    const workspaceId = ((await (await api("GET", `/keys/${first.hash}`)).json()) as { data: { workspace_id: string } }).data.workspace_id;
    // Each request reserves 0.038 USD and costs 0.005: 0.05 admits the first three answers of the two keys together, not a fourth.
    expect((await api("PUT", `/workspaces/${workspaceId}/budgets/daily`, { limit_usd: 0.05 })).status).toBe(200);
    const statuses: number[] = [];
    let refusal = "";
    for (const key of [first, second, first, second]) {
      const response = await chat(key.key);
      statuses.push(response.status);
      if (response.status !== 200) refusal = ((await response.json()) as { error: { message: string } }).error.message;
      await settled();
    }
    expect(statuses).toEqual([200, 200, 200, 402]);
    expect(refusal).toContain(`Workspace ${workspaceId}: its daily budget`);

    expect((await api("PUT", `/workspaces/${workspaceId}/budgets/daily`, { limit_usd: 1 })).status).toBe(200);
    let status = 0;
    for (let wait = 0; wait < 30 && status !== 200; wait++) {
      status = (await chat(second.key)).status;
      if (status !== 200) await Bun.sleep(100);
    }
    expect(status).toBe(200);
    expect((await api("DELETE", `/workspaces/${workspaceId}/budgets/daily`)).status).toBe(200);
  });
});
