import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, callApi, listening } from "./helpers/gateway.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/**
 * Guardrails assigned to members, through the reference SDK's methods, and their enforcement through
 * real inference against a local upstream: a member's guardrail applies to every key the member
 * created, and its budget is one ledger per member (the member's keys spend from it together; another
 * member's budget is whole). A member's spend is visible on the member.
 */
describe("member guardrails", () => {
  let upstream: Upstream;
  let gateway: Awaited<ReturnType<typeof listening>>;
  let sdk: OpenRouter;
  let workspaceId: string;
  const admin = (method: string, path: string, body?: unknown) => callApi(gateway.url, method, path, body);
  const chat = (key: string, model = "acme/one") =>
    fetch(`${gateway.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 10 }),
    });
  const member = async (email: string) => {
    const created = (await (await admin("POST", "/organization/members", { email })).json()).data as { id: string };
    expect((await admin("POST", `/workspaces/${workspaceId}/members/add`, { user_ids: [created.id] })).status).toBe(200);
    return created.id;
  };
  const keyOf = async (memberId: string | null, name: string) => {
    const response = await admin("POST", "/keys", { name, creator_user_id: memberId });
    expect(response.status).toBe(201);
    return ((await response.json()) as { key: string }).key;
  };
  const guardrail = async (body: Record<string, unknown>) => (await (await admin("POST", "/guardrails", { name: "members", ...body })).json()).data as { id: string };

  beforeAll(async () => {
    upstream = startOpenAiUpstream();
    gateway = await listening({
      configText: `providers:
  alpha: { type: openai-compatible, base_url: ${upstream.url}/v1 }
models:
  - id: acme/one
    endpoints: [{ provider: alpha, model: a, pricing: { prompt: 1000, completion: 1000 }, max_output: 10 }]
  - id: acme/two
    endpoints: [{ provider: alpha, model: c, pricing: { prompt: 1000, completion: 1000 }, max_output: 10 }]
`,
    });
    sdk = new OpenRouter({ apiKey: ADMIN_KEY, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });
    workspaceId = (await (await admin("GET", "/key")).json()).data.workspace_id;
  });
  afterAll(async () => {
    await gateway.stop();
    await upstream.stop();
  });

  test("assignments through the SDK: assign, list (per guardrail and all), unassign; unknown members 404, the default guardrail 400", async () => {
    const ada = await member("ada@example.com");
    const bob = await member("bob@example.com");
    const created = await guardrail({ allowed_models: ["acme/one"] });
    const assigned = await sdk.guardrails.bulkAssignMembers({ id: created.id, bulkAssignMembersRequest: { memberUserIds: [ada, bob] } });
    expect(assigned.assignedCount).toBe(2);
    expect((await sdk.guardrails.bulkAssignMembers({ id: created.id, bulkAssignMembersRequest: { memberUserIds: [ada] } })).assignedCount).toBe(0);
    const listed = await sdk.guardrails.listGuardrailMemberAssignments({ id: created.id });
    expect(listed.result.totalCount).toBe(2);
    expect(listed.result.data.map((row) => row.userId).sort()).toEqual([ada, bob].sort());
    expect(listed.result.data[0]).toMatchObject({ guardrailId: created.id, organizationId: "roundhouse", assignedBy: expect.any(String) });
    const all = await sdk.guardrails.listMemberAssignments({});
    expect(all.result.data.map((row) => row.userId)).toEqual(expect.arrayContaining([ada, bob]));
    const removed = await sdk.guardrails.bulkUnassignMembers({ id: created.id, bulkUnassignMembersRequest: { memberUserIds: [bob, "user_unknown"] } });
    expect(removed.unassignedCount).toBe(1);

    const unknown = await admin("POST", `/guardrails/${created.id}/assignments/members`, { member_user_ids: ["user_unknown"] });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.message).toContain("user_unknown");
    expect((await admin("POST", `/guardrails/default-${workspaceId}/assignments/members`, { member_user_ids: [ada] })).status).toBe(400);
    expect((await admin("GET", "/guardrails/nope/assignments/members")).status).toBe(404);
  });

  test("a member's guardrail applies to every key the member created, at once, and no longer once unassigned", async () => {
    const carol = await member("carol@example.com");
    const first = await keyOf(carol, "carol-1");
    const other = await keyOf(null, "nobody's");
    expect((await chat(first, "acme/two")).status).toBe(200);
    const created = await guardrail({ allowed_models: ["acme/one"] });
    await admin("POST", `/guardrails/${created.id}/assignments/members`, { member_user_ids: [carol] });
    const refused = await chat(first, "acme/two");
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.metadata).toMatchObject({ guardrail_id: created.id, rule: "allowed_models" });
    // A key the member creates afterwards is under it too; a key of nobody is not.
    expect((await chat(await keyOf(carol, "carol-2"), "acme/two")).status).toBe(403);
    expect((await chat(other, "acme/two")).status).toBe(200);
    await admin("POST", `/guardrails/${created.id}/assignments/members/remove`, { member_user_ids: [carol] });
    expect((await chat(first, "acme/two")).status).toBe(200);
  });

  test("budget: one ledger per member, shared by the member's keys, never pooled across members; the member's spend is visible", async () => {
    const dana = await member("dana@example.com");
    const eric = await member("eric@example.com");
    const danaKeys = [await keyOf(dana, "dana-1"), await keyOf(dana, "dana-2")];
    const ericKey = await keyOf(eric, "eric-1");
    const created = await guardrail({ name: "member budget", limit_usd: 0.05, reset_interval: "daily" });
    await admin("POST", `/guardrails/${created.id}/assignments/members`, { member_user_ids: [dana, eric] });
    // Each request costs 17 tokens × $0.001 = $0.017 and may cost up to ~$0.02: two fit in $0.05, a third does not.
    expect((await chat(danaKeys[0]!)).status).toBe(200);
    expect((await chat(danaKeys[1]!)).status).toBe(200);
    const exhausted = await chat(danaKeys[0]!);
    expect(exhausted.status).toBe(402);
    const body = await exhausted.json();
    expect(body.error.message).toContain('"member budget"');
    expect(body.error.metadata).toMatchObject({ guardrail_id: created.id, rule: "limit_usd" });
    expect((await chat(danaKeys[1]!)).status).toBe(402);
    // Eric's budget is whole.
    expect((await chat(ericKey)).status).toBe(200);
    expect((await chat(ericKey)).status).toBe(200);
    expect((await chat(ericKey)).status).toBe(402);

    const spent = await (async () => {
      for (let attempt = 0; attempt < 50; attempt++) {
        const data = (await (await admin("GET", `/organization/members/${dana}`)).json()).data;
        if (data.usage > 0.03) return data;
        await Bun.sleep(50);
      }
      throw new Error("the member's spend never showed");
    })();
    expect(spent.usage).toBeCloseTo(0.034, 6);
    expect(spent.usage_daily).toBeCloseTo(0.034, 6);
    expect(spent.usage_monthly).toBeCloseTo(0.034, 6);
  });
});
