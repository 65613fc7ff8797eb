import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, callApi, createKey, inProcess, listening } from "./helpers/gateway.ts";
import { freshDatabaseUrl, reservationsSettled } from "./helpers/postgres.ts";
import { startOpenAiUpstream } from "./helpers/upstreams.ts";

/**
 * BYOK accounting through real inference: a generation served with a BYOK credential says so in its
 * answer, its record and its key's usage, and counts against the key's limit and a guardrail's budget
 * only when they include BYOK spend; on SQLite (in-memory ledgers) and PostgreSQL (team mode).
 */
const BYOK = "Bearer sk-byok-secret-0001";
/** A real local upstream answering 3 prompt and 2 completion tokens; it records which credential each request carried. */
const upstream = startOpenAiUpstream();
upstream.behave({ text: "ok", usage: { input: 3, output: 2 } });
/** The credential the upstream saw on its last request. */
const lastCredential = () => upstream.requests.at(-1)?.headers.authorization;

const CONFIG = `providers:
  up: { type: openai-compatible, base_url: ${upstream.url}/v1, api_key: configured-key }
models:
  - id: acme/priced
    endpoints: [{ provider: up, model: m, pricing: { prompt: 1000, completion: 1000 }, max_output: 20 }]
`;
/** What one answer costs: 5 tokens at 1000 USD per million. */
const COST = 0.005;

afterAll(() => upstream.stop());

