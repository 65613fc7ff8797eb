import { afterAll, beforeAll, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, callApi, listening } from "./helpers/gateway.ts";

/**
 * BYOK credentials over HTTP: CRUD through the reference SDK, secrets never returned, and routing that
 * sends them (in order, allow-lists honoured) to a real upstream that checks the Authorization header.
 */
const accepted = new Set<string>();
const seen: string[] = [];
const upstream = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const authorization = request.headers.get("authorization") ?? "";
    seen.push(authorization);
    if (!accepted.has(authorization)) return Response.json({ error: { message: "bad key" } }, { status: 401 });
    const body = (await request.json()) as { model: string };
    return Response.json({
      id: "up-1",
      object: "chat.completion",
      created: 1,
      model: body.model,
      choices: [{ index: 0, message: { role: "assistant", content: `ok with ${authorization}` }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
  },
});

let gateway: Awaited<ReturnType<typeof listening>>;
let sdk: OpenRouter;
let inference: { key: string; hash: string };
let other: { key: string; hash: string };
const admin = (method: string, path: string, body?: unknown) => callApi(gateway.url, method, path, body);

beforeAll(async () => {
  gateway = await listening({
    configText: `providers:
  openai: { type: openai-compatible, base_url: http://127.0.0.1:${upstream.port}/v1, api_key: configured-key }
models:
  - id: acme/one
    endpoints: [{ provider: openai, model: one }]
  - id: acme/two
    endpoints: [{ provider: openai, model: two }]
`,
  });
  sdk = new OpenRouter({ apiKey: ADMIN_KEY, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });
  const made = async (name: string) => {
    const json = (await (await admin("POST", "/keys", { name })).json()) as { key: string; data: { hash: string } };
    return { key: json.key, hash: json.data.hash };
  };
  inference = await made("byok-user");
  other = await made("byok-other");
});

afterAll(async () => {
  await gateway.stop();
  await upstream.stop(true);
});

async function chat(key: string, model = "acme/one"): Promise<{ status: number; text: string }> {
  seen.length = 0;
  const response = await fetch(`${gateway.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
  });
  return { status: response.status, text: await response.text() };
}

test("CRUD through the SDK: secrets are write-only, labels masked, allow-lists and order kept", async () => {
  const created = await sdk.byok.create({ createBYOKKeyRequest: { provider: "openai", key: "sk-first-secret-0001", name: "first" } });
  expect(created.data).toMatchObject({ provider: "openai", name: "first", label: "sk-f...0001", sortOrder: 0, isFallback: false, disabled: false });
  const second = await sdk.byok.create({ createBYOKKeyRequest: { provider: "openai", key: "sk-second-secret-02", allowedModels: ["acme/two"] } });
  expect(second.data.sortOrder).toBe(1);

  const listed = await sdk.byok.list({ provider: "openai" });
  expect(listed.result.totalCount).toBe(2);
  expect(listed.result.data.map((row) => row.id)).toEqual([created.data.id, second.data.id]);
  const updated = await sdk.byok.update({ id: second.data.id, updateBYOKKeyRequest: { allowedModels: null, key: "sk-rotated-secret-03", isFallback: true } });
  expect(updated.data).toMatchObject({ allowedModels: null, label: "sk-r...t-03", isFallback: true });
  expect((await sdk.byok.get({ id: created.data.id })).data.name).toBe("first");

  // No response, list or single, ever carries a secret.
  const raw = await (await admin("GET", "/byok")).text();
  expect(raw).not.toContain("secret");
  expect(raw).not.toContain("sk-first");

  expect((await sdk.byok.delete({ id: second.data.id })).deleted).toBe(true);
  expect((await admin("GET", `/byok/${second.data.id}`)).status).toBe(404);
  expect((await admin("DELETE", `/byok/${second.data.id}`)).status).toBe(404);
  await sdk.byok.delete({ id: created.data.id });

  const refused = await admin("POST", "/byok", { provider: "Acme!", key: "x" });
  expect(refused.status).toBe(400);
  expect(await refused.text()).toContain("provider");
  // An inference key may not manage credentials.
  expect((await callApi(gateway.url, "GET", "/byok", undefined, inference.key)).status).toBe(403);
});

test("routing sends the BYOK key instead of the configured one, in sort order, fallback ones last", async () => {
  accepted.clear();
  accepted.add("Bearer configured-key");
  expect((await chat(inference.key)).status).toBe(200);
  expect(seen).toEqual(["Bearer configured-key"]);

  const fallback = (await (await admin("POST", "/byok", { provider: "openai", key: "byok-fallback-key", is_fallback: true, sort_order: 0 })).json()).data;
  const late = (await (await admin("POST", "/byok", { provider: "openai", key: "byok-late-key-xyz", sort_order: 5 })).json()).data;
  const early = (await (await admin("POST", "/byok", { provider: "openai", key: "byok-early-key-xyz", sort_order: 1 })).json()).data;

  // Every BYOK credential refused: the request fails, the configured key is never tried.
  const failed = await chat(inference.key);
  expect(failed.status).toBeGreaterThanOrEqual(400);
  expect(seen).toEqual(["Bearer byok-early-key-xyz", "Bearer byok-late-key-xyz", "Bearer byok-fallback-key"]);
  expect(failed.text).not.toContain("byok-");

  accepted.add("Bearer byok-fallback-key");
  const served = await chat(inference.key);
  expect(served.status).toBe(200);
  expect(served.text).toContain("ok with Bearer byok-fallback-key");

  accepted.add("Bearer byok-early-key-xyz");
  expect((await chat(inference.key)).status).toBe(200);
  expect(seen).toEqual(["Bearer byok-early-key-xyz"]);

  // A disabled credential is passed over; the change is seen on the next request.
  await admin("PATCH", `/byok/${early.id}`, { disabled: true });
  await chat(inference.key);
  expect(seen).toEqual(["Bearer byok-late-key-xyz", "Bearer byok-fallback-key"]);

  for (const row of [fallback, late, early]) await admin("DELETE", `/byok/${row.id}`);
  expect((await chat(inference.key)).status).toBe(200);
  expect(seen).toEqual(["Bearer configured-key"]);
});

test("allow-lists: by key hash and by model", async () => {
  accepted.clear();
  accepted.add("Bearer configured-key");
  accepted.add("Bearer byok-for-key-only");
  accepted.add("Bearer byok-for-model-two");
  const forKey = (await (await admin("POST", "/byok", { provider: "openai", key: "byok-for-key-only", allowed_api_key_hashes: [inference.hash] })).json()).data;
  const forModel = (await (await admin("POST", "/byok", { provider: "openai", key: "byok-for-model-two", allowed_models: ["acme/two"] })).json()).data;

  await chat(inference.key, "acme/one");
  expect(seen).toEqual(["Bearer byok-for-key-only"]);
  await chat(inference.key, "acme/two");
  expect(seen).toEqual(["Bearer byok-for-key-only"]);
  await chat(other.key, "acme/two");
  expect(seen).toEqual(["Bearer byok-for-model-two"]);
  // No credential allowed for this key and model: the provider's configured key serves it.
  await chat(other.key, "acme/one");
  expect(seen).toEqual(["Bearer configured-key"]);

  await admin("DELETE", `/byok/${forKey.id}`);
  await admin("DELETE", `/byok/${forModel.id}`);
  expect(gateway.lines.join("\n")).not.toContain("byok-for");
});
