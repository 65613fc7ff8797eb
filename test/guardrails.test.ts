import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, callApi, listening } from "./helpers/gateway.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/**
 * Guardrails over HTTP (the reference SDK's methods, whose schemas reject a wrong shape) and their
 * enforcement through real inference against a local upstream: models, providers, data policy and
 * budget, combined with the key's own limit and the request's `provider` object.
 */
describe("guardrails", () => {
  let upstream: Upstream;
  let gateway: Awaited<ReturnType<typeof listening>>;
  let sdk: OpenRouter;
  let workspaceId: string;
  const admin = (method: string, path: string, body?: unknown) => callApi(gateway.url, method, path, body);
  const chat = (key: string, body: Record<string, unknown> = {}) =>
    fetch(`${gateway.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "acme/one", messages: [{ role: "user", content: "hi" }], max_tokens: 10, ...body }),
    });
  const newKey = async (name: string, extra: Record<string, unknown> = {}) => (await (await admin("POST", "/keys", { name, ...extra })).json()) as { key: string; data: { hash: string } };
  const guard = async (body: Record<string, unknown>) => (await sdk.guardrails.create({ createGuardrailRequest: { name: "g", ...body } as never })).data;

  beforeAll(async () => {
    upstream = startOpenAiUpstream();
    gateway = await listening({
      configText: `providers:
  alpha: { type: openai-compatible, base_url: ${upstream.url}/v1 }
  beta: { type: openai-compatible, base_url: ${upstream.url}/v1 }
models:
  - id: acme/one
    endpoints:
      - { provider: alpha, model: a, pricing: { prompt: 1000, completion: 1000 }, max_output: 10, retains_prompts: true }
      - { provider: beta, model: b, pricing: { prompt: 1000, completion: 1000 }, max_output: 10, collects_data: true }
  - id: acme/two
    endpoints: [{ provider: alpha, model: c, pricing: { prompt: 1000, completion: 1000 }, max_output: 10 }]
  - id: openai/three
    endpoints: [{ provider: alpha, model: d, pricing: { prompt: 1000, completion: 1000 }, max_output: 10, retains_prompts: true }]
`,
    });
    sdk = new OpenRouter({ apiKey: ADMIN_KEY, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });
    workspaceId = (await (await admin("GET", "/key")).json()).data.workspace_id ?? (await (await admin("GET", "/workspaces")).json()).data[0].id;
  });
  afterAll(async () => {
    await gateway.stop();
    await upstream.stop();
  });

  test("CRUD and key assignments through the SDK", async () => {
    const created = await guard({ name: "team", description: "d", limitUsd: 5, resetInterval: "monthly", allowedModels: ["acme/one"], enforceZdr: true, enableFreeModelTraining: false });
    expect(created).toMatchObject({ name: "team", limitUsd: 5, resetInterval: "monthly", allowedModels: ["acme/one"], enforceZdrOpenai: true, enforceZdrOther: true, enableFreeModelTraining: false, workspaceId });
    expect((await sdk.guardrails.get({ id: created.id })).data.name).toBe("team");
    const updated = (await sdk.guardrails.update({ id: created.id, updateGuardrailRequest: { allowedModels: ["acme/two", "acme/one"], enforceZdrOther: false } })).data;
    expect(updated.allowedModels).toEqual(["acme/two", "acme/one"]);
    expect(updated.enforceZdrOther).toBe(false);
    expect(updated.enforceZdrOpenai).toBe(true);
    const page = await sdk.guardrails.list({});
    expect(page.result.data.map((row) => row.id)).toContain(created.id);

    const { data: key } = await newKey("assigned");
    expect((await sdk.guardrails.bulkAssignKeys({ id: created.id, bulkAssignKeysRequest: { keyHashes: [key.hash] } })).assignedCount).toBe(1);
    const assignments = await sdk.guardrails.listGuardrailKeyAssignments({ id: created.id });
    expect(assignments.result.data).toEqual([expect.objectContaining({ guardrailId: created.id, keyHash: key.hash, keyName: "assigned" })]);
    expect((await sdk.guardrails.listKeyAssignments({})).result.data.some((row) => row.keyHash === key.hash)).toBe(true);
    // A key holds one guardrail: assigning another replaces it.
    const other = await guard({ name: "other" });
    expect((await sdk.guardrails.bulkAssignKeys({ id: other.id, bulkAssignKeysRequest: { keyHashes: [key.hash] } })).assignedCount).toBe(1);
    expect((await sdk.guardrails.listGuardrailKeyAssignments({ id: created.id })).result.data).toEqual([]);
    expect((await sdk.guardrails.bulkUnassignKeys({ id: other.id, bulkUnassignKeysRequest: { keyHashes: [key.hash] } })).unassignedCount).toBe(1);
    expect((await sdk.guardrails.delete({ id: other.id })).deleted).toBe(true);
    expect((await admin("GET", `/guardrails/${other.id}`)).status).toBe(404);
  });

  test("errors name the field: unknown model, bad list, unknown key, the default guardrail unassignable", async () => {
    const unknown = await admin("POST", "/guardrails", { name: "x", allowed_models: ["acme/none"] });
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error.message).toContain("allowed_models");
    expect((await admin("POST", "/guardrails", { name: "x", allowed_providers: [] })).status).toBe(400);
    const lookaround = await admin("POST", "/guardrails", { name: "x", content_filters: [{ pattern: "a(?=b)", action: "block" }] });
    expect(lookaround.status).toBe(400);
    expect((await lookaround.json()).error.message).toContain("content_filters[0].pattern: invalid_regex_pattern");
    expect((await admin("POST", "/guardrails", { name: "x", content_filters: [{ pattern: "(a+)+", action: "block" }] })).status).toBe(400);
    // Recognisers this gateway does not run are refused, not silently ignored.
    expect((await admin("POST", "/guardrails", { name: "x", content_filter_builtins: [{ slug: "secrets", action: "redact" }] })).status).toBe(400);
    const created = (await (await admin("POST", "/guardrails", { name: "x" })).json()).data;
    const missing = await admin("POST", `/guardrails/${created.id}/assignments/keys`, { key_hashes: ["f".repeat(64)] });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toContain("key_hashes");
    const { data: key } = await newKey("plain");
    expect((await admin("POST", `/guardrails/default-${workspaceId}/assignments/keys`, { key_hashes: [key.hash] })).status).toBe(400);
  });

  test("a model outside the allow-list is refused naming the guardrail; an ignored one too", async () => {
    const { key, data } = await newKey("models");
    const guardrail = (await (await admin("POST", "/guardrails", { name: "only-one", allowed_models: ["acme/one"] })).json()).data;
    await admin("POST", `/guardrails/${guardrail.id}/assignments/keys`, { key_hashes: [data.hash] });
    expect((await chat(key)).status).toBe(200);
    const refused = await chat(key, { model: "acme/two" });
    expect(refused.status).toBe(403);
    const body = await refused.json();
    expect(body.error.message).toContain('"only-one"');
    expect(body.error.message).toContain("allowed_models");
    expect(body.error).toMatchObject({ code: 403, metadata: { guardrail_id: guardrail.id, guardrail_name: "only-one", rule: "allowed_models" } });
    const blocked = await fetch(`${gateway.url}/api/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "acme/two", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(blocked.status).toBe(403);
    expect((await blocked.json()).error).toMatchObject({ type: "permission_error", metadata: { guardrail_id: guardrail.id, rule: "allowed_models" } });
    // A fallback in models[] is checked too: a request cannot widen the list through it.
    expect((await chat(key, { models: ["acme/two"] })).status).toBe(403);
    await admin("PATCH", `/guardrails/${guardrail.id}`, { allowed_models: null, ignored_models: ["acme/two"] });
    expect((await chat(key, { model: "acme/two" })).status).toBe(403);
    expect((await chat(key)).status).toBe(200);
  });

  test("providers: a provider not allowed is skipped, a request narrows but never widens", async () => {
    const { key, data } = await newKey("providers");
    const guardrail = (await (await admin("POST", "/guardrails", { name: "beta-only", allowed_providers: ["beta"] })).json()).data;
    await admin("POST", `/guardrails/${guardrail.id}/assignments/keys`, { key_hashes: [data.hash] });
    upstream.requests.length = 0;
    for (let index = 0; index < 4; index++) expect((await chat(key)).status).toBe(200);
    expect(new Set(upstream.requests.map((request) => (request.body as { model: string }).model))).toEqual(new Set(["b"]));
    // Asking for alpha only cannot widen the guardrail: nothing is left, a block (403) naming the guardrail and its rule.
    const widened = await chat(key, { provider: { only: ["alpha"] } });
    expect(widened.status).toBe(403);
    const body = await widened.json();
    expect(body.error.code).toBe(403);
    expect(body.error.message).toContain('"beta-only"');
    expect(body.error.metadata).toMatchObject({ guardrail_id: guardrail.id, guardrail_name: "beta-only", rule: "allowed_providers" });
    expect(body.error.availability.constraint.field).toBe(`guardrail.${guardrail.id}.allowed_providers`);
    // Narrowing within it works: ignoring nothing it allows, ordering it.
    expect((await chat(key, { provider: { order: ["beta"], allow_fallbacks: false } })).status).toBe(200);
    // acme/two is served by alpha only: skipped, so refused.
    expect((await chat(key, { model: "acme/two" })).status).toBe(403);
    // On /messages the block is an Anthropic permission_error, still naming the guardrail.
    const messages = await fetch(`${gateway.url}/api/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "acme/two", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(messages.status).toBe(403);
    const anthropic = await messages.json();
    expect(anthropic).toMatchObject({ type: "error", error: { type: "permission_error", code: 403, metadata: { guardrail_id: guardrail.id, rule: "allowed_providers" } } });
  });

  test("data policy: ZDR per model group and training rules exclude endpoints; the request can add ZDR, not remove it", async () => {
    const { key, data } = await newKey("policy");
    const guardrail = (await (await admin("POST", "/guardrails", { name: "zdr-openai", enforce_zdr_openai: true, enable_paid_model_training: false })).json()).data;
    await admin("POST", `/guardrails/${guardrail.id}/assignments/keys`, { key_hashes: [data.hash] });
    // openai/three's only endpoint retains prompts: excluded under ZDR for openai models.
    const refused = await chat(key, { model: "openai/three", provider: { zdr: false } });
    expect(refused.status).toBe(403);
    const body = await refused.json();
    expect(body.error.metadata).toMatchObject({ guardrail_id: guardrail.id, rule: "enforce_zdr_openai" });
    expect(body.error.availability).toMatchObject({ code: "privacy_restricted", constraint: { field: `guardrail.${guardrail.id}.enforce_zdr_openai` } });
    // acme/one: beta may train on prompts (paid training off) so alpha serves; ZDR for other models is off.
    upstream.requests.length = 0;
    expect((await chat(key)).status).toBe(200);
    expect((upstream.requests[0]!.body as { model: string }).model).toBe("a");
    // The request's own zdr excludes alpha as well: nothing left, and beta was the guardrail's doing.
    const none = await chat(key, { provider: { zdr: true } });
    expect(none.status).toBe(403);
    expect((await none.json()).error.metadata.rule).toBe("enable_paid_model_training");
    // Without a guardrail in the way, the request's own constraints still answer 404.
    expect((await chat((await newKey("unguarded")).key, { model: "openai/three", provider: { zdr: true } })).status).toBe(404);
  });

  test("budget: per key, not pooled: each key under a guardrail gets the whole budget; exhausted answers 402 naming it; the lower limit wins", async () => {
    const first = await newKey("budget-a");
    const second = await newKey("budget-b");
    const guardrail = (await (await admin("POST", "/guardrails", { name: "tight", limit_usd: 0.05, reset_interval: "daily" })).json()).data;
    await admin("POST", `/guardrails/${guardrail.id}/assignments/keys`, { key_hashes: [first.data.hash, second.data.hash] });
    // Each request costs 17 tokens × $0.001 = $0.017 and may cost up to ~$0.02 (10 output tokens): two fit in $0.05, a third does not.
    const until402 = async (key: string) => {
      for (let served = 0; served < 5; served++) {
        const response = await chat(key);
        if (response.status === 402) return { served, response };
        expect(response.status).toBe(200);
      }
      throw new Error("never refused");
    };
    const exhausted = await until402(first.key);
    expect(exhausted.served).toBe(2);
    const body = await exhausted.response.json();
    expect(body.error.message).toContain('"tight"');
    expect(body.error.metadata).toMatchObject({ guardrail_id: guardrail.id, rule: "limit_usd" });
    // The first key's exhaustion leaves the second key's budget whole.
    expect((await until402(second.key)).served).toBe(2);
    // The key's own limit still applies under a looser guardrail.
    const own = await newKey("own-limit", { limit: 0.0001 });
    const loose = (await (await admin("POST", "/guardrails", { name: "loose", limit_usd: 100 })).json()).data;
    await admin("POST", `/guardrails/${loose.id}/assignments/keys`, { key_hashes: [own.data.hash] });
    const ownRefused = await chat(own.key);
    expect(ownRefused.status).toBe(402);
    expect((await ownRefused.json()).error.message).toContain("This key's spend limit");
  });

  test("content filters: builtins and patterns redact before routing, block with 403 naming the patterns, flag lets through", async () => {
    const { key, data } = await newKey("filtered");
    const created = await guard({
      name: "pii",
      contentFilterBuiltins: [{ slug: "email", action: "redact" }, { slug: "ssn", action: "block" }],
      contentFilters: [{ pattern: "acct-[0-9]{4}", action: "redact", label: "[ACCOUNT]" }, { pattern: "project x", action: "flag" }],
    });
    expect(created.contentFilterBuiltins).toEqual([
      { slug: "email", action: "redact", label: "[EMAIL]" },
      { slug: "ssn", action: "block", label: "[SSN]" },
    ]);
    expect(created.contentFilters).toEqual([{ pattern: "acct-[0-9]{4}", action: "redact", label: "[ACCOUNT]" }, { pattern: "project x", action: "flag", label: null }]);
    await admin("POST", `/guardrails/${created.id}/assignments/keys`, { key_hashes: [data.hash] });
    upstream.requests.length = 0;
    const say = (content: string) => chat(key, { messages: [{ role: "user", content }] });
    expect((await say("write to jo@example.com about acct-1234 and project x")).status).toBe(200);
    expect(JSON.stringify(upstream.requests[0]!.body)).toContain("write to [EMAIL] about [ACCOUNT] and project x");
    const blocked = await say("my ssn is 123-45-6789, mail jo@example.com");
    expect(blocked.status).toBe(403);
    expect((await blocked.json()).error).toMatchObject({ code: 403, metadata: { patterns: ["ssn"], guardrail_id: created.id, rule: "content_filters" } });
    expect(upstream.requests).toHaveLength(1);
    // Clearing them (null) lets everything through unchanged.
    await sdk.guardrails.update({ id: created.id, updateGuardrailRequest: { contentFilterBuiltins: null, contentFilters: null } });
    expect((await say("my ssn is 123-45-6789")).status).toBe(200);
  });

  test("the workspace's default guardrail applies to every key once configured", async () => {
    const id = `default-${workspaceId}`;
    const unconfigured = (await (await admin("GET", `/guardrails/${id}`)).json()).data;
    expect(unconfigured.name).toBe(`Workspace ${workspaceId} Default`);
    const workspace = (await (await admin("GET", `/workspaces/${workspaceId}`)).json()).data;
    expect(workspace.default_guardrail_id).toBe(id);
    const { key } = await newKey("any");
    expect((await chat(key, { model: "acme/two" })).status).toBe(200);
    expect((await admin("PATCH", `/guardrails/${id}`, { ignored_models: ["acme/two"] })).status).toBe(200);
    const refused = await chat(key, { model: "acme/two" });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.metadata.guardrail_id).toBe(id);
    // Deleting it returns it to unconfigured.
    expect((await admin("DELETE", `/guardrails/${id}`)).status).toBe(200);
    expect((await chat(key, { model: "acme/two" })).status).toBe(200);
  });
});