describe.each(["sqlite", "postgres"] as const)("BYOK accounting on %s", (dialect) => {
  let gateway: Awaited<ReturnType<typeof listening>>;
  const api = (method: string, path: string, body?: unknown, key = ADMIN_KEY) => callApi(gateway.url, method, path, body, key);
  const keyOn = (body: Record<string, unknown>) => createKey({ call: (method, path, options) => api(method, path, options?.body) }, body);
  const chat = (key: string, path = "/chat/completions") =>
    api("POST", path, path === "/responses" ? { model: "acme/priced", input: "hi" } : { model: "acme/priced", messages: [{ role: "user", content: "hi" }] }, key);

  /** Team mode deletes a settled reservation behind: each request must see the spend of the ones before. */
  const settled = () => (dialect === "postgres" ? reservationsSettled(gateway.services.backend.pg!) : Promise.resolve());

  beforeAll(async () => {
    gateway = await listening({ configText: CONFIG, ...(dialect === "postgres" ? { databaseUrl: await freshDatabaseUrl() } : {}) });
  });
  afterAll(() => gateway.stop());

  test("a BYOK answer says so in usage, in GET /generation and in its key's byok_usage; the configured key's does not", async () => {
    const plain = await keyOn({ name: "plain" });
    const own = await keyOn({ name: "own" });
    expect((await api("POST", "/byok", { provider: "up", key: "sk-byok-secret-0001", allowed_api_key_hashes: [own.hash] })).status).toBe(201);

    const configured = (await (await chat(plain.key)).json()) as { id: string; usage: { is_byok: boolean } };
    expect(configured.usage.is_byok).toBe(false);
    expect(lastCredential()).toBe("Bearer configured-key");
    const answered = await chat(own.key);
    expect(answered.status).toBe(200);
    expect(lastCredential()).toBe(BYOK);
    const json = (await answered.json()) as { id: string; usage: { is_byok: boolean; cost: number } };
    expect(json.usage).toMatchObject({ is_byok: true, cost: COST });
    const responses = (await (await chat(own.key, "/responses")).json()) as { usage: { is_byok: boolean } };
    expect(responses.usage.is_byok).toBe(true);

    const generation = (await (await api("GET", `/generation?id=${json.id}`, undefined, own.key)).json()) as { data: { is_byok: boolean; provider_responses: Array<{ is_byok: boolean }> } };
    expect(generation.data.is_byok).toBe(true);
    expect(generation.data.provider_responses.map((attempt) => attempt.is_byok)).toEqual([true]);
    const other = (await (await api("GET", `/generation?id=${configured.id}`, undefined, plain.key)).json()) as { data: { is_byok: boolean } };
    expect(other.data.is_byok).toBe(false);

    const key = (await (await api("GET", `/keys/${own.hash}`)).json()) as { data: Record<string, number> };
    expect(key.data.usage).toBeCloseTo(2 * COST, 9);
    expect(key.data.byok_usage).toBeCloseTo(2 * COST, 9);
    expect(key.data.byok_usage_daily).toBeCloseTo(2 * COST, 9);
    expect(key.data.byok_usage_monthly).toBeCloseTo(2 * COST, 9);
    const plainKey = (await (await api("GET", `/keys/${plain.hash}`)).json()) as { data: Record<string, number> };
    expect(plainKey.data.byok_usage).toBe(0);
    expect(plainKey.data.usage).toBeCloseTo(COST, 9);
  });

  test("BYOK spend counts against the key's limit only with include_byok_in_limit", async () => {
    // Each request reserves 0.038 USD (its prompt and 20 output tokens): counted, 8 answers (0.04) would not fit in 0.05.
    const limited = await keyOn({ name: "limited", limit: 0.05 });
    expect((await api("POST", "/byok", { provider: "up", key: "sk-byok-secret-0001", allowed_api_key_hashes: [limited.hash] })).status).toBe(201);
    for (let round = 0; round < 8; round++) {
      expect((await chat(limited.key)).status).toBe(200);
      await settled();
    }
    const before = (await (await api("GET", `/keys/${limited.hash}`)).json()) as { data: Record<string, number> };
    expect(before.data.limit_remaining).toBe(0.05);
    expect(before.data.byok_usage).toBeCloseTo(8 * COST, 9);

    expect((await api("PATCH", `/keys/${limited.hash}`, { include_byok_in_limit: true })).status).toBe(200);
    const refused = await chat(limited.key);
    expect(refused.status).toBe(402);
    const after = (await (await api("GET", `/keys/${limited.hash}`)).json()) as { data: Record<string, number> };
    expect(after.data.limit_remaining).toBeCloseTo(0.05 - 8 * COST, 9);
  });

  test("BYOK spend counts against a guardrail's budget only with include_byok_in_budgets", async () => {
    const guarded = await keyOn({ name: "guarded" });
    expect((await api("POST", "/byok", { provider: "up", key: "sk-byok-secret-0001", allowed_api_key_hashes: [guarded.hash] })).status).toBe(201);
    const created = (await (await api("POST", "/guardrails", { name: "small budget", limit_usd: 0.05 })).json()) as { data: { id: string } };
    const id = created.data.id;
    expect((await api("POST", `/guardrails/${id}/assignments/keys`, { key_hashes: [guarded.hash] })).status).toBe(200);
    for (let round = 0; round < 8; round++) {
      expect((await chat(guarded.key)).status).toBe(200);
      await settled();
    }

    expect((await api("PATCH", `/guardrails/${id}`, { include_byok_in_budgets: true })).status).toBe(200);
    // A change reaches the replica's cache through the change feed.
    let refused: Response | undefined;
    for (let wait = 0; wait < 50 && refused === undefined; wait++) {
      const response = await chat(guarded.key);
      if (response.status === 402) refused = response;
      else await Bun.sleep(100);
    }
    const error = (await refused!.json()) as { error: { message: string } };
    expect(error.error.message).toContain("small budget");
  });
});

test("/activity reports each day's BYOK spend as byok_usage_inference", async () => {
  const gateway = await inProcess();
  const key = await createKey(gateway, { name: "activity" });
  const workspaceId = (await (await gateway.call("GET", `/keys/${key.hash}`)).json() as { data: { workspace_id: string } }).data.workspace_id;
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const { generationRow } = await import("../src/pipeline/generation-record.ts");
  const row = (id: string, isByok: boolean, totalCost: number) =>
    generationRow(
      { id, request: { model: "acme/priced", messages: [] } as never, style: "chat", caller: { workspaceId, keyHash: key.hash }, endpoint: undefined, started: performance.now(), attempts: [], images: 0 },
      { status: 200, totalCost, isByok, createdAt: `${yesterday}T10:00:00.000Z` },
    );
  gateway.services.generations.record(row("gen-byok", true, 0.25));
  gateway.services.generations.record(row("gen-own", false, 0.5));
  await gateway.services.generations.flush();
  const activity = (await (await gateway.call("GET", `/activity?date=${yesterday}`)).json()) as { data: Array<{ usage: number; byok_usage_inference: number }> };
  expect(activity.data).toHaveLength(1);
  expect(activity.data[0]).toMatchObject({ usage: 0.75, byok_usage_inference: 0.25 });
});
