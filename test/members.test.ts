import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, callApi, createKey, type InProcess, inProcess } from "./helpers/gateway.ts";
import { csrfToken, SESSION_COOKIE } from "../src/api/session-cookie.ts";

/**
 * Members over HTTP: the organization's directory (the reference's list through its SDK, and the local
 * account extensions), workspace memberships through the SDK's bulk methods, keys that belong to
 * members, deactivation, SCIM-managed refusals and a member's visible spend.
 */
describe("members", () => {
  let gateway: InProcess;
  let server: ReturnType<typeof Bun.serve>;
  let url: string;
  let sdk: OpenRouter;
  let workspaceId: string;
  const api = (method: string, path: string, body?: unknown, key = ADMIN_KEY) => callApi(url, method, path, body, key);
  const newMember = async (body: Record<string, unknown>) => {
    const response = await api("POST", "/organization/members", body);
    expect(response.status).toBe(201);
    return (await response.json()).data as { id: string; role: string; organization_role: string };
  };

  beforeAll(async () => {
    gateway = await inProcess();
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => gateway.app.handle(request) });
    url = `http://127.0.0.1:${server.port}`;
    sdk = new OpenRouter({ apiKey: ADMIN_KEY, serverURL: `${url}/api/v1`, retryConfig: { strategy: "none" } });
    workspaceId = (await (await api("GET", "/key")).json()).data.workspace_id;
  });
  afterAll(async () => {
    await server.stop(true);
  });

  test("organization members: local accounts created, listed in the reference shape (owner is org:admin), paged, read, updated", async () => {
    const owner = await newMember({ email: "Owner@Example.com", first_name: "Olive", last_name: "Owner", role: "owner" });
    const member = await newMember({ email: "mia@example.com", first_name: "Mia", role: "org:member" });
    expect(owner).toMatchObject({ role: "org:admin", organization_role: "owner" });
    expect(member).toMatchObject({ role: "org:member", organization_role: "member" });
    expect((await api("POST", "/organization/members", { email: "OWNER@example.com" })).status).toBe(409);
    const invalid = await api("POST", "/organization/members", { email: "not an address" });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).error.message).toContain("email");

    const page = await sdk.organization.listMembers({ offset: 0, limit: 100 });
    const listed = page.result.data.find((entry) => entry.id === owner.id);
    expect(listed).toEqual({ id: owner.id, email: "owner@example.com", firstName: "Olive", lastName: "Owner", role: "org:admin" });
    expect(page.result.totalCount).toBeGreaterThanOrEqual(2);
    const second = await sdk.organization.listMembers({ offset: 1, limit: 1 });
    expect(second.result.data.map((entry) => entry.id)).toEqual([page.result.data[1]!.id]);
    expect((await api("GET", "/organization/members?limit=101")).status).toBe(400);

    const read = await api("GET", `/organization/members/${member.id}`);
    expect((await read.json()).data).toMatchObject({ id: member.id, active: true, scim_managed: false, usage: 0, usage_daily: 0, usage_weekly: 0, usage_monthly: 0 });
    const patched = await api("PATCH", `/organization/members/${member.id}`, { last_name: "Member", role: "admin" });
    expect((await patched.json()).data).toMatchObject({ first_name: "Mia", last_name: "Member", role: "org:admin", organization_role: "admin" });
    expect((await api("GET", "/organization/members/user_unknown")).status).toBe(404);
  });

  test("organization routes need the deployment admin: another management key and an inference key get 403", async () => {
    const other = await (await api("POST", "/workspaces", { name: "Other", slug: "org-other" })).json();
    const manager = await createKey(gateway, { name: "other admin", kind: "management", workspace_id: other.data.id });
    const inference = await createKey(gateway, { name: "inference" });
    for (const key of [manager.key, inference.key]) {
      expect((await api("GET", "/organization/members", undefined, key)).status).toBe(403);
      expect((await api("POST", "/organization/members", { email: "x@example.com" }, key)).status).toBe(403);
      expect((await api("DELETE", "/organization/members/user_unknown", undefined, key)).status).toBe(403);
    }
  });

  test("ownership is the owners' to give: a signed-in admin cannot change, remove or create an owner; an owner and the deployment admin key can", async () => {
    const session = async (role: "owner" | "admin") => {
      const person = await gateway.services.members.create({ email: `${role}-${crypto.randomUUID()}@example.com`, role });
      const { token } = await gateway.services.sessions.open({ kind: "oidc", memberId: person.id });
      return { cookie: `${SESSION_COOKIE}=${encodeURIComponent(token)}`, csrf: csrfToken(token) };
    };
    const as = (who: { cookie: string; csrf: string }, method: string, path: string, body?: unknown) =>
      fetch(`${url}/api/v1${path}`, { method, headers: { cookie: who.cookie, "x-csrf-token": who.csrf, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const admin = await session("admin");
    const owner = await session("owner");
    const target = await newMember({ email: `owner-${crypto.randomUUID()}@example.com`, role: "owner" });
    const plain = await newMember({ email: `plain-${crypto.randomUUID()}@example.com` });
    for (const [method, path, body] of [
      ["PATCH", `/organization/members/${target.id}`, { role: "member" }],
      ["DELETE", `/organization/members/${target.id}`, undefined],
      ["PATCH", `/organization/members/${plain.id}`, { role: "owner" }],
      ["POST", "/organization/members", { email: `new-${crypto.randomUUID()}@example.com`, role: "owner" }],
    ] as const) {
      const refused = await as(admin, method, path, body);
      expect(refused.status).toBe(403);
      expect((await refused.json()).error.message).toContain("Only an organization owner");
    }
    expect((await as(admin, "PATCH", `/organization/members/${plain.id}`, { first_name: "Pat" })).status).toBe(200);
    expect((await as(owner, "PATCH", `/organization/members/${plain.id}`, { role: "owner" })).status).toBe(200);
    expect((await api("PATCH", `/organization/members/${target.id}`, { role: "admin" })).status).toBe(200);
  });

  test("workspace members: added with their organization role through the SDK, listed, removed unless they hold active keys", async () => {
    const admin = await newMember({ email: "ada@example.com", role: "admin" });
    const bob = await newMember({ email: "bob@example.com" });
    const added = await sdk.workspaces.bulkAddMembers({ id: workspaceId, bulkAddWorkspaceMembersRequest: { userIds: [admin.id, bob.id] } });
    expect(added.addedCount).toBe(2);
    expect(added.data.map((row) => [row.userId, row.role, row.workspaceId])).toEqual([[admin.id, "admin", workspaceId], [bob.id, "member", workspaceId]]);
    const again = await sdk.workspaces.bulkAddMembers({ id: workspaceId, bulkAddWorkspaceMembersRequest: { userIds: [bob.id] } });
    expect(again.addedCount).toBe(0);
    const listed = await sdk.workspaces.listMembers({ id: workspaceId, offset: 0, limit: 100 });
    expect(listed.result.data.map((row) => row.userId)).toEqual(expect.arrayContaining([admin.id, bob.id]));
    const unknown = await api("POST", `/workspaces/${workspaceId}/members/add`, { user_ids: ["user_nobody"] });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.message).toContain("user_nobody");
    expect((await api("POST", `/workspaces/${workspaceId}/members/add`, { user_ids: [] })).status).toBe(400);

    // Keys belong to members: creator_user_id names an active member of the key's workspace.
    expect((await api("POST", "/keys", { name: "ghost's", creator_user_id: "user_nobody" })).status).toBe(404);
    const outsider = await newMember({ email: "out@example.com" });
    const notMember = await api("POST", "/keys", { name: "outsider's", creator_user_id: outsider.id });
    expect(notMember.status).toBe(400);
    expect((await notMember.json()).error.message).toContain("creator_user_id");
    const bobs = await createKey(gateway, { name: "bob's", creator_user_id: bob.id });

    const refused = await api("POST", `/workspaces/${workspaceId}/members/remove`, { user_ids: [bob.id, admin.id] });
    expect(refused.status).toBe(409);
    expect((await refused.json()).error.message).toContain(bob.id);
    await api("PATCH", `/keys/${bobs.hash}`, { disabled: true });
    const removed = await sdk.workspaces.bulkRemoveMembers({ id: workspaceId, bulkRemoveWorkspaceMembersRequest: { userIds: [bob.id, admin.id] } });
    expect(removed.removedCount).toBe(2);
    expect((await api("POST", "/keys", { name: "bob again", creator_user_id: bob.id })).status).toBe(400);
  });

  test("deactivation disables the member's keys at once; SCIM-managed members and memberships are refused with 409", async () => {
    const carol = await newMember({ email: "carol@example.com" });
    await api("POST", `/workspaces/${workspaceId}/members/add`, { user_ids: [carol.id] });
    const key = await createKey(gateway, { name: "carol's", creator_user_id: carol.id });
    expect((await api("GET", "/key", undefined, key.key)).status).toBe(200);
    const deactivated = await api("PATCH", `/organization/members/${carol.id}`, { active: false });
    expect((await deactivated.json()).data.active).toBe(false);
    expect((await api("GET", "/key", undefined, key.key)).status).toBe(401);
    expect((await api("POST", `/workspaces/${workspaceId}/members/add`, { user_ids: [carol.id] })).status).toBe(400);
    expect((await api("POST", "/keys", { name: "carol again", creator_user_id: carol.id })).status).toBe(400);
    const reenabled = await api("PATCH", `/keys/${key.hash}`, { disabled: false });
    expect(reenabled.status).toBe(400);
    expect((await reenabled.json()).error.message).toContain("deactivated");

    const scim = await gateway.services.members.create({ email: "sam@example.com", scimManaged: true });
    await gateway.services.members.addToWorkspace(workspaceId, scim.id, "member", "scim");
    for (const [method, body] of [["PATCH", { active: false }], ["DELETE", undefined]] as const) {
      const answer = await api(method, `/organization/members/${scim.id}`, body);
      expect(answer.status).toBe(409);
      expect((await answer.json()).error.message).toContain("managed by SCIM");
    }
    const membership = await api("POST", `/workspaces/${workspaceId}/members/remove`, { user_ids: [scim.id] });
    expect(membership.status).toBe(409);
    expect((await membership.json()).error.message).toContain("SCIM");

    expect((await api("DELETE", `/organization/members/${carol.id}`)).status).toBe(200);
    expect((await api("GET", `/organization/members/${carol.id}`)).status).toBe(404);
  });

  test("another workspace's members are not found for its management key; an inference key gets 403", async () => {
    const other = await (await api("POST", "/workspaces", { name: "Elsewhere", slug: "members-elsewhere" })).json();
    const manager = await createKey(gateway, { name: "elsewhere admin", kind: "management", workspace_id: other.data.id });
    expect((await api("GET", `/workspaces/${workspaceId}/members`, undefined, manager.key)).status).toBe(404);
    expect((await api("GET", `/workspaces/${other.data.id}/members`, undefined, manager.key)).status).toBe(200);
    const inference = await createKey(gateway, { name: "plain" });
    expect((await api("GET", `/workspaces/${workspaceId}/members`, undefined, inference.key)).status).toBe(403);
  });
});
